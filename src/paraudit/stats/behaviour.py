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

from paraudit.stats.units import Row, branch_of, chosen_branch

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


def j_rates(rows: list[Row], text_only: dict[tuple[str, str], int]) -> tuple[Tally, ...]:
    """Per item, over the pointwise J rows: (audio sensitivity, pair accuracy, choice order
    consistency, J–T agreement), in one pass that finds each row's chosen branch once (the
    summary asks all four per cue; three passes each re-reading every row were most of its
    rates' time). `text_only`: `text_only_choices` of the transcript control's rows ({} for
    none)."""
    pair: dict[tuple[str, str, str], dict[int, tuple[Row, int | None]]] = defaultdict(dict)
    by_order: dict[tuple[str, str, int], dict[str, int]] = defaultdict(dict)
    agree = _tally()
    for r in rows:
        # The fields by position (a StatRow is a tuple; statrow.FIELDS): this loop reads
        # every J row of a report; `chosen_branch` inline, as it is the common case.
        _, _, item, b, probe, proto, cue, order, pred, _, status, _ = r[:12]
        if probe != "J" or proto != "pointwise" or b is None:
            continue
        if status == "error":
            continue  # no answer: in no pair and no choice
        c = None
        if status == "ok" and (pred == "R1" or pred == "R2"):
            first = 0 if order == "ab" else 1
            c = first if pred == "R1" else 1 - first
        pair[(item, cue, order)][b] = (r, c)
        if c is not None:
            by_order[(item, cue, b)][order] = c
            tc = text_only.get((item, order))
            if tc is not None:
                t = agree[item]
                t[0] += c == tc
                t[1] += 1
    flips, pairs = _tally(), _tally()
    for (item, _, _), both in pair.items():
        if len(both) != 2:
            continue
        (r0, c0), (r1, c1) = both[0], both[1]
        pairs[item][0] += bool(r0.correct) and bool(r1.correct)
        pairs[item][1] += 1
        if c0 is not None and c1 is not None:
            flips[item][0] += c0 != c1
            flips[item][1] += 1
    consistency = _tally()
    for (item, _, _), orders in by_order.items():
        if "ab" in orders and "ba" in orders:
            consistency[item][0] += orders["ab"] == orders["ba"]
            consistency[item][1] += 1
    return flips, pairs, consistency, agree


def audio_and_pairs(rows: list[Row]) -> tuple[Tally, Tally]:
    """(audio sensitivity, pair accuracy) per item, over pointwise J branch pairs."""
    flips, pairs, _, _ = j_rates(rows, {})
    return flips, pairs


def choice_order_consistency(rows: list[Row]) -> Tally:
    """Per item: pointwise J questions asked in both orders that pick the same response."""
    return j_rates(rows, {})[2]


def text_only_choices(rows: list[Row]) -> dict[tuple[str, str], int]:
    """(item, order) → the branch T's text-only choice picked (its first answer there)."""
    out: dict[tuple[str, str], int] = {}
    for r in _pointwise(rows, "T"):
        c = chosen_branch(r)
        if c is not None:
            out.setdefault((r.item_id, r.order), c)
    return out


def j_t_agreement(t_rows: list[Row], j_rows: list[Row]) -> Tally:
    """Per item: pointwise J choices equal to T's text-only choice for the same item and order."""
    return j_rates(j_rows, text_only_choices(t_rows))[3]


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
