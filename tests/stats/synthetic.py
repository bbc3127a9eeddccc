"""Result rows written by hand for the statistics tests (the keys of INTERFACES.md)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from paraudit.runfolder.rows import ResultRow
from paraudit.stats.statrow import StatRow, stat_row

Row = StatRow


def gold_for(probe: str, protocol: str, branch: int | None, order: str, ctx: str | None) -> Any:
    if protocol == "pairwise":
        same = order == (ctx or "ab")
        return {"CA": "R1", "CB": "R2"} if same else {"CA": "R2", "CB": "R1"}
    return "R1" if (branch == 0) == (order == "ab") else "R2"


def other(pred: Any) -> Any:
    if isinstance(pred, dict):
        return {k: {"R1": "R2", "R2": "R1", "E1": "E2", "E2": "E1"}[v] for k, v in pred.items()}
    return {"R1": "R2", "R2": "R1", "E1": "E2", "E2": "E1"}[pred]


def row(
    *,
    judge: str = "j",
    task: str = "single-turn-emotions",
    item: str = "i0",
    probe: str = "J",
    protocol: str = "pointwise",
    cue: str = "none",
    branch: int | None = 0,
    order: str = "ab",
    context_order: str | None = None,
    correct: bool = True,
    status: str = "ok",
    pred: Any = None,
    gold: Any = None,
    with_context_order: bool = True,
) -> Row:
    """One row; gold and pred follow from the presentation and `correct` unless given."""
    if protocol == "pairwise":
        branch = None
    if gold is None:
        gold = gold_for(probe, protocol, branch, order, context_order)
    if status != "ok":
        pred, correct = None, False
    elif pred is None:
        pred = gold if correct else other(gold)
    else:
        correct = pred == gold
    return StatRow(
        judge=judge,
        task=task,
        item_id=item,
        branch=branch,
        probe=probe,
        protocol=protocol,
        cue=cue,
        order=order,
        pred=pred,
        gold=gold,
        status=status,
        correct=correct,
        # An older run's row has no context_order key: it reads as None.
        context_order=context_order if with_context_order else None,
    )


def stat_rows(rows: Iterable[Mapping[str, Any]]) -> list[Row]:
    """Rows as the runner returns them (results.jsonl's dicts), as the statistics read them."""
    return [stat_row(ResultRow.model_validate(r)) for r in rows]


def result_line(r: Row) -> dict[str, Any]:
    """The row as results.jsonl holds it (a ResultRow's fields)."""
    line: dict[str, Any] = r._asdict()
    # A row as the runner writes it keeps the raw reply (None when the call failed).
    line["raw"] = None if r.status == "error" else json.dumps({"pred": r.pred})
    return line


def orders(protocol: str) -> list[tuple[str, str | None]]:
    """The presentations `--orders both` runs: 2 response orders, × 2 context orders pairwise."""
    if protocol == "pairwise":
        return [(o, c) for o in ("ab", "ba") for c in ("ab", "ba")]
    return [("ab", None), ("ba", None)]
