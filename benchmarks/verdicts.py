"""How often is each verdict right? A simulation study over a parametrised judge model.

Run: PYTHONPATH=src python benchmarks/verdicts.py [--audits 200] [--sizes 48,189,500]
     [--replicates 1000] [--permutations 500] [--json OUT] [--sequential] [--dimension NAME|all]
(--sequential: the sequential audits' study, benchmarks/sequential.py, with these options)

For each scripted type of judge (`paraudit.stats.judge_model.TYPES`: skills, independent or
co-occurring noise, position and order habits, cue and protocol dependence, deafness to the
audio or to some turns) and each item count, simulate `--audits` audits (rows of the shape a
default audit writes: J, P, O pointwise and J pairwise in every order, T, cues none and hard),
summarise each exactly as `paraudit report` does (item bootstrap, permutation test) and count
the verdicts' diagnoses. Prints one confusion table per size and checks issue 17's targets at
189 items (the paper's single-turn size): every type right in ≥ 95 % of audits, a false
"reliable" in ≤ 5 %, perfect judges with 10–20 % noise "reliable" or "no systematic failure
mode" in ≥ 90 %. The bootstrap and permutation counts are lower than the report's defaults
(10,000 and 2,000) to keep the study to minutes; the percentile ends then move by well under a
point. `--dimension` runs each type on that dimension's task of the same kind (a type whose
kind the dimension lacks, positional for whisper, is left out); `all`: every dimension in turn.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

import numpy as np

from paraudit.dimensions import registry
from paraudit.stats.judge_model import TYPES, audit_rows, task_in
from paraudit.stats.summary import summarize


def study(
    audits: int,
    items: int,
    replicates: int,
    permutations: int,
    only: list[str] | None = None,
    dimension: str = "emotion",
) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for t, (name, (model, _, emotion_task)) in enumerate(TYPES.items()):
        task = task_in(emotion_task, dimension)
        if (only and name not in only) or task is None:
            continue
        rng = np.random.default_rng(1000 * items + t)
        counts: Counter[str] = Counter()
        for a in range(audits):
            rows = audit_rows(model, items, rng, task=task)
            s = summarize(rows, replicates=replicates, seed=a, permutations=permutations)
            counts[s["verdicts"][0]["diagnosis"]] += 1
        out[name] = counts
    return out


def table(results: dict[str, Counter[str]], audits: int) -> list[str]:
    lines = ["| judge type | right | other verdicts |", "|---|---|---|"]
    for name, counts in results.items():
        want = TYPES[name][1]
        right = sum(c for d, c in counts.items() if d in want)
        other = ", ".join(f"{d} {c}" for d, c in counts.most_common() if d not in want)
        lines.append(f"| {name} | {right}/{audits} ({right / audits:.0%}) | {other or '–'} |")
    return lines


def targets(results: dict[str, Counter[str]], audits: int) -> list[tuple[str, bool, str]]:
    checks = []
    worst = min(
        (sum(c for d, c in counts.items() if d in TYPES[n][1]) / audits, n)
        for n, counts in results.items()
    )
    checks.append(("every type right in ≥ 95 % of audits", worst[0] >= 0.95,
                   f"worst: {worst[1]} {worst[0]:.1%}"))  # fmt: skip
    false_rel = [
        counts["reliable"] / audits
        for n, counts in results.items()
        if "reliable" not in TYPES[n][1]
    ]
    if false_rel:
        checks.append(("false 'reliable' ≤ 5 %", max(false_rel) <= 0.05,
                       f"largest: {max(false_rel):.1%}"))  # fmt: skip
    ok = {"reliable", "usable, no systematic failure mode"}
    noisy = [sum(c for d, c in results[n].items() if d in ok) / audits
             for n in ("noise 10 %", "noise 20 %") if n in results]  # fmt: skip
    if noisy:
        checks.append(("10–20 % noise: reliable or no systematic failure mode ≥ 90 %",
                       min(noisy) >= 0.9, f"lowest: {min(noisy):.1%}"))  # fmt: skip
    return checks


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--audits", type=int, default=200)
    ap.add_argument("--sizes", default="48,189,500")
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--permutations", type=int, default=500)
    ap.add_argument("--json", default=None)
    ap.add_argument("--types", default=None, help="comma-separated type names (default: all)")
    ap.add_argument("--dimension", default="emotion", help="a dimension's tasks, or all")
    ap.add_argument("--sequential", action="store_true",
                    help="the sequential audits' study (benchmarks/sequential.py)")  # fmt: skip
    args, rest = ap.parse_known_args()
    if args.sequential:  # issue 33: calls saved and agreement with the full plan
        import sequential  # benchmarks/sequential.py, beside this script

        passed_on = ["--audits", str(args.audits), "--sizes", args.sizes, "--replicates",
                     str(args.replicates), "--permutations", str(args.permutations)]  # fmt: skip
        passed_on += ["--json", args.json] if args.json else []
        passed_on += ["--types", args.types] if args.types else []
        return int(sequential.main(passed_on + rest))
    if rest:
        ap.error(f"unrecognized arguments: {' '.join(rest)}")
    report: dict[str, object] = {}
    passed = True
    dims = registry.names() if args.dimension == "all" else [args.dimension]
    for dim, size in ((d, int(x)) for d in dims for x in args.sizes.split(",")):
        t0 = time.perf_counter()
        only = args.types.split(",") if args.types else None
        results = study(args.audits, size, args.replicates, args.permutations, only, dim)
        took = time.perf_counter() - t0
        where = "" if len(dims) == 1 else f"{dim}: "
        print(f"\n## {where}{size} items, {args.audits} audits per type ({took:.0f} s)\n")
        print("\n".join(table(results, args.audits)))
        checks = targets(results, args.audits)
        for what, ok, detail in checks:
            print(f"- {'PASS' if ok else 'FAIL'} {what} ({detail})")
        if size == 189:
            passed = passed and all(ok for _, ok, _ in checks)
        key = str(size) if len(dims) == 1 else f"{dim}/{size}"
        report[key] = {n: dict(c) for n, c in results.items()}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
