"""`run --dry-run --sequential`: the calls a sequential run is expected to make, and at worst.

The worst case is the full plan: a step that never settles (a judge right at a bar) is asked
to the end. The expected share comes from replaying the stopping rule (stats/sequential_rule)
over simulated audits of the verdict study's judge types (stats/judge_model.TYPES) at the
plan's item count per task, and, when --out already holds answers of a judge (a pilot run
with --limit, or an earlier run), from that judge's own rows: its items are drawn with
replacement up to the plan's size and the rule replayed over them (a bootstrap of the pilot).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

import numpy as np

from paraudit.items.dataset import Dataset
from paraudit.runfolder import RESULTS
from paraudit.runner.plan import PlanSpec
from paraudit.runner.sequential import planned_items
from paraudit.stats.judge_model import TYPES, audit_rows
from paraudit.stats.sequential_rule import replay
from paraudit.stats.statrow import StatRow

SIMULATED = ("perfect", "noise 20 %", "Potemkin", "always first", "deaf to audio", "random")
"""The judge types simulated for the plan's estimate: reliable, at the bar, a component
failure, two habits and a coin (the types' shares span the study's range)."""
DRAWS = 5


def simulated_shares(items: int, task: str, seed: int = 0) -> dict[str, float]:
    """Share of a full audit's rows a sequential run asks, per simulated judge type."""
    shape = "single-turn-emotions" if task == "single-turn-emotions" else "positional-emotion"
    out = {}
    order = [f"i{i}" for i in range(items)]
    for n, name in enumerate(SIMULATED):
        model = TYPES[name][0]
        rows = audit_rows(model, items, np.random.default_rng(seed + n), task=shape)
        out[name] = len(replay(rows, order).rows) / len(rows)
    return out


def pilot_share(rows: list[StatRow], items: int, seed: int = 0) -> float | None:
    """The median share over DRAWS bootstraps of a pilot's items up to `items` items."""
    by_item: dict[str, list[StatRow]] = defaultdict(list)
    for r in rows:
        by_item[r.item_id].append(r)
    ids = sorted(by_item)
    if len(ids) < 2:
        return None
    rng = np.random.default_rng(seed)
    shares = []
    for _ in range(DRAWS):
        drawn = [ids[i] for i in rng.integers(0, len(ids), items)]
        sample = [r._replace(item_id=f"{k}:{r.item_id}") for k, i in enumerate(drawn)
                  for r in by_item[i]]  # fmt: skip
        order = [f"{k}:{i}" for k, i in enumerate(drawn)]
        shares.append(len(replay(sample, order).rows) / len(sample))
    return statistics.median(shares)


def cost_lines(
    ds: Dataset, plan: PlanSpec, per_judge: int, out: Path, judges: list[str]
) -> list[str]:
    """The dry run's lines: expected and worst-case calls per judge beside the full plan's."""
    planned = planned_items(ds, plan)
    total = sum(planned.values()) or 1
    shares: dict[str, float] = {}
    for task, n in planned.items():
        sim = simulated_shares(n, task)
        for name, s in sim.items():
            shares[name] = shares.get(name, 0.0) + s * n / total
    mid = statistics.median(shares.values())
    lo, hi = min(shares.values()), max(shares.values())
    lines = [
        f"sequential calls per judge: expected about {round(mid * per_judge):,} "
        f"({mid:.0%} of the full plan's {per_judge:,}; {lo:.0%}–{hi:.0%} over the simulated "
        f"judge types {', '.join(SIMULATED)}), worst case {per_judge:,} (the full plan)"
    ]
    pilot = _pilot_shares(out, planned)
    for judge, share in ((j, pilot[j]) for j in judges if j in pilot):
        lines.append(
            f"sequential calls {judge}: expected about {round(share * per_judge):,} "
            f"({share:.0%}) from its answers in {out} (its items drawn up to the plan's size)"
        )
    return lines


def _pilot_shares(out: Path, planned: dict[str, int]) -> dict[str, float]:
    if not (out / RESULTS).is_file():
        return {}
    from paraudit.stats.rowgroups import read_groups  # the statistics stack: only with a pilot

    by: dict[str, dict[str, list[StatRow]]] = defaultdict(lambda: defaultdict(list))
    for r in read_groups(out).rows():
        by[r.judge][r.task].append(r)
    got: dict[str, float] = {}
    for judge, tasks in by.items():
        parts = [(pilot_share(rows, planned[t]), planned[t]) for t, rows in tasks.items()
                 if t in planned]  # fmt: skip
        known = [(s, n) for s, n in parts if s is not None]
        if known:
            got[judge] = sum(s * n for s, n in known) / sum(n for _, n in known)
    return got
