"""How often is each verdict right? A simulation study over a parametrised judge model.

Run: PYTHONPATH=src python benchmarks/verdicts.py [--audits 200] [--sizes 48,189,500]
     [--replicates 1000] [--permutations 500] [--types NAME,…] [--json OUT] [--readme]
     [--dimension NAME|all] [--sequential]
(--sequential: the sequential audits' study, benchmarks/sequential.py, with these options)

For each scripted type of judge (`paraudit.stats.judge_model.TYPES`: skills, independent or
co-occurring noise, position and order habits, cue and protocol dependence, deafness to the
audio or to some turns; issue 27's refusers, inverted conventions, subgroup specialists, label
priors, time-limited listeners, routed providers, fresh-draw vs fixed-error judges) and each
item count, simulate `--audits` audits (rows of the shape a default audit writes: J, P, O
pointwise and J pairwise in every order, T, cues none and hard; the items' attributes as a
recorded dataset gives the subgroup scan), summarise each exactly as `paraudit report` does
(`summarize`: item bootstrap, permutation tests, every registered analysis) and count the
verdicts. A verdict is right when its diagnosis is one the type's behaviour implies, it names
what the type must have named (a subgroup, the other model, refusals, one draw's accuracy, an
inverted component) and none of issue 27's other detectors fires (`judge_model.judged_right`).
Prints one confusion table per size and checks the targets at 189 items (the paper's
single-turn size): every type right in ≥ 95 % of audits, a false "reliable" in ≤ 5 %, noisy
skilled judges (10–20 % noise, fresh or fixed, re-asked or sampled) "reliable" or "no
systematic failure mode" in ≥ 90 % with no detector of issue 27 firing in more than 5 %.
`--readme` prints the README's table (one column per size). The bootstrap and permutation
counts are lower than the report's defaults (10,000 and 2,000) to keep the study to minutes;
the percentile ends then move by well under a point. `--dimension` runs each type on that
dimension's task of the same kind (a type whose kind the dimension lacks, positional for
whisper, is left out); `all`: every dimension in turn.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

import numpy as np

from paraudit.dimensions import registry
from paraudit.stats.judge_model import (
    DETECTORS,
    TYPES,
    audit_attributes,
    audit_rows,
    judged_right,
    task_in,
    verdict_marks,
)
from paraudit.stats.summary import summarize

RIGHT = "right"
NOISY = (
    "noise 10 %",
    "noise 20 %",
    "fixed errors 20 %, 5 draws",
    "fresh draws 80 %, re-asked 20 %",
    "fixed errors 20 %, re-asked 20 %",
)
"""Skilled judges with independent errors: issue 27's detectors must stay quiet on them."""


def study(
    audits: int,
    items: int,
    replicates: int,
    permutations: int,
    only: list[str] | None = None,
    dimension: str = "emotion",
) -> dict[str, Counter[str]]:
    """Per type: 'right' and, for each wrong verdict, what was wrong with it ('diagnosis: X',
    'missed: KIND', 'false: KIND'); 'diagnosis ok', 'reliable' and 'alarm' count every audit."""
    out: dict[str, Counter[str]] = {}
    for t, (name, jt) in enumerate(TYPES.items()):
        task = task_in(jt.task, dimension)
        if (only and name not in only) or task is None:
            continue
        rng = np.random.default_rng(1000 * items + t)
        attrs = audit_attributes(items, task)
        counts: Counter[str] = Counter()
        for a in range(audits):
            rows = audit_rows(jt.model, items, rng, task=task)
            s = summarize(rows, replicates=replicates, seed=a, permutations=permutations,
                          attributes=attrs)  # fmt: skip
            v = s["verdicts"][0]
            diagnosis, named, quiet = judged_right(jt, v)
            marks = verdict_marks(v)
            counts["diagnosis ok"] += diagnosis
            counts["reliable"] += v["diagnosis"] == "reliable"
            counts["alarm"] += bool((marks & DETECTORS) - jt.named)
            if diagnosis and named and quiet:
                counts[RIGHT] += 1
                continue
            if not diagnosis:
                counts[f"diagnosis: {v['diagnosis']}"] += 1
            for kind in sorted(jt.named - marks):
                counts[f"missed: {kind}"] += 1
            for kind in sorted((marks & DETECTORS) - jt.named):
                counts[f"false: {kind}"] += 1
        out[name] = counts
        print(f"  {name}: {counts[RIGHT]}/{audits} right", file=sys.stderr, flush=True)
    return out


