"""Questions as data: what an instance asks, independent of how the prompt words it.

Every instance carries a frozen `Question` beside its prompt: task, probe, protocol, cue, the
answer kind, the offered options (label → meaning), the role of every audio clip in prompt order
and, for text probes, the context turns as given. Judges that set `reads_question = True` get it
with each call, so rewording a template never silently breaks them.

Which template and answer kind a (task shape, probe, protocol) uses is one table, `FORMS`: a new
task shape or probe is a new entry there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Literal

from paraudit.dimensions import registry
from paraudit.dimensions.base import Dimension
from paraudit.items.records import DEFAULT_DIMENSION, AuditItem, DatasetManifest
from paraudit.items.taxonomy import item_dimension
from paraudit.protocols import paper_prompts as pp

Probe = Literal["J", "P", "O", "S", "T", "N"]
"""N (null audio) asks a P or J question with null context clips (protocols/null_probe.py)."""
Protocol = Literal["pointwise", "pairwise"]
AnswerKind = Literal["choice", "matching", "turns"]
Shape = Literal["single-turn", "multi-turn"]

# Tasks whose context is one human utterance; every other task (the paper's positional-emotion and
# emotional-conversations, custom names) is a multi-turn conversation.
SINGLE_TURN_TASKS = frozenset({"single-turn-emotions"})


def shape_of(task: str) -> Shape:
    # A dimension's single-turn task is named 'single-turn-<dimension>' (Dimension.task_for).
    single = task in SINGLE_TURN_TASKS or task.startswith("single-turn-")
    return "single-turn" if single else "multi-turn"


@dataclass(frozen=True)
class ClipRole:
    """What one audio part of the prompt is."""

    role: str
    """'C', 'CA', 'CB' (a context turn of that conversation) or 'R1', 'R2' (a response)."""
    turn: int | None
    """1-based turn number within its conversation; None for a response."""
    speaker: Literal["human", "assistant"]


@dataclass(frozen=True)
class TextTurn:
    """One context turn as a text probe gives it."""

    conversation: str
    """'C', 'CA' or 'CB'."""
    turn: int
    """1-based turn number within its conversation."""
    speaker: Literal["human", "assistant"]
    transcript: str
    emotion: str | None
    """The emotion shown with it (true for O, the judge's own for S); None when none is shown."""


@dataclass(frozen=True)
class Question:
    """One instance's question, as data (never the gold)."""

    task: str
    probe: Probe
    protocol: Protocol
    cue: str
    answer: AnswerKind
    options: dict[str, str]
    """Offered label → its meaning: an emotion name (P), a response's words (text probes), or
    '' where the option is an audio clip whose meaning is what it sounds like (J)."""
    clips: tuple[ClipRole, ...] = ()
    """The role of every audio part, in prompt order."""
    context: tuple[TextTurn, ...] = ()
    """The context turns a text probe shows (O, S, T); empty for audio probes."""
    human_keys: tuple[str, ...] = ()
    """The keys a 'turns' answer must have (C[t] of each human turn)."""
    cue_value: str | None = None
    """The value the cue states (the misleading cue: the other branch's); None otherwise."""

    @property
    def multi_turn(self) -> bool:
        return shape_of(self.task) == "multi-turn"

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.options)


def _single_cue(cue: str) -> str:
    return pp.SINGLE_CUES[cue]


def _multi_p_cue(cue: str) -> str:
    return pp.MULTI_P_CUES[cue]


def _multi_cue(protocol: Protocol) -> Callable[[str], str]:
    return lambda cue: pp.multi_cue(protocol, cue)


@dataclass(frozen=True)
class Form:
    """How one kind of question is asked: its template, cue wording and answer kind."""

    template: str
    cue_text: Callable[[str], str]
    answer: AnswerKind
    staging_disclaimer: str | None = None
    """Multi-turn templates take a {disclaimer} slot: this text for S, a newline otherwise."""


