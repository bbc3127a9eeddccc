"""The offline starter texts of the new dimensions (`compose/starters/NAME.jsonl`).

Each line is one single-turn item: the user's words (identical in both branches) and, per value
of the dimension, a response that is right for that value and wrong for the other. Hand-written
for this project. Emphasis items also carry `focus`: the 0-based indices of the two words that
may carry the stress (its first value stresses the first index, its second the second), so
the words stay identical and only the stress moves.

`NAME.conflict.jsonl` (issue 32, `build starter --dimension NAME --conflict`): word–tone
conflict texts, each naming the value its words carry (`words`, read by the dimension's
`words_carry` lexicon and checked by qc/conflict.py at build time); as many carry each value,
alternating, so that no voice stands for "conflict" and the first N are balanced too.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from paraudit.dimensions.base import Dimension
from paraudit.errors import ParauditError


class StarterText(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    id: str
    text: str
    """The user's words, identical for every value."""
    responses: dict[str, str]
    """Per value name: the response right for that value only."""
    focus: tuple[int, int] | None = None
    """Emphasis only: the word indices stressed by the first and the second value."""
    words: str | None = None
    """Conflict texts only: the value the words carry (the other value's voice contradicts
    them)."""


def starter_texts(dimension: Dimension) -> tuple[StarterText, ...]:
    """The starter texts of `dimension`, checked against its values. A text with a filler
    ("um", "uh") is refused for every dimension: the filler marks hesitation in the words, so a
    transcript-only judge could read the value off the text."""
    return _texts(dimension, f"{dimension.name}.jsonl")


def conflict_texts(dimension: Dimension) -> tuple[StarterText, ...]:
    """The word–tone conflict texts of `dimension` (`NAME.conflict.jsonl`), checked as
    `starter_texts` and each naming one of its values as the words'."""
    texts = _texts(dimension, f"{dimension.name}.conflict.jsonl")
    names = [v.name for v in dimension.values]
    for t in texts:
        if t.words not in names:
            raise ParauditError(
                f"{dimension.name}.conflict.jsonl {t.id}: words {t.words!r} must be one of "
                f"{', '.join(names)}"
            )
    return texts


def _texts(dimension: Dimension, name: str) -> tuple[StarterText, ...]:
    from paraudit.dimensions.hesitation import word_changing

    resource = files("paraudit.compose.starters").joinpath(name)
    if not resource.is_file():
        what = "conflict texts" if name.endswith(".conflict.jsonl") else "starter texts"
        raise ParauditError(f"no offline {what} for dimension {dimension.name!r}")
    names = {v.name for v in dimension.values}
    out: list[StarterText] = []
    for n, line in enumerate(resource.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name} line {n}"
        try:
            item = StarterText.model_validate(json.loads(line))
        except (ValueError, ValidationError) as e:
            raise ParauditError(f"{where}: not a starter text ({str(e).splitlines()[0]})") from None
        if set(item.responses) != names:
            raise ParauditError(
                f"{where}: responses for {sorted(item.responses)}, needs {sorted(names)}"
            )
        if len(set(item.responses.values())) != len(names):
            raise ParauditError(f"{where}: two values share one response")
        if (why := word_changing(item.text)) is not None:
            raise ParauditError(f"{where}: {why}")
        words = item.text.split()
        if item.focus is not None and (
            item.focus[0] == item.focus[1] or not all(0 <= i < len(words) for i in item.focus)
        ):
            raise ParauditError(f"{where}: focus {item.focus} is not two words of the text")
        out.append(item)
    return tuple(out)


class PositionalTurn(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    speaker: Literal["human", "assistant"]
    text: str


class PositionalBranchText(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    shift: int
    """0-based index among the human turns where the user's delivery changes to the marked
    value (the dimension's second) and stays there; every human turn before it has the
    reference value."""
    response: str
    """The final reply right when the change comes at that turn: it takes up what the user
    said there, and is wrong for the other branch's turn."""


class PositionalText(BaseModel):
    """One positional conversation (`compose/starters/NAME-positional.jsonl`): the same words in
    both branches; only the human turn at which the delivery changes differs, and the right
    final reply is the one about what the user said at that turn."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    id: str
    turns: tuple[PositionalTurn, ...]
    branches: tuple[PositionalBranchText, PositionalBranchText]

    def human_turns(self) -> list[int]:
        return [i for i, t in enumerate(self.turns) if t.speaker == "human"]


def positional_texts(dimension: Dimension) -> tuple[PositionalText, ...]:
    """The positional conversations of `dimension` (none when it has no such file: emphasis
    and sarcasm, whose contrast lives inside one sentence — `Dimension.item_kinds`)."""
    from paraudit.dimensions.hesitation import word_changing

    resource = files("paraudit.compose.starters").joinpath(f"{dimension.name}-positional.jsonl")
    if not resource.is_file():
        return ()
    out: list[PositionalText] = []
    for n, line in enumerate(resource.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{dimension.name}-positional.jsonl line {n}"
        try:
            item = PositionalText.model_validate(json.loads(line))
        except (ValueError, ValidationError) as e:
            raise ParauditError(
                f"{where}: not a positional text ({str(e).splitlines()[0]})"
            ) from None
        speakers = [t.speaker for t in item.turns]
        if (
            speakers[0] != "human"
            or speakers[-1] != "human"
            or any(a == b for a, b in zip(speakers, speakers[1:], strict=False))
        ):
            raise ParauditError(f"{where}: turns must alternate, human first and last")
        humans = len(item.human_turns())
        shifts = [b.shift for b in item.branches]
        if shifts[0] == shifts[1] or not all(1 <= s < humans for s in shifts):
            raise ParauditError(
                f"{where}: shifts {shifts} must be two different human turns after the first "
                f"(1–{humans - 1})"
            )
        if item.branches[0].response == item.branches[1].response:
            raise ParauditError(f"{where}: both branches share one response")
        for t in item.turns:
            if t.speaker == "human" and (why := word_changing(t.text)) is not None:
                raise ParauditError(f"{where}: {why}")
        out.append(item)
    return tuple(out)
