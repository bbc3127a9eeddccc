"""Invariance twins: an item re-realised with one irrelevant change (builders/invariance.py).

A twin's id is `ORIGINAL~inv-VARIANT` (e.g. `st-001~inv-voice-up`) and its meta holds
`invariance = {twin_of, change, variant, params}`. Statistics read result rows only, so the id
carries what they need: which original a twin answers for and which change it made. Its gold is
the original's (same words, same emotions, same responses): the twin asks "same choice as on
the original?", which the flip rate (stats/invariance.py) measures.
"""

from __future__ import annotations

from paraudit.items.records import AuditItem

MARK = "~inv-"


def twin_id(original: str, variant: str) -> str:
    return f"{original}{MARK}{variant}"


def split_twin(item_id: str) -> tuple[str, str] | None:
    """(original id, variant name) of a twin's id; None for any other item."""
    original, mark, variant = item_id.rpartition(MARK)
    return (original, variant) if mark and original and variant else None


def is_twin(item: AuditItem) -> bool:
    return split_twin(item.id) is not None


def change_of(variant: str) -> str:
    """'voice-up' → 'voice' (the property a variant changes)."""
    return variant.split("-", 1)[0]