_SINGLE: dict[tuple[Probe, Protocol], Form] = {
    ("J", "pointwise"): Form(pp.SINGLE_J_POINTWISE, _single_cue, "choice"),
    ("J", "pairwise"): Form(pp.SINGLE_J_PAIRWISE, _single_cue, "matching"),
    ("P", "pointwise"): Form(pp.SINGLE_P, _single_cue, "choice"),
    ("O", "pointwise"): Form(pp.SINGLE_O_POINTWISE, _single_cue, "choice"),
    ("O", "pairwise"): Form(pp.SINGLE_O_PAIRWISE, _single_cue, "matching"),
    ("S", "pointwise"): Form(pp.SINGLE_S_POINTWISE, _single_cue, "choice"),
    ("S", "pairwise"): Form(pp.SINGLE_S_PAIRWISE, _single_cue, "matching"),
    ("T", "pointwise"): Form(pp.CONTROL_T_POINTWISE, _single_cue, "choice"),
}
_MULTI: dict[tuple[Probe, Protocol], Form] = {
    ("J", "pointwise"): Form(pp.MULTI_J_POINTWISE, _multi_cue("pointwise"), "choice"),
    ("J", "pairwise"): Form(pp.MULTI_J_PAIRWISE, _multi_cue("pairwise"), "matching"),
    ("P", "pointwise"): Form(pp.MULTI_P, _multi_p_cue, "turns"),
    ("O", "pointwise"): Form(pp.MULTI_OS_POINTWISE, _multi_cue("pointwise"), "choice", "\n"),
    ("O", "pairwise"): Form(pp.MULTI_OS_PAIRWISE, _multi_cue("pairwise"), "matching", "\n"),
    ("S", "pointwise"): Form(
        pp.MULTI_OS_POINTWISE,
        _multi_cue("pointwise"),
        "choice",
        " " + pp.MULTI_PRED_DISCLAIMER,
    ),
    ("S", "pairwise"): Form(
        pp.MULTI_OS_PAIRWISE, _multi_cue("pairwise"), "matching", " " + pp.MULTI_PRED_DISCLAIMER
    ),
    ("T", "pointwise"): Form(pp.CONTROL_T_MULTI_POINTWISE, _multi_cue("pointwise"), "choice"),
}
FORMS: dict[tuple[Shape, Probe, Protocol], Form] = {
    **{("single-turn", p, q): f for (p, q), f in _SINGLE.items()},
    **{("multi-turn", p, q): f for (p, q), f in _MULTI.items()},
}


def form_for(task: str, probe: Probe, protocol: Protocol) -> Form:
    try:
        return FORMS[(shape_of(task), probe, protocol)]
    except KeyError:
        raise ValueError(f"no question form for {shape_of(task)} {probe} {protocol}") from None


@cache
def _annotation_of(dimension: str) -> str:
    return registry.get(dimension).questions.annotation


def annotation_for(item: AuditItem, manifest: DatasetManifest | None = None) -> str:
    """How O and S write a turn's label after its transcript, in the item's dimension's words
    (emotion: 'emotion: {value}', the paper's wording). Without the manifest, an item that names
    no dimension of its own is emotion."""
    name = item_dimension(item, manifest) if manifest is not None else None
    if name is None:
        named = item.meta.get("dimension")
        name = named if isinstance(named, str) and named else DEFAULT_DIMENSION
    return _annotation_of(name)


@cache
def _perception_of(dimension: str) -> str:
    return registry.get(dimension).questions.perception


def item_dimension_name(item: AuditItem, manifest: DatasetManifest | None = None) -> str:
    """The item's dimension: the manifest's (or the item's own), emotion when neither says."""
    if manifest is not None:
        return item_dimension(item, manifest)
    named = item.meta.get("dimension")
    return named if isinstance(named, str) and named else DEFAULT_DIMENSION


def value_words(item: AuditItem) -> dict[str, str]:
    """How a value is shown to a judge when it is not its own name: emphasis items show the
    word each value stresses (`meta["focus_words"]`, in the dimension's value order)."""
    words = item.meta.get("focus_words")
    name = item_dimension_name(item)
    if not isinstance(words, list) or len(words) != 2 or name == DEFAULT_DIMENSION:
        return {}
    values = [v.name for v in registry.get(name).values]
    return dict(zip(values, (str(w) for w in words), strict=False))


