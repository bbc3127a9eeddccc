"""Statistics at scale: 4 judges × 2 tasks × 4 cues × 1,000 items, item-level intervals.

Run: PYTHONPATH=src python benchmarks/stats.py [ITEMS] [REPLICATES]
     [--baseline-rev REV | --baseline-root PATH] [--repeat N]

Synthesises result rows of the shape a default audit writes (pointwise J, P, O in both
response orders for both branches; pairwise J in both response orders × both context orders;
the transcript control T), then times `summarize` and its validation into the typed `Summary`
— every statistic of the report, with a 10,000-replicate item bootstrap interval on every
proportion (target: under 5 s). Two baselines are measured in the same run: a single pass
that only counts correct answers per cell (the floor any statistic pays to read the rows), and
one protocol-gap bootstrap as a plain Python loop over the same draws (scaled from a few
hundred replicates), against the vectorised evaluation.

With --baseline-rev REV (`git archive REV src benchmarks/stats.py`) or --baseline-root PATH (a
checkout holding src/ and benchmarks/stats.py), the benchmark runs as a process of its own
for the baseline code and for this code alternately, --repeat times each, and prints both
times and their ratios: the seconds of one run swing by up to 2x between stretches of these
shared machines, the ratio of runs made side by side far less. The baseline runs its own copy
of this script, so the comparison is of what each version computes for an audit of this shape
(an older version may compute fewer statistics: that is the point of comparing).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from paraudit.stats.bootstrap import PairedCounts, bootstrap_diffs_loop
from paraudit.stats.itemboot import Sheet
from paraudit.stats.statrow import StatRow
from paraudit.stats.strata_items import ItemAttributes
from paraudit.stats.summary import summarize
from paraudit.stats.summary_model import Summary

JUDGES = ["a", "b", "c", "d"]
TASKS = ["single-turn-emotions", "positional-emotion"]
CUES = ["none", "soft", "hard", "transition"]
ORDERS = ("ab", "ba")


def _choice(branch: int, order: str, right: bool) -> tuple[str, str]:
    gold = "R1" if (branch == 0) == (order == "ab") else "R2"
    return gold, gold if right else ("R2" if gold == "R1" else "R1")


def synth_rows(items: int, seed: int = 0) -> list[StatRow]:
    rng = np.random.default_rng(seed)
    rows: list[StatRow] = []

    def add(**kw: Any) -> None:
        rows.append(StatRow(**{"status": "ok", "context_order": None, **kw}))

    for j, judge in enumerate(JUDGES):
        skill = 0.5 + 0.12 * j
        for task in TASKS:
            base = {"judge": judge, "task": task}
            for i in range(items):
                item = f"i{i}"
                ease = rng.uniform(-0.2, 0.2)  # items differ in difficulty
                for cue in CUES:
                    for probe in ("J", "P", "O"):
                        for b in (0, 1):
                            for o in ORDERS:
                                right = bool(rng.random() < skill + ease)
                                gold, pred = _choice(b, o, right)
                                add(**base, item_id=item, probe=probe, protocol="pointwise",
                                    cue=cue, branch=b, order=o, gold=gold, pred=pred,
                                    correct=right)  # fmt: skip
                    for o in ORDERS:
                        for co in ORDERS:
                            right = bool(rng.random() < skill + 0.1 + ease)
                            gold = {"CA": "R1", "CB": "R2"} if o == co else {"CA": "R2", "CB": "R1"}
                            pred = gold if right else {"CA": gold["CB"], "CB": gold["CA"]}
                            add(**base, item_id=item, probe="J", protocol="pairwise", cue=cue,
                                branch=None, order=o, context_order=co, gold=gold, pred=pred,
                                correct=right)  # fmt: skip
                pick = int(rng.integers(2))
                for b in (0, 1):
                    for o in ORDERS:
                        gold, _ = _choice(b, o, True)
                        pred = "R1" if (pick == 0) == (o == "ab") else "R2"
                        add(**base, item_id=item, probe="T", protocol="pointwise",
                            cue="none", branch=b, order=o, gold=gold, pred=pred,
                            correct=pred == gold)  # fmt: skip
    return rows


def synth_attributes(items: int, seed: int = 0) -> dict[tuple[str, str], ItemAttributes]:
    """What a dataset says of each item (stats/strata.py): the subgroup scan runs on these."""
    rng = np.random.default_rng(seed)
    pairs = [("angry", "sad"), ("happy", "sad"), ("angry", "neutral"), ("surprised", "neutral")]
    out = {}
    for task in TASKS:
        for i in range(items):
            pair = pairs[i % 4]
            shift = rng.uniform(2, 14, 2)
            out[(task, f"i{i}")] = ItemAttributes(
                {"contrast": "/".join(sorted(pair)), "voice": f"v{i % 3}", "turns": "5"},
                tuple(  # type: ignore[arg-type]
                    {"label": pair[b], "shift time": round(float(shift[b]), 2),
                     "duration": round(float(shift[b]) + 3, 2)}
                    for b in (0, 1)
                ),
            )  # fmt: skip
    return out


def count_pass(rows: list[StatRow]) -> dict[tuple[Any, ...], list[int]]:
    """Baseline: one pass counting correct answers per cell, no interval at all."""
    out: dict[tuple[Any, ...], list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        c = out[(r.judge, r.task, r.probe, r.protocol, r.cue)]
        c[0] += bool(r.correct)
        c[1] += 1
    return out


def main(items: int = 1000, replicates: int = 10_000) -> float:
    rows = synth_rows(items)
    t0, c0 = time.perf_counter(), time.process_time()
    count_pass(rows)
    t_floor, c_floor = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    # The subgroup scan on (its attributes come from the datasets).
    raw = summarize(rows, replicates=replicates, attributes=synth_attributes(items))
    t1 = time.perf_counter()
    # The report reads the validated, typed summary: its validation is part of the cost.
    summary = Summary.of(raw)
    full, cpu = time.perf_counter() - t0, time.process_time() - c0
    t_typed = time.perf_counter() - t1

    # One protocol gap: the vectorised sheet against the plain loop on the same draws.
    rng = np.random.default_rng(1)
    n_a = np.full(items, 16.0)
    c = PairedCounts(
        rng.binomial(16, 0.7, items) * 1.0, n_a, rng.binomial(16, 0.5, items) * 1.0, n_a
    )
    sheet = Sheet(f"i{i}" for i in range(items))
    ka, na, kb, nb = (sheet.column(dict(zip(sheet.items, v, strict=True))) for v in
                      (c.k_a, c.n_a, c.k_b, c.n_b))  # fmt: skip
    sheet.difference((ka, na), (kb, nb), items)
    t0 = time.perf_counter()
    sheet.evaluate(replicates, 7)
    t_vec = time.perf_counter() - t0
    loop_reps = max(200, replicates // 50)
    t0 = time.perf_counter()
    bootstrap_diffs_loop(c, loop_reps, 7)
    t_loop = (time.perf_counter() - t0) * replicates / loop_reps

    print(
        f"rows: {len(rows):,} · judges × tasks: {len(JUDGES) * len(TASKS)} · items per task: "
        f"{items} · replicates: {replicates:,} · item-level intervals: {summary.intervals:,}"
        f" · strata records: {len(summary.strata):,}"
    )
    print(
        f"full statistics (summarize + typed Summary): {full:.2f} s wall, {cpu:.2f} s CPU "
        f"(of which validation {t_typed:.2f} s wall; target < 5 s; "
        f"the CPU time is what this process used, the wall time includes waiting for a busy "
        f"machine — load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
    )
    print(
        f"baseline, one counting pass over the rows: {t_floor:.2f} s wall, {c_floor:.2f} s CPU "
        f"(summarize / baseline: {full / t_floor:.1f}x wall, {cpu / c_floor:.1f}x CPU)"
    )
    print(
        f"one protocol-gap interval: vectorised {t_vec * 1000:.0f} ms (fresh draws) · plain loop "
        f"{t_loop:.1f} s (timed on {loop_reps} replicates, scaled) · ratio {t_loop / t_vec:.0f}x"
    )
    return full


REPO = Path(__file__).resolve().parents[1]
TIMES = re.compile(r"statistics \(summarize[^)]*\): ([\d.]+) s wall, ([\d.]+) s CPU")


def run_once(root: Path, args: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of the full statistics, from the benchmark of the code at `root`
    run as its own process."""
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    done = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "stats.py"), *args],
        env=env,
        capture_output=True,
        text=True,
    )
    found = TIMES.search(done.stdout)
    if done.returncode != 0 or found is None:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"the benchmark at {root} gave no time ({tail[0]})")
    return float(found[1]), float(found[2])


