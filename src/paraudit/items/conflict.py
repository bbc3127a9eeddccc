"""Word–tone conflict items as a dataset declares them (issue 32; built and checked by
qc/conflict.py): `meta.conflict = {"words": value, "voice": value, "words_label": label, …}`.

The words of a single-turn item carry one of its two values (`words`); the branch voiced with
that value is the item's *congruent* branch, the one voiced with the other is its *conflict*
branch, and the right response of each follows its voice. Both branches share the words and the
responses, so comparing the two within an item isolates the pull of the words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paraudit.dimensions.emotion import VALENCE
from paraudit.errors import ParauditError
from paraudit.items.records import AuditItem

FIELD = "meta.conflict"
"""The field validate names a conflict item's problem under."""


class ConflictError(ParauditError):
    """Conflict items asked for (a build's --conflict, a run over declared ones) that are not:
    a usage mistake, exit 2."""

    exit_code = 2


def conflict_sides(meta: Mapping[str, Any], values: tuple[str, str]) -> tuple[str, str] | None:
    """Per branch, 'congruent' or 'conflict', for an item declaring `meta.conflict` whose words'
    value is one of its two branch values `values`; None for any other item."""
    c = meta.get("conflict")
    if not isinstance(c, Mapping) or values[0] == values[1] or c.get("words") not in values:
        return None
    first = "congruent" if values[0] == c["words"] else "conflict"
    return first, "conflict" if first == "congruent" else "congruent"


def conflict_problem(item: AuditItem, valence: Mapping[str, str] = VALENCE) -> str | None:
    """Why a declared conflict item is not one (None when it is, or declares none)."""
    c = item.meta.get("conflict")
    if c is None:
        return None
    if not isinstance(c, Mapping):
        return "meta.conflict must be an object naming the words' value ('words')"
    if len(item.context) != 1:
        return "conflict items are single-turn: their one sentence carries the words' value"
    values = (item.branches[0].emotions[0], item.branches[1].emotions[0])
    if conflict_sides(item.meta, values) is None:
        return (
            f"meta.conflict.words {c.get('words')!r} must be one of the branches' two "
            f"different values ({values[0]}, {values[1]})"
        )
    voice = values[1] if values[0] == c["words"] else values[0]
    label = c.get("words_label")
    # A lexicon's label is the value the words carry (qc/conflict.check_words).
    if label is not None and (valence.get(voice) == label or label == voice):
        return (
            f"the words read {label} and the conflict voice '{voice}' is {label} too: words "
            "and voice agree, so it is not a conflict item (drop meta.conflict or rebuild it)"
        )
    return None


__all__ = ["FIELD", "ConflictError", "conflict_problem", "conflict_sides"]
