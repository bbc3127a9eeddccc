"""Sequential audits: the calls they save and whether their verdicts agree with the full plan's.

Run: PYTHONPATH=src python benchmarks/sequential.py [--audits 40] [--sizes 189]
     [--replicates 500] [--permutations 200] [--coverage-runs 400] [--part K/N] [--json OUT]
(or `benchmarks/verdicts.py --sequential`, which runs the savings study at its own sizes).

1. Coverage: the betting confidence sequence (stats/confseq.py) under the adversary's optional
   stopping (stop the moment it misses the truth), for item scores of 4 answers at several
   means, at 95 % and 99 %; a fixed-sample normal interval under the same rule beside it.
2. Savings: for every scripted judge type of the verdict study (stats/judge_model.TYPES) and
   three weak judges near the rule's margin, simulate `--audits` full audits, replay each as
   `run --sequential` would have asked it (stats/sequential_rule.replay: batches of 10 items,
   looks after each), and summarise both exactly as `paraudit report` does. Prints the calls
   used as a share of the full plan (median, 95th percentile), the agreement of the
   sequential diagnosis with the full plan's, each one's share right, and false "reliable".
   Targets (issue 33): median share ≤ ⅓ over the types, agreement ≥ 95 % per type, no rise
   in false "reliable".
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from paraudit.stats.confseq import coverage
from paraudit.stats.judge_model import TYPES, JudgeModel, JudgeType, audit_rows
from paraudit.stats.sequential_rule import replay
from paraudit.stats.summary import summarize

WEAK = {
    f"weak {int(s * 100)} %": JudgeType(
        JudgeModel(f"weak{int(s * 100)}", p=s, o=s, j=s), frozenset(), "single-turn-emotions"
    )
    for s in (0.6, 0.65, 0.7)
}
"""Judges a few points above chance: where the margin (stats/sequential.MARGIN) may cost a
verdict. Not scored for rightness (no diagnosis is the one right one for them)."""


@dataclass
class Outcome:
    shares: list[float] = field(default_factory=list)
    full: Counter[str] = field(default_factory=Counter)
    seq: Counter[str] = field(default_factory=Counter)
    agree: int = 0
    full_wrong: int = 0
    """Disagreements in which the full plan's diagnosis is not one the type implies."""


def study(
    audits: int, items: int, replicates: int, permutations: int, only: list[str] | None = None
) -> dict[str, Outcome]:
    out: dict[str, Outcome] = {}
    order = [f"i{i}" for i in range(items)]
    for t, (name, jt) in enumerate({**TYPES, **WEAK}.items()):
        if only and name not in only:
            continue
        rng = np.random.default_rng(7000 * items + t)
        o = out[name] = Outcome()
        for a in range(audits):
            rows = audit_rows(jt.model, items, rng, task=jt.task)
            seq = replay(rows, order)
            full = summarize(rows, replicates=replicates, seed=a, permutations=permutations)
            part = summarize(seq.rows, replicates=replicates, seed=a, permutations=permutations)
            f, s = full["verdicts"][0]["diagnosis"], part["verdicts"][0]["diagnosis"]
            o.shares.append(len(seq.rows) / len(rows))
            o.full[f] += 1
            o.seq[s] += 1
            o.agree += f == s
            o.full_wrong += f != s and name in TYPES and f not in TYPES[name].want
    return out


def _right(name: str, c: Counter[str]) -> str:
    want = TYPES[name].want if name in TYPES else frozenset()
    return f"{sum(n for d, n in c.items() if d in want) / sum(c.values()):.0%}" if want else "–"


def table(results: dict[str, Outcome], audits: int) -> list[str]:
    lines = [
        "| judge type | calls used: median | 95th pct | agreement with full | right (seq / full) "
        "| false reliable (seq / full) |",
        "|---|---|---|---|---|---|",
    ]
    for name, o in results.items():
        sh = sorted(o.shares)
        p95 = sh[min(len(sh) - 1, int(0.95 * len(sh)))]
        want = TYPES[name].want if name in TYPES else frozenset({"reliable"})
        fr = "–" if "reliable" in want else f"{o.seq['reliable']} / {o.full['reliable']}"
        lines.append(
            f"| {name} | {statistics.median(sh):.0%} | {p95:.0%} | "
            f"{o.agree}/{audits} ({o.agree / audits:.0%}) | {_right(name, o.seq)} / "
            f"{_right(name, o.full)} | {fr} |"
        )
    return lines


