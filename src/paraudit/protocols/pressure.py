"""Pressure from the text (issue 32): the misleading cue.

The paper's cues only ever help (soft, hard, transition). The misleading cue states the *other*
branch's value ("the user sounds calm" on the angry branch), worded like the hard cue, so a judge
that follows the text against the audio picks the other branch's response. It exists only where
an item can state that value: each branch's human turns carry one value and the two differ
(single-turn items; conversations with one mood per branch). Positional items change value
within a branch, so no one sentence names "the other branch's value" and they get no misleading
question. Only pointwise J is asked under it: that is the question whose answer the cue pulls.
"""

from __future__ import annotations

from functools import cache

from paraudit.dimensions import registry
from paraudit.items.records import DEFAULT_DIMENSION, AuditItem
from paraudit.protocols.questions import value_words

MISLEADING = "misleading"


def branch_value(item: AuditItem, branch: int) -> str | None:
    """The one value branch `branch`'s human turns carry, or None when they carry several."""
    values = {item.branches[branch].emotions[i] for i in item.human_turns()}
    return next(iter(values)) if len(values) == 1 else None


def misleading_value(item: AuditItem, branch: int) -> str | None:
    """The value the misleading cue states for `branch`'s question: the other branch's value,
    or None when the item cannot state it (see the module docstring)."""
    own, other = branch_value(item, branch), branch_value(item, 1 - branch)
    return other if own is not None and other is not None and own != other else None


def can_mislead(item: AuditItem) -> bool:
    return misleading_value(item, 0) is not None


@cache
def _wording(dimension: str) -> str:
    return registry.get(dimension).questions.misleading


def misleading_cue(item: AuditItem, branch: int, dimension: str = DEFAULT_DIMENSION) -> str:
    """The cue sentence for `branch`'s pointwise J question, in `dimension`'s words."""
    value = misleading_value(item, branch)
    if value is None:
        raise ValueError(f"item {item.id} cannot state the other branch's value")
    # As P offers it: an emphasis item states the word the other branch stresses.
    shown = value_words(item).get(value, value)
    return _wording(dimension).replace("{value}", shown)


__all__ = ["MISLEADING", "branch_value", "can_mislead", "misleading_cue", "misleading_value"]