def perception_head(dimension: str, cue: str, options: tuple[str, str]) -> str | None:
    """P's instruction in a dimension's own words (its `Questions.perception`, the options
    named with their labels so the JSON answer stays 'R1' or 'R2'); None for emotion, which
    keeps the paper's prompt."""
    if dimension == DEFAULT_DIMENSION:
        return None
    shown = f"R1 ({options[0]}) or R2 ({options[1]})"
    asked = _perception_of(dimension).format(options=shown)
    said = _cue_in_words(dimension, cue) or _single_cue(cue)
    return " ".join(t for t in (asked, said.strip(), pp.JSON_CHOICE) if t)


@cache
def _cue_in_words(dimension: str, cue: str) -> str | None:
    return registry.get(dimension).questions.cues.get(cue)


# The paper's phrases that name emotion in the single-turn O and S prompts: what another
# dimension's prompt says in their place (its `Questions.described`, and its noun).
PAPER_DESCRIBED = 'a description of the speaker\'s emotional tone of voice ("emotion")'
PAPER_DISCLAIMER = "the human's emotions were detected by an audio-language model"


def _multi_in_words(dim: Dimension, head: str) -> str:
    """The paper's multi-turn phrases that name emotion (Listings 4–6: the transition cues and
    P's two labels), said in the dimension's words (`Words.noun`, `Words.attribute`)."""
    noun, attribute = dim.words.noun, dim.words.attribute
    for a, b in (("X", "Y"), ("G", "H")):
        head = head.replace(
            f"the human's tone of voice (not just words) starts at an emotion {a} and "
            f"transitions to a different emotion {b}",
            f"{attribute} (not just the words) starts at one value {a} and changes to the "
            f"other value {b}",
        )
    return head.replace(
        "what might have caused the change in emotion",
        f"what might have caused the change in {noun}",
    ).replace(
        "You will then be given the names of two emotions, E1 and E2, which are the possible "
        "emotions for the *human* turns in C. Your task: decide whether each *human* turn has "
        "emotion E1 and E2.",
        f"You will then be given two values of {noun}, E1 and E2, which are the possible values "
        f"of {attribute} in the *human* turns of C. Your task: decide whether each *human* turn "
        "is E1 or E2.",
    )


@cache
def _in_words(dimension: str, head: str) -> str:
    dim = registry.get(dimension)
    head = _multi_in_words(dim, head)
    if dim.questions.described:
        head = head.replace(PAPER_DESCRIBED, dim.questions.described)
    return head.replace(
        PAPER_DISCLAIMER,
        f"the notes on the user's {dim.words.noun} were made by an audio-language model",
    )


def question_head(form: Form, cue: str, dimension: str | None = None) -> str:
    """The instruction text of a question: the template with its cue (and disclaimer) filled.

    `dimension` (the item's) words the cue and the O / S label description in its own terms
    (`Questions.cues`, `Questions.described`); None or emotion keeps the paper's text byte for
    byte, so emotion's call keys are unchanged."""
    values = {"cue": form.cue_text(cue)}
    if form.staging_disclaimer is not None:
        values["disclaimer"] = form.staging_disclaimer
    if dimension is None or dimension == DEFAULT_DIMENSION:
        return pp.fill(form.template, **values)
    said = _cue_in_words(dimension, cue)
    if said is not None:
        values["cue"] = said
    return _in_words(dimension, pp.fill(form.template, **values))


__all__ = [
    "AnswerKind",
    "ClipRole",
    "Form",
    "FORMS",
    "Probe",
    "Protocol",
    "Question",
    "Shape",
    "TextTurn",
    "annotation_for",
    "form_for",
    "item_dimension_name",
    "perception_head",
    "value_words",
    "question_head",
    "shape_of",
]
