"""Beyond the paper: does the choice follow the audio, the position, or the words alone?

Every function here returns per-item tallies (item → [numerator, denominator]) for the rows of
ONE judge × task, so that the summary resamples whole items for each rate's interval.

- audio sensitivity: pointwise J pairs (same item, cue, order; the two branches) whose chosen
  response changes when only the audio changes. A judge deaf to audio never flips.
- pair accuracy: both branches of such a pair right.
- choice order consistency: the same pointwise J question in both response orders picks the
  same response.
- transcript control T (both branches get the same text-only prompt, so T has no gold):
  its order consistency (same response in both orders), its preference for branch 0's response
  (a response-balance check), and J–T agreement (the native choice equals the text-only choice
  for the same item and order: ½ for a judge that follows the audio, 1 for one that repeats
  its text-only preference).
The position share (`units.first_picks`) and per-turn perception (`units.turn_hits`) are
tallied in the summary's single pass over the rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from paraudit.stats.units import Row, answered, branch_of, chosen_branch

Tally = dict[str, list[float]]
"""item → [numerator, denominator]"""


def new_tally() -> Tally:
    return defaultdict(lambda: [0.0, 0.0])


_tally = new_tally


def merge(into: Tally, other: Tally) -> None:
    for item, (num, den) in other.items():
        t = into[item]
        t[0] += num
        t[1] += den


def _pointwise(rows: Iterable[Row], probe: str) -> list[Row]:
    return [
        r for r in rows if r.probe == probe and r.protocol == "pointwise" and r.branch is not None
    ]


def audio_and_pairs(rows: list[Row]) -> tuple[Tally, Tally]:
    """(audio sensitivity, pair accuracy) per item, over pointwise J branch pairs."""
    by: dict[tuple[str, str, str], dict[int, Row]] = defaultdict(dict)
    for r in _pointwise(rows, "J"):
        if answered(r):
            by[(r.item_id, r.cue, r.order)][branch_of(r)] = r
    flips, pairs = _tally(), _tally()
    for (item, _, _), both in by.items():
        if len(both) != 2:
            continue
        pairs[item][0] += bool(both[0].correct) and bool(both[1].correct)
        pairs[item][1] += 1
        c0, c1 = chosen_branch(both[0]), chosen_branch(both[1])
        if c0 is not None and c1 is not None:
            flips[item][0] += c0 != c1
            flips[item][1] += 1
    return flips, pairs


def choice_order_consistency(rows: list[Row]) -> Tally:
    """Per item: pointwise J questions asked in both orders that pick the same response."""
    by: dict[tuple[str, str, int], dict[str, int]] = defaultdict(dict)
    for r in _pointwise(rows, "J"):
        c = chosen_branch(r)
        if c is not None:
            by[(r.item_id, r.cue, branch_of(r))][r.order] = c
    out = _tally()
    for (item, _, _), orders in by.items():
        if "ab" in orders and "ba" in orders:
            out[item][0] += orders["ab"] == orders["ba"]
            out[item][1] += 1
    return out


def _text_only(rows: list[Row]) -> dict[tuple[str, str], int]:
    """(item, order) → the branch T's text-only choice picked (its first answer there)."""
    out: dict[tuple[str, str], int] = {}
    for r in _pointwise(rows, "T"):
        c = chosen_branch(r)
        if c is not None:
            out.setdefault((r.item_id, r.order), c)
    return out


def j_t_agreement(t_rows: list[Row], j_rows: list[Row]) -> Tally:
    """Per item: pointwise J choices equal to T's text-only choice for the same item and order."""
    text_only = _text_only(t_rows)
    agree = _tally()
    for r in _pointwise(j_rows, "J"):
        c = chosen_branch(r)
        tc = text_only.get((r.item_id, r.order))
        if c is not None and tc is not None:
            agree[r.item_id][0] += c == tc
            agree[r.item_id][1] += 1
    return agree


def transcript_control(rows: list[Row]) -> dict[str, Tally]:
    """T's order consistency and branch-0 preference, and J–T agreement, per item."""
    t: dict[tuple[str, int], dict[str, int]] = defaultdict(dict)
    for r in _pointwise(rows, "T"):
        c = chosen_branch(r)
        if c is not None:
            t[(r.item_id, branch_of(r))][r.order] = c
    consistent, prefers_0 = _tally(), _tally()
    for (item, _), orders in t.items():
        if "ab" in orders and "ba" in orders:
            consistent[item][0] += orders["ab"] == orders["ba"]
            consistent[item][1] += 1
        for c in orders.values():
            prefers_0[item][0] += c == 0
            prefers_0[item][1] += 1
    return {
        "order_consistency": consistent,
        "prefers_branch_0": prefers_0,
        "j_t_agreement": j_t_agreement(rows, rows),
    }
