"""The dimension contract: what a paralinguistic dimension declares so that every stage can build,
check, ask about and diagnose it without naming it.

A dimension is data plus two lazily loaded functions. The data (values, item kinds, question
wording, composition prompts, verdict words, hosted-TTS instructions) lives here, at the bottom
of the layering, so stats/ and protocols/ can read it. Rendering and its acoustic QC sit in their
own layers (`render/`, `qc/`) and are named by `module:function` strings, imported only when a
build runs — so `paraudit dimensions` can list a dimension whose renderer is not installed and say
what it needs.

Renderer: `render(text, value, *, voice, seed) -> RenderedClip`.
QC: `check(clip, value, *, baseline) -> QcCheck`, where `baseline` is the same words rendered with
the dimension's reference value (its first value) in the same voice and processing chain.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

ItemKind = Literal["single-turn", "positional", "conversation"]


@dataclass(frozen=True)
class Value:
    """One value (label) of a dimension."""

    name: str
    """The label as stored in items and asked in P questions ('angry', 'whispered')."""
    description: str
    """How it sounds, in words a listener or a hosted TTS understands."""
    group: str | None = None
    """A grouping the statistics may stratify by ('negative'); None when flat."""


@dataclass(frozen=True)
class Words:
    """How the verdict, the report and the listening app talk about the dimension."""

    noun: str
    """'emotion', 'sentence stress', 'speaking rate'."""
    attribute: str
    """What a judge must perceive: 'how the user feels', 'which word is stressed'."""
    does_not_hear: str
    """The perception failure: 'does not hear how the user feels'."""
    value_phrase: str
    """A stratum in words, with `{value}` (and optionally the value's `{description}`): 'when
    the user sounds {value}'."""
    listen_question: str
    """The listening test's question above the two responses: 'Which response fits better?'."""
    listen_for: str = "how the user sounded"
    """What the listening test's help tells annotators to fit the response to (emotion: 'how
    the user sounded', the page's old wording; whisper: 'whether the user whispers')."""


@dataclass(frozen=True)
class Questions:
    """The P / O / J / S / T wording as data (`str.format` templates)."""

    perception: str
    """P: asks which value the clip carries; `{options}` lists the values offered."""
    annotation: str
    """O and S: how a value is written into the transcript; `{value}`."""
    cues: Mapping[str, str] = field(default_factory=dict)
    """J, P, O, S and T's cue sentences in the dimension's words, by cue ('soft', 'hard'),
    each ending in a newline like the paper's; a cue not named keeps the paper's "tone of
    voice" wording (emotion names none, so its prompts stay the paper's verbatim). The native
    question (cue 'none') never names the dimension: that is what makes it native."""
    described: str = ""
    """O and S: how the prompt introduces the label after each transcript, in place of the
    paper's 'a description of the speaker's emotional tone of voice ("emotion")' ('' keeps it)."""
    misleading: str = "The user sounds *{value}*; focus on that when making your decision.\n"
    """J under the misleading cue (issue 32): the cue sentence, stating the *other* branch's
    value, worded like the paper's hard cue; `{value}` (protocols/pressure.py)."""


@dataclass(frozen=True)
class RenderedClip:
    """One rendered utterance, before it is written to the dataset."""

    samples: np.ndarray[Any, Any]
    """Mono float32 in [-1, 1]."""
    rate: int
    meta: Mapping[str, Any] = field(default_factory=dict)
    """What the renderer did (profile, measured effect, word timings …), stored in the item."""
    text: str = ""
    """The words rendered: QC rules that count syllables or words read them ('' = not given)."""


@dataclass(frozen=True)
class QcCheck:
    """A measured acoustic criterion's answer for one clip."""

    passed: bool
    measures: Mapping[str, float]
    """The figures the rule read, by name."""
    reasons: tuple[str, ...] = ()
    """Why it was rejected, one sentence each naming the figure and its bound (empty if passed)."""


@dataclass(frozen=True)
class Dimension:
    """One paralinguistic dimension."""

    name: str
    values: tuple[Value, ...]
    """In the order the builders pair them; the first is the reference (QC's baseline)."""
    item_kinds: tuple[ItemKind, ...]
    words: Words
    questions: Questions
    renderer: str
    """`module:function` of the offline renderer."""
    qc: str
    """`module:function` of the QC rule."""
    needs: tuple[str, ...] = ()
    """The extras or system packages the renderer and QC need ('tts', 'espeak')."""
    hosted_instructions: Mapping[str, str] = field(default_factory=dict)
    """Per value: the instruction a hosted TTS (gpt-4o-mini-tts, Gemini) is given."""
    compose_prompt: str = ""
    """The builders' prompt for a response right for one value and wrong for the other."""
    summary: str = ""
    """One line for `paraudit dimensions`: what the contrast is."""
    tasks: Mapping[ItemKind, str] = field(default_factory=dict)
    """The task name items of each kind carry ('single-turn' → 'single-turn-emotions'); a kind
    not named here uses '<kind>-<dimension name>'."""
    response_values: tuple[str, ...] = ()
    """Labels a response may carry when they are not values of the context turns (emotion: the
    assistant's tones); empty when responses carry the dimension's own values."""
    aliases: Mapping[str, str] = field(default_factory=dict)
    """Other names of values (a corpus's nouns, a paper's spelling) → the value's name."""
    taxonomies: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Named label sets of known sources → how each of their labels maps onto a value. A source
    with a label set of its own loads through one of these or an explicit mapping."""
    no_positional: str = ""
    """Why the dimension has no positional items, for `paraudit dimensions` and its docs ('' when
    it has them or nobody has said)."""
    valence: Mapping[str, str] = field(default_factory=dict)
    """Value → the sentiment words carrying it read as ('positive', 'negative', 'neutral'):
    what the word–tone conflict check (qc/conflict.py) compares a text classifier's label
    with. Empty: the dimension's conflict items need the composing LLM's own label."""
    words_carry: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Value → phrases whose presence in the words carries it ('no rush' → calm, 'right now'
    → urgent), matched whole-word and case-insensitively: what the word–tone conflict check
    reads (qc/conflict.py) for a dimension the words' sentiment does not decide. Where it is
    given it is read in place of `valence`."""
    no_conflict: str = ""
    """Why word–tone conflict items make no sense for the dimension (`--conflict` is refused
    with it); '' where they do."""

    def value(self, name: str) -> Value:
        for v in self.values:
            if v.name == name:
                return v
        known = ", ".join(v.name for v in self.values)
        raise KeyError(f"{name!r} is not a value of {self.name} (its values: {known})")

    @property
    def names(self) -> tuple[str, ...]:
        """Every label an item of this dimension may carry: the values, then response-only ones."""
        return tuple(dict.fromkeys([*(v.name for v in self.values), *self.response_values]))

    def canonical(self, label: str) -> str | None:
        """The value `label` names (itself, or through an alias, case-insensitively); None when
        it names none."""
        key = label.strip().lower()
        key = self.aliases.get(key, key)
        return key if key in self.names else None

    def task_for(self, kind: ItemKind) -> str:
        return self.tasks.get(kind, f"{kind}-{self.name}")