def targets(results: dict[str, Outcome], audits: int) -> list[tuple[str, bool, str]]:
    typed = {n: o for n, o in results.items() if n in TYPES}
    medians = [statistics.median(o.shares) for o in typed.values()]
    med = statistics.median(medians) if medians else 1.0
    worst = min(((o.agree / audits, n) for n, o in typed.items()), default=(1.0, "–"))
    missed = audits - typed[worst[1]].agree if worst[1] in typed else 0
    why = (f"; {typed[worst[1]].full_wrong} of its {missed} misses the full plan's own errors"
           if missed else "")  # fmt: skip
    rise = [n for n, o in typed.items() if "reliable" not in TYPES[n].want
            and o.seq["reliable"] > o.full["reliable"]]  # fmt: skip
    return [
        ("median calls ≤ ⅓ of the full plan (median over types)", med <= 1 / 3, f"{med:.0%}"),
        ("agreement with the full plan ≥ 95 % per type", worst[0] >= 0.95,
         f"worst: {worst[1]} {worst[0]:.0%}{why}"),
        ("no rise in false 'reliable'", not rise, ", ".join(rise) or "none"),
    ]  # fmt: skip


def coverage_table(runs: int, items: int) -> list[str]:
    lines = ["| mean | sequence 95 % | sequence 99 % |", "|---|---|---|"]
    for mean in (0.5, 0.65, 0.8, 0.95):

        def draw(rng: np.random.Generator, n: int, p: float = mean) -> np.ndarray:
            return rng.binomial(4, p, n) / 4

        c95 = coverage(draw, mean, 0.05, items, runs, seed=1)
        c99 = coverage(draw, mean, 0.01, items, runs, seed=2)
        lines.append(f"| {mean:.2f} | {c95:.1%} | {c99:.1%} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--audits", type=int, default=40)
    ap.add_argument("--sizes", default="189")
    ap.add_argument("--replicates", type=int, default=500)
    ap.add_argument("--permutations", type=int, default=200)
    ap.add_argument("--coverage-runs", type=int, default=400)
    ap.add_argument("--types", default=None, help="comma-separated type names (default: all)")
    ap.add_argument("--part", default=None,
                    help="K/N: every N-th type from the K-th (0-based; the study split over N "
                         "processes on a loaded machine)")  # fmt: skip
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    report: dict[str, object] = {}
    passed = True
    if args.coverage_runs:
        t0 = time.perf_counter()
        lines = coverage_table(args.coverage_runs, 189)
        print(f"\n## Coverage under optional stopping, 189 items, {args.coverage_runs} runs "
              f"({time.perf_counter() - t0:.0f} s)\n")  # fmt: skip
        print("\n".join(lines))
        report["coverage"] = lines
    only = args.types.split(",") if args.types else None
    if args.part:  # type names hold commas ("fixed errors 20 %, 5 draws"): pick by position
        k, n = (int(x) for x in args.part.split("/"))
        only = [*TYPES, *WEAK][k::n]
    for size in (int(x) for x in args.sizes.split(",")):
        t0 = time.perf_counter()
        results = study(args.audits, size, args.replicates, args.permutations, only)
        print(f"\n## Sequential vs full plan, {size} items, {args.audits} audits per type "
              f"({time.perf_counter() - t0:.0f} s)\n")  # fmt: skip
        print("\n".join(table(results, args.audits)))
        for what, ok, detail in targets(results, args.audits):
            print(f"- {'PASS' if ok else 'FAIL'} {what} ({detail})")
            passed = passed and ok
        report[str(size)] = {n: {"shares": o.shares, "full": dict(o.full), "seq": dict(o.seq),
                                 "agree": o.agree} for n, o in results.items()}  # fmt: skip
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
