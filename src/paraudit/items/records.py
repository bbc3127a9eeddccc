"""The counterfactual records every stage reads and writes.

An audit item is the tuple E = (C, A0, A1, R0, R1) of the paper (§3.1): one shared transcript,
two audio realisations of it, and the response that is right for each. The transcript is stored
once, so "both branches have the same words" holds by construction.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from paraudit.dimensions import emotion as _emotion

SCHEMA_VERSION = 1

Speaker = Literal["human", "assistant"]

# Tasks of the paper (§4) plus any custom name a benchmark builder picks.
KNOWN_TASKS = ("single-turn-emotions", "positional-emotion", "emotional-conversations")

# The emotion vocabulary is the emotion plugin's data now (dimensions/emotion.py); the old names
# stay importable from here.
HUMAN_EMOTIONS = _emotion.HUMAN_EMOTIONS
ASSISTANT_EMOTIONS = _emotion.ASSISTANT_EMOTIONS
DEFAULT_VOCABULARY = _emotion.DEFAULT_VOCABULARY
EMOTION_ALIASES = _emotion.EMOTION_ALIASES
DEFAULT_DIMENSION = "emotion"
"""The dimension of a dataset whose dataset.json names none (every dataset made before there were
dimensions)."""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class Turn(_Record):
    """One turn of the shared transcript."""

    speaker: Speaker
    """Who speaks: the human user or the voice assistant."""
    text: str = Field(min_length=1)
    """The words, identical in both branches."""


class Response(_Record):
    """A candidate final assistant response."""

    text: str = Field(min_length=1)
    """What the assistant says."""
    emotion: str
    """The tone the response is rendered with (e.g. empathetic)."""
    audio: str
    """Path of the rendered response, relative to the dataset folder."""


class Branch(_Record):
    """One counterfactual world: how every context turn sounded, and the right response."""

    emotions: tuple[str, ...]
    """Emotion label of every context turn, in transcript order."""
    audio: tuple[str, ...]
    """Audio file of every context turn (relative paths), in transcript order."""
    response: Response
    """The response that is right for this branch."""


class AuditItem(_Record):
    """A counterfactual audit item E = (C, A0, A1, R0, R1)."""

    id: str = Field(min_length=1)
    """Unique id within the dataset."""
    task: str = Field(min_length=1)
    """single-turn-emotions, positional-emotion, emotional-conversations or a custom name."""
    context: tuple[Turn, ...] = Field(min_length=1)
    """The shared transcript C, without the final assistant response."""
    branches: tuple[Branch, Branch]
    """The two worlds; branch y's response is the gold answer when branch y's audio is played."""
    meta: dict[str, Any] = Field(default_factory=dict)
    """Provenance: source id, TTS backend and voices, QC figures, emotion pair, shift turns."""

    def human_turns(self) -> list[int]:
        """Indices of the human turns in the context."""
        return [i for i, t in enumerate(self.context) if t.speaker == "human"]

    def audio_files(self) -> list[str]:
        """Every audio path the item refers to (context turns and responses), deduplicated."""
        paths: list[str] = []
        for b in self.branches:
            paths.extend(b.audio)
            paths.append(b.response.audio)
        return list(dict.fromkeys(paths))


class DatasetManifest(_Record):
    """dataset.json: what a dataset folder holds and how it was made."""

    name: str
    """Human-readable dataset name."""
    schema_version: int = SCHEMA_VERSION
    """Version of the item schema; readers refuse versions they do not know."""
    tasks: tuple[str, ...]
    """Tasks present in items.jsonl."""
    emotions: tuple[str, ...] = DEFAULT_VOCABULARY
    """The label set every label must come from (the name is historical: for a dimension other
    than emotion these are that dimension's labels)."""
    dimension: str = DEFAULT_DIMENSION
    """The paralinguistic dimension the labels belong to (`paraudit dimensions` lists them).
    Absent = emotion; once named, every label must be a value of it or be mapped onto one."""
    taxonomy: str = ""
    """A source label set the dimension knows by name (emotion: emocf, ekman6, iemocap4): the
    items carry that set's labels and load mapped onto the dimension's values."""
    label_map: dict[str, str] = Field(default_factory=dict)
    """Source label → the dimension's value, for a label set the dimension does not know (or to
    override one entry of `taxonomy`); items load with their labels mapped."""
    rendering: str = ""
    """How emotion was realised, e.g. 'prosody-manipulated (Piper + Praat PSOLA)'."""
    provenance: dict[str, Any] = Field(default_factory=dict)
    """Builder, sources, voices, package versions, build date."""
    mixed_audio_formats: bool = False
    """True for imported sets whose clips come in several sample rates or formats. By default
    validate requires one rate and one format/subtype across the dataset (a clip that differs is
    a format giveaway); with this set it only warns when the two branches of an item differ."""

    @model_serializer(mode="wrap")
    def _omit_unset_dimension(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # dataset.json is part of a run's dataset fingerprint: an emotion dataset written by this
        # code must be byte-identical to one written before dimensions existed, so the
        # dimension fields appear only when they say something.
        out: dict[str, Any] = handler(self)
        for name, default in (
            ("dimension", DEFAULT_DIMENSION),
            ("taxonomy", ""),
            ("label_map", {}),
        ):
            if out.get(name) == default and name not in self.model_fields_set:
                out.pop(name, None)
        return out
