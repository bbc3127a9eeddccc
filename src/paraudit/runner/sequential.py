"""`paraudit run --sequential`: ask items in batches and stop each cell once the cascade no
longer needs it (the rule: stats/sequential.py; its decisions: stats/sequential_rule.py).

Items are asked in the runner's seeded asking order (runner.plan.asking_order), `batch` items
at a time. After each batch every task's statistics are updated from the rows asked so far and
the cells whose steps are settled close; a closed cell is not asked on later items. The run
stops when every cell of every task is closed or the plan is exhausted. Every question asked is
a question of the full plan with its usual call key, so a resumed sequential run replays the
same batches from the store (the same rows, the same looks: no call is made twice), and the
same folder run without --sequential asks only the rest of the plan.

RUN/sequential.json records the rule and, per judge × task, when (items asked, look) and why
each cell stopped, which step settled when, and how many items each statistic rests on; the
summary and the verdicts read it (stats/sequential_record.py).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from paraudit.items.dataset import Dataset
from paraudit.items.records import AuditItem
from paraudit.items.twins import split_twin
from paraudit.protocols.instances import Instance
from paraudit.runfolder import ResultRow
from paraudit.runner.asking import Asker
from paraudit.runner.plan import PlanSpec, asked_items, iter_instances
from paraudit.stats.sequential import (
    ALPHA,
    ALPHA_RELIABLE,
    BATCH,
    CURTAIL_SLACK,
    MARGIN,
    MIN_ITEMS,
    Cell,
    bounds,
    item_scores,
    native_cue,
)
from paraudit.stats.sequential_record import RECORD, read
from paraudit.stats.sequential_rule import CellStop, Look, look
from paraudit.stats.statrow import StatRow, stat_row


@dataclass(frozen=True)
class SequentialSpec:
    """How a sequential run looks and stops (recorded in run.json and sequential.json)."""

    batch: int = BATCH
    """Items asked between two looks."""
    min_items: int = MIN_ITEMS
    """Items every asked cell gets before it may stop."""

    def as_dict(self) -> dict[str, Any]:
        # The rule's parts that decide a stop, so a record says which rule wrote it
        # (curtailment and the dependence step's two levels came later than the rest).
        return {"batch": self.batch, "min_items": self.min_items, "margin": MARGIN,
                "alpha": ALPHA, "alpha_futility": ALPHA_RELIABLE,
                "curtail_slack": CURTAIL_SLACK,
                "dependence": {"yes": 1 - ALPHA, "no": 1 - ALPHA_RELIABLE}}  # fmt: skip


@dataclass
class TaskState:
    """One judge × task's sequential state."""

    order: list[str] = field(default_factory=list)
    rows: list[StatRow] = field(default_factory=list)
    cells: set[Cell] = field(default_factory=set)
    stopped: dict[Cell, CellStop] = field(default_factory=dict)
    settled: dict[str, tuple[str, int]] = field(default_factory=dict)
    """step → (outcome, items at the look that settled it)."""
    looks: int = 0
    done: bool = False
    last: Look | None = None

    def asks(self, cell: Cell) -> bool:
        return not self.done and cell not in self.stopped


def batches(items: list[AuditItem], size: int) -> Iterator[list[AuditItem]]:
    """Items in asking order, `size` at a time; an invariance twin stays with its original."""
    batch: list[AuditItem] = []
    for item in items:
        if len(batch) >= size and split_twin(item.id) is None:
            yield batch
            batch = []
        batch.append(item)
    if batch:
        yield batch


