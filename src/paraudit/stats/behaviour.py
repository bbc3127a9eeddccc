"""Beyond the paper: does the choice follow the audio, and does it follow the position?"""

from __future__ import annotations

from collections import defaultdict
from typing import Any


def chosen_branch(r: dict[str, Any]) -> int | None:
    """Which branch's response a parsed pointwise choice picked (order-independent)."""
    if r["status"] != "ok" or r["pred"] not in ("R1", "R2"):
        return None
    first = 0 if r["order"] == "ab" else 1
    return first if r["pred"] == "R1" else 1 - first


def _pointwise_j(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["probe"] == "J" and r["protocol"] == "pointwise"]


def audio_sensitivity(rows: list[dict[str, Any]]) -> tuple[int, int]:
    """(flips, pairs): pointwise J pairs (same item, cue, order) whose choice changes when only
    the audio changes. A judge that ignores audio never flips."""
    pairs: dict[tuple[str, str, str], dict[int, int | None]] = defaultdict(dict)
    for r in _pointwise_j(rows):
        pairs[(r["item_id"], r["cue"], r["order"])][int(r["branch"])] = chosen_branch(r)
    both = [p for p in pairs.values() if p.get(0) is not None and p.get(1) is not None]
    return sum(p[0] != p[1] for p in both), len(both)


def pair_accuracy(rows: list[dict[str, Any]]) -> tuple[int, int]:
    """(pairs with both branches right, pairs) over pointwise J."""
    pairs: dict[tuple[str, str, str], dict[int, bool]] = defaultdict(dict)
    for r in _pointwise_j(rows):
        pairs[(r["item_id"], r["cue"], r["order"])][int(r["branch"])] = bool(r["correct"])
    full = [p for p in pairs.values() if len(p) == 2]
    return sum(p[0] and p[1] for p in full), len(full)


def position_bias(rows: list[dict[str, Any]]) -> tuple[int, int]:
    """(first-option picks, parsed choices) over every single-label answer (R1/R2)."""
    picks = [r["pred"] for r in rows if r["status"] == "ok" and r["pred"] in ("R1", "R2")]
    return sum(p == "R1" for p in picks), len(picks)


def order_consistency(rows: list[dict[str, Any]]) -> tuple[int, int]:
    """(consistent, pairs): the same pointwise J question in both orders picks the same response."""
    pairs: dict[tuple[str, str, int], dict[str, int | None]] = defaultdict(dict)
    for r in _pointwise_j(rows):
        pairs[(r["item_id"], r["cue"], int(r["branch"]))][r["order"]] = chosen_branch(r)
    both = [p for p in pairs.values() if p.get("ab") is not None and p.get("ba") is not None]
    return sum(p["ab"] == p["ba"] for p in both), len(both)
