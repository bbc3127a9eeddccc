"""The offline starter source data, written for this project (not copied from any corpus).

single_turn.jsonl: one user sentence whose words fit both emotions of its pair, and for each
emotion an assistant response that fits it without naming it. Pairs follow the paper's four
(anger/sadness, surprise/sadness, surprise/neutral, anger/surprise) in roughly its proportions.

single_turn_extended.jsonl: 112 more such sentences (ids stx-…), built only on request
(`build_starter(extended=True)`): a sequential audit needs more items than 48 to stop early.

conflict.jsonl: word–tone conflict sentences in both directions, so that no voice stands for
"conflict": good news ("Great, they gave me the lead role") whose words read positive, said
with surprise (congruent) or sadly / angrily (the conflict voice), and as many bad news ("I
failed my driving test again today") or grievances ("The airline lost my luggage") whose words
read negative, said sadly / angrily (congruent) or with surprise (the conflict voice). Each
branch's response follows its voice. The lines interleave the four kinds (pair × which value
the words carry), so the first N of `--limit N` are balanced too. Built only on request
(`build starter --conflict`).

positional.jsonl: task-oriented dialogues where the assistant fails twice; in one branch the
user's mood shifts after the first failure, in the other after the second, and each branch's
final response addresses the cause of its own shift.

Both files list the realisations in a fixed order (the first emotion of a pair, the earlier
shift); which becomes branch 0 is decided at build time by a balanced seeded coin
(`paraudit.compose.starter.starter_swaps`), never by this order.
"""

from __future__ import annotations

from importlib.resources import files

from pydantic import BaseModel, ConfigDict, Field

from paraudit.items.records import Turn


class _Src(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class SourceResponse(_Src):
    text: str
    """The response words."""
    emotion: str
    """Tone to render it with."""


class SingleTurnSource(_Src):
    id: str
    text: str
    """The user sentence, identical in both branches."""
    emotions: tuple[str, str]
    """The two emotions the sentence is spoken with."""
    responses: tuple[SourceResponse, SourceResponse]
    """The right response for each emotion, in the same order."""


class ConflictSource(SingleTurnSource):
    """A word–tone conflict sentence (conflict.jsonl): its words carry `words`, one of its two
    emotions (good news read positive, bad news read negative); the other one's voice
    contradicts them."""

    words: str
    """The emotion the words carry (the congruent branch's)."""


class PositionalBranchSource(_Src):
    shift_human_turn: int = Field(ge=1)
    """0-based index among the human turns at which the mood shifts from `before` to `after`."""
    cause: str
    """The assistant failure that caused the shift."""
    response: str
    """Final response addressing that cause."""
    response_emotion: str = "empathetic"


class PositionalSource(_Src):
    id: str
    domain: str
    before: str
    """The human's emotion X before the shift."""
    after: str
    """The human's emotion Y from the shift on."""
    turns: tuple[Turn, ...]
    branches: tuple[PositionalBranchSource, PositionalBranchSource]


def _lines(name: str) -> list[str]:
    text = files("paraudit.sources").joinpath("data", name).read_text(encoding="utf-8")
    return [ln for ln in text.splitlines() if ln.strip()]


def single_turn_sources() -> list[SingleTurnSource]:
    return [SingleTurnSource.model_validate_json(ln) for ln in _lines("single_turn.jsonl")]


def extended_single_turn_sources() -> list[SingleTurnSource]:
    """single_turn_extended.jsonl: 112 more sentences written to the same rules, in the same
    four pairs (32/32/32/16 against the starter's 13/13/13/9; `build_starter(extended=True)`).
    The starter's 48 are too few for a sequential audit to stop early at its guarantees
    (docs/how-to/sequential.md): its steps settle after 50-100 items, or never for a judge
    at a bar."""
    return [SingleTurnSource.model_validate_json(ln) for ln in _lines("single_turn_extended.jsonl")]


def conflict_sources() -> list[ConflictSource]:
    """The starter's word–tone conflict sentences (`build starter --conflict`)."""
    return [ConflictSource.model_validate_json(ln) for ln in _lines("conflict.jsonl")]


def positional_sources() -> list[PositionalSource]:
    return [PositionalSource.model_validate_json(ln) for ln in _lines("positional.jsonl")]
