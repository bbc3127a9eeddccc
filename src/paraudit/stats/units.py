"""What one result row says, read the same way by every statistic.

A row's *unit* is the question it asks regardless of presentation order: (item, probe,
protocol, cue, branch). The orders that ran for a unit are its response order and, for
pairwise rows, its context order (`context_order`, None or absent in older runs). A unit is
*order-consistently* correct only when it is correct in every order that ran.

A call that failed (`error`) is no answer: it is counted apart and left out of every
proportion. Unparsed and refused replies are answers, and wrong ones (strict scoring).
"""

from __future__ import annotations

from paraudit.stats.statrow import StatRow

Row = StatRow
"""A row as every statistic reads it (stats/statrow.py)."""
FIRST_LABELS = ("R1", "E1")


def answered(r: Row) -> bool:
    """The judge replied (ok, unparsed or refused): the row counts in a proportion."""
    return r.status != "error"


def branch_of(r: Row) -> int:
    """The branch of a pointwise row (callers pass pointwise rows only; a pairwise row has
    none, and asking for it is a bug, as `int(None)` was before rows were typed)."""
    if r.branch is None:
        raise TypeError(f"row {r.item_id} {r.probe} {r.protocol} has no branch")
    return r.branch


def context_order(r: Row) -> str | None:
    value = r.context_order
    return value if isinstance(value, str) else None


def presentation(r: Row) -> tuple[str, str | None]:
    """(response order, context order): the orders a unit is asked in."""
    return (r.order, context_order(r))


def chance_level(r: Row) -> float:
    """What the best *deaf* guesser scores on this row, given the options the prompt offers.

    Both branches of an item put the same words to the judge and differ only in the audio and
    in the right answer, and the two branches' right answers always differ (validation). A
    judge that does not hear gives one answer to both, so it is right on at most one of the
    two: ½ — for a choice, a matching, and a whole perception trajectory alike (a deaf judge
    that follows the structure the prompt describes, "X first, Y after", scores ½ there, not
    ½ per human turn). Per-turn chance is computed per item in the summary.
    """
    return 0.5


def first_picks(r: Row) -> tuple[float, float] | None:
    """(first-option picks, choices) of a parsed answer, or None when it has none.

    A choice picks R1 or R2; a matching is "first" when CA gets R1; a perception trajectory
    contributes one choice per human turn (E1 or E2).
    """
    if r.status != "ok":
        return None
    pred = r.pred
    if isinstance(pred, str):
        return (1.0, 1.0) if pred in FIRST_LABELS else (0.0, 1.0)
    if isinstance(pred, dict) and pred:
        if "CA" in pred:
            return (1.0 if pred["CA"] == "R1" else 0.0, 1.0)
        labels = list(pred.values())
        return (float(sum(v in FIRST_LABELS for v in labels)), float(len(labels)))
    return None


def chosen_branch(r: Row) -> int | None:
    """Which branch's response a parsed pointwise choice picked (independent of the order)."""
    if r.status != "ok" or r.pred not in ("R1", "R2"):
        return None
    first = 0 if r.order == "ab" else 1
    return first if r.pred == "R1" else 1 - first


def turn_hits(r: Row) -> tuple[float, float] | None:
    """(human turns right, human turns) of a perception-trajectory row (per-turn accuracy);
    None for other rows. Unparsed and refused answers get every turn wrong."""
    gold = r.gold
    if not isinstance(gold, dict) or "CA" in gold or not gold:
        return None
    pred = r.pred if r.status == "ok" and isinstance(r.pred, dict) else {}
    return (float(sum(pred.get(k) == v for k, v in gold.items())), float(len(gold)))
