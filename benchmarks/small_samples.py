"""The verdict on few items: how often a coin is given a skill or a habit, and how often a
real habit is still named, with the decision intervals widened on few items (the expanded
percentile, `stats/itemboot.expanded_level`) against the plain 99 % percentile interval,
both measured in the same run.

Run: PYTHONPATH=src python benchmarks/small_samples.py [--audits 100] [--sizes 12,16,48]
     [--judges A,B]

The quick demo asks 16 single-turn items and 12 dialogues; on so few items the percentile
bootstrap is too narrow (it uses the plug-in spread and a normal tail). Each cell simulates
`--audits` audits of a scripted judge (`stats/judge_model.py`: rows of a default audit, the
items' attributes for the subgroup scan) and summarises them as `paraudit report` does, with
fewer draws to keep it to minutes (1,000 replicates and 500 permutations; the report draws
10,000 replicates and 1,000 permutations); a verdict is right as in `benchmarks/verdicts.py`
(`judge_model.judged_right`). The coins: `random` (single-turn, the study's type) and the same
coin on dialogues (not one of the study's types); the habits: `order-dependent`, `hears only
the last turn` and `hears only the first 8 s`; and listeners hearing every turn at 80 % and at
70 %, for which a listed "hears only some turns" counts as wrong even beside a right diagnosis.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter

import numpy as np

import paraudit.stats.itemboot as itemboot
from paraudit.stats.judge_model import (
    DETECTORS,
    POS,
    TYPES,
    JudgeModel,
    JudgeType,
    audit_attributes,
    audit_rows,
    judged_right,
    verdict_marks,
)
from paraudit.stats.summary import summarize

JUDGES: dict[str, JudgeType] = {
    "random": TYPES["random"],
    "random, dialogues": JudgeType(
        JudgeModel("random", p=0.5, o=0.5, j=0.5), frozenset({"at chance"}), POS, frozenset()
    ),
    "order-dependent": TYPES["order-dependent"],
    "hears only the last turn": TYPES["hears only the last turn"],
    "hears only the first 8 s": TYPES["hears only the first 8 s"],
    # Hears every turn, each at 80 %: any verdict but a turn habit (found in review: with "not
    # heard" read on the widened interval too, 43 of 200 audits listed one at 12 dialogues).
    "hears every turn at 80 %": JudgeType(
        JudgeModel("even80", p=0.8, o=0.9, j=0.9),
        frozenset({"reliable", "usable", "usable, no systematic failure mode"}),
        POS,
        frozenset(),
    ),
    # Every turn at 70 %: one of the three positions falls below ½ by chance on 12 dialogues;
    # read alone that named a turn habit in 36 of 100 audits (now a paired comparison). What
    # this type checks is the turn habit: every "usable" reading counts as right.
    "hears every turn at 70 %": JudgeType(
        JudgeModel("even70", p=0.7, o=0.9, j=0.9),
        frozenset(
            {
                "reliable",
                "usable",
                "usable, no systematic failure mode",
                "usable, systematic failure mode",
            }
        ),
        POS,
        frozenset(),
    ),
}
TURNS = "hears only some turns"


def cell(jt: JudgeType, items: int, audits: int) -> Counter[str]:
    """Right verdicts and what the wrong ones got, over `audits` seeded audits."""
    rng = np.random.default_rng(1000 * items + 7)
    attrs = audit_attributes(items, jt.task)
    out: Counter[str] = Counter()
    for a in range(audits):
        rows = audit_rows(jt.model, items, rng, task=jt.task)
        v = summarize(rows, replicates=1000, seed=a, permutations=500, attributes=attrs)[
            "verdicts"
        ][0]
        diagnosis, named, quiet = judged_right(jt, v)
        # A turn habit listed beside another diagnosis is a claim too, where the type has none.
        habit = TURNS not in jt.want and any(b["kind"] == TURNS for b in v["behaviours"])
        out["right"] += diagnosis and named and quiet and not habit
        if not diagnosis:
            out[v["diagnosis"]] += 1
        elif habit:
            out[f"lists: {TURNS}"] += 1
        for kind in (verdict_marks(v) & DETECTORS) - jt.named:
            out[f"false: {kind}"] += 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--audits", type=int, default=100)
    ap.add_argument("--sizes", default="12,16,48")
    ap.add_argument("--judges", default=None, help="comma-separated names (default: all)")
    args = ap.parse_args()
    # A comma ends a name only where no space follows ("random, dialogues" is one name).
    only = re.split(r",(?! )", args.judges) if args.judges else list(JUDGES)
    sizes = [int(s) for s in args.sizes.split(",")]
    expanded = itemboot.expanded_level
    print("| judge | items | plain 99 % percentile | expanded (the report's) |")
    print("|---|---|---|---|")
    for items in sizes:
        for name, jt in JUDGES.items():
            if name not in only:
                continue
            row = []
            for rule in ("plain", "expanded"):
                # The plain rule: every decision interval at its asked level, whatever the items.
                itemboot.expanded_level = expanded if rule == "expanded" else _plain
                t0 = time.process_time()
                c = cell(jt, items, args.audits)
                wrong = ", ".join(f"{k} {n}" for k, n in c.most_common() if k != "right")
                row.append(f"{c['right']}/{args.audits}" + (f" ({wrong})" if wrong else ""))
                cpu = time.process_time() - t0
                line = f"  {name}, {items} items, {rule}: {c['right']}/{args.audits} right"
                print(f"{line} ({cpu:.0f} CPU-s)", file=sys.stderr, flush=True)
            print(f"| {name} | {items} | {row[0]} | {row[1]} |", flush=True)
    itemboot.expanded_level = expanded
    return 0


def _plain(level: float, items: int) -> float:
    return level


if __name__ == "__main__":
    sys.exit(main())