SUMMARY_KEYS = (RIGHT, "diagnosis ok", "reliable", "alarm")


def table(results: dict[str, Counter[str]], audits: int) -> list[str]:
    lines = ["| judge type | right | what the wrong ones got |", "|---|---|---|"]
    for name, counts in results.items():
        right = counts[RIGHT]
        other = ", ".join(f"{d} {c}" for d, c in counts.most_common() if d not in SUMMARY_KEYS)
        lines.append(f"| {name} | {right}/{audits} ({right / audits:.0%}) | {other or '–'} |")
    return lines


def readme_table(by_size: dict[int, dict[str, Counter[str]]], audits: int) -> list[str]:
    """The README's table: the verdict each type must get, right audits per size."""
    sizes = sorted(by_size)
    head = "| judge type | the right verdict | " + " | ".join(f"{n} items" for n in sizes) + " |"
    lines = [head, "|---|---|" + "---|" * len(sizes)]
    for name, jt in TYPES.items():
        if not all(name in by_size[n] for n in sizes):
            continue
        want = " or ".join(sorted(jt.want))
        if jt.named:
            want += "; names " + ", ".join(sorted(jt.named))
        cells = " | ".join(f"{by_size[n][name][RIGHT]}/{audits}" for n in sizes)
        lines.append(f"| {name} | {want} | {cells} |")
    return lines


def targets(results: dict[str, Counter[str]], audits: int) -> list[tuple[str, bool, str]]:
    checks = []
    worst = min((counts[RIGHT] / audits, n) for n, counts in results.items())
    checks.append(("every type right in ≥ 95 % of audits", worst[0] >= 0.95,
                   f"worst: {worst[1]} {worst[0]:.1%}"))  # fmt: skip
    false_rel = [
        (counts["reliable"] / audits, n)
        for n, counts in results.items()
        if "reliable" not in TYPES[n].want
    ]
    if false_rel:
        top = max(false_rel)
        checks.append(("false 'reliable' ≤ 5 %", top[0] <= 0.05,
                       f"largest: {top[1]} {top[0]:.1%}"))  # fmt: skip
    noisy = [n for n in NOISY if n in results]
    if noisy:
        low = min((results[n]["diagnosis ok"] / audits, n) for n in noisy)
        checks.append(("noisy skilled judges: reliable or no systematic failure mode ≥ 90 %",
                       low[0] >= 0.9, f"lowest: {low[1]} {low[0]:.1%}"))  # fmt: skip
        alarm = max((results[n]["alarm"] / audits, n) for n in noisy)
        checks.append(("noisy skilled judges: issue 27's detectors fire in ≤ 5 %",
                       alarm[0] <= 0.05, f"largest: {alarm[1]} {alarm[0]:.1%}"))  # fmt: skip
    return checks


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--audits", type=int, default=200)
    ap.add_argument("--sizes", default="48,189,500")
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--permutations", type=int, default=500)
    ap.add_argument("--json", default=None)
    ap.add_argument("--types", default=None, help="comma-separated type names (default: all)")
    ap.add_argument("--readme", action="store_true", help="also print the README's table")
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
    by_size: dict[int, dict[str, Counter[str]]] = {}
    passed = True
    only = args.types.split(",") if args.types else None
    dims = registry.names() if args.dimension == "all" else [args.dimension]
    for dim, size in ((d, int(x)) for d in dims for x in args.sizes.split(",")):
        t0 = time.perf_counter()
        results = study(args.audits, size, args.replicates, args.permutations, only, dim)
        took = time.perf_counter() - t0
        where = "" if len(dims) == 1 else f"{dim}: "
        print(f"\n## {where}{size} items, {args.audits} audits per type ({took:.0f} s)\n")
        print("\n".join(table(results, args.audits)))
        checks = targets(results, args.audits)
        for what, ok, detail in checks:
            print(f"- {'PASS' if ok else 'FAIL'} {what} ({detail})")
        if size == 189:
            passed = all(ok for _, ok, _ in checks)
        report[str(size) if len(dims) == 1 else f"{dim}:{size}"] = {
            n: dict(c) for n, c in results.items()
        }
        by_size[size] = results
        sys.stdout.flush()
    if args.readme:
        print("\n" + "\n".join(readme_table(by_size, args.audits)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