def compare(baseline: Path, repeat: int, args: list[str]) -> float:
    """Baseline and this code alternately, `repeat` times each; returns new / baseline CPU
    (medians)."""
    sides = {"baseline": baseline, "new": REPO}
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in sides}
    for k in range(repeat):
        for name, root in sides.items():
            times[name].append(run_once(root, args))
            wall, cpu = times[name][-1]
            print(f"run {k + 1}/{repeat} {name:<8}: {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
    med = {n: [statistics.median(t[i] for t in v) for i in (0, 1)] for n, v in times.items()}
    ratio = [med["new"][i] / med["baseline"][i] for i in (0, 1)]
    print(
        f"median of {repeat}: baseline {med['baseline'][0]:.2f} s wall, {med['baseline'][1]:.2f}"
        f" s CPU · new {med['new'][0]:.2f} s wall, {med['new'][1]:.2f} s CPU · new / baseline "
        f"{ratio[0]:.2f}x wall, {ratio[1]:.2f}x CPU (load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores)"
    )
    return ratio[1]


def cli(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("items", nargs="?", type=int, default=1000)
    ap.add_argument("replicates", nargs="?", type=int, default=10_000)
    base = ap.add_mutually_exclusive_group()
    base.add_argument("--baseline-rev", metavar="REV", help="compare with this git revision")
    base.add_argument("--baseline-root", type=Path, metavar="PATH", help="or with this checkout")
    ap.add_argument("--repeat", type=int, default=3, metavar="N", help="runs per side (3)")
    a = ap.parse_args(argv)
    if a.items < 4 or a.replicates < 10 or a.repeat < 1:
        ap.error("ITEMS must be at least 4, REPLICATES at least 10, --repeat at least 1")
    args = [str(a.items), str(a.replicates)]
    if a.baseline_root is not None:
        if not (a.baseline_root / "benchmarks" / "stats.py").is_file():
            ap.error(f"--baseline-root {a.baseline_root}: no benchmarks/stats.py there")
        compare(a.baseline_root, a.repeat, args)
    elif a.baseline_rev is not None:
        try:
            from benchmarks.revision import extract
        except ImportError:  # run as `python benchmarks/stats.py`: its folder is on the path
            from revision import extract  # type: ignore[import-not-found,no-redef]
        with tempfile.TemporaryDirectory() as tmp:
            compare(
                extract(a.baseline_rev, Path(tmp), "src", "benchmarks/stats.py"), a.repeat, args
            )
    else:
        main(a.items, a.replicates)


if __name__ == "__main__":
    cli()