class Monitor:
    """One judge's sequential run: which questions to ask and the record of why each stopped."""

    def __init__(
        self, judge: str, spec: SequentialSpec, planned: dict[str, int] | None = None
    ) -> None:
        self.judge = judge
        self.spec = spec
        self.planned = planned or {}
        """Items per task in the full plan (planned_items): the rule's curtailment reads it."""
        self.tasks: dict[str, TaskState] = {}

    def wants(self, inst: Instance) -> bool:
        state = self.tasks.setdefault(inst.task, TaskState())
        cell = (inst.probe, inst.protocol, inst.cue)
        state.cells.add(cell)
        return state.asks(cell)

    def finished(self) -> bool:
        return bool(self.tasks) and all(s.done for s in self.tasks.values())

    def add(self, items: list[AuditItem], rows: list[ResultRow]) -> None:
        """One batch's items and rows; then a look at every task that got new items."""
        touched: set[str] = set()
        for item in items:
            state = self.tasks.setdefault(item.task, TaskState())
            if not state.done and split_twin(item.id) is None and item.id not in state.order:
                state.order.append(item.id)
                touched.add(item.task)
        for row in rows:  # an invariance twin's J is no evidence for the cascade's steps
            if split_twin(row.item_id) is None:
                self.tasks[row.task].rows.append(stat_row(row, self.judge))
        for task in touched:
            self._look(task, self.tasks[task])

    def _look(self, task: str, state: TaskState) -> None:
        cue = native_cue([c for p, proto, c in state.cells if p == "J" and proto == "pointwise"])
        if cue is None:
            return  # no native J: nothing to decide by, the plan is asked in full
        n = len(state.order)
        still = state.cells - set(state.stopped)
        state.looks += 1
        lk = look(bounds(item_scores(state.rows, cue, state.order)), cue, sorted(state.cells),
                  n, still, self.spec.min_items, self.planned.get(task))  # fmt: skip
        state.last = lk
        for cell, why in lk.closed.items():
            state.stopped[cell] = CellStop(n, state.looks, why)
        for step, value in lk.decisions.items():
            if value is not None and step not in state.settled:
                state.settled[step] = (value, n)
        state.done = not lk.open_cells

    def record(self, planned: dict[str, int]) -> dict[str, Any]:
        """This judge's entry of sequential.json; `planned`: items per task in the plan."""
        out: dict[str, Any] = {}
        for task, state in sorted(self.tasks.items()):
            asked = len(state.order)
            early = state.done and asked < planned.get(task, asked)
            cells = {
                "|".join(c): (state.stopped[c].as_dict() if c in state.stopped
                              else {"items": asked, "look": state.looks, "why": "plan exhausted"})
                for c in sorted(state.cells)
            }  # fmt: skip
            out[task] = {
                "stopped_early": early,
                "why": "every step the diagnosis reads is settled" if early else "plan exhausted",
                "items_asked": asked,
                "items_planned": planned.get(task, asked),
                "looks": state.looks,
                "steps": {s: {"outcome": v, "items": n} for s, (v, n) in state.settled.items()},
                "cells": cells,
            }
        return out


async def ask_sequentially(
    ds: Dataset, plan: PlanSpec, asker: Asker, monitor: Monitor
) -> AsyncIterator[tuple[Instance, ResultRow]]:
    """(instance, row) for the questions a sequential run asks, batch by batch.

    The progress total starts at the full plan (the worst case) and drops by every question
    a closed cell or the early stop leaves unasked, so the bar ends full either way."""
    items = asked_items(ds, plan, asking=True)
    parts = list(batches(items, monitor.spec.batch))
    for k, batch in enumerate(parts):
        part = replace(ds, items=tuple(batch))
        planned = list(iter_instances(part, plan, asking=True))
        wanted = [i for i in planned if monitor.wants(i)]
        _unplan(asker, len(planned) - len(wanted))
        got: list[ResultRow] = []
        async for inst, row in asker.rows(wanted):
            got.append(row)
            yield inst, row
        monitor.add(batch, got)
        if monitor.finished():
            rest = replace(ds, items=tuple(i for b in parts[k + 1 :] for i in b))
            _unplan(asker, sum(1 for _ in iter_instances(rest, plan, asking=True)))
            return


def _unplan(asker: Asker, n: int) -> None:
    """Take `n` questions the run will not ask off the progress total."""
    if n:
        asker.progress.total = max(asker.progress.total - n, asker.progress.done)
        if asker.on_progress:
            asker.on_progress(asker.progress)


def planned_items(ds: Dataset, plan: PlanSpec) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in asked_items(ds, plan):
        if split_twin(item.id) is None:
            counts[item.task] = counts.get(item.task, 0) + 1
    return counts


def write_record(out: Path, spec: SequentialSpec, judges: dict[str, dict[str, Any]]) -> None:
    data = {"rule": spec.as_dict(), "judges": judges}
    (out / RECORD).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def sequential_lines(out: Path) -> list[str]:
    """One line per judge × task of a sequential run: where it stopped and why."""
    record = read(out)
    lines = []
    for judge, tasks in (record or {}).get("judges", {}).items():
        for task, t in tasks.items():
            how = ("stopped early: every step the diagnosis reads is settled"
                   if t["stopped_early"] else "asked to the end of the plan")  # fmt: skip
            lines.append(f"sequential {judge} {task}: {t['items_asked']} of "
                         f"{t['items_planned']} items, {how}")  # fmt: skip
    return lines
