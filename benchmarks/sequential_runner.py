"""Sequential vs full plan through the real runner: built-in judges on a generated tone set.

Run: PYTHONPATH=src:. python benchmarks/sequential_runner.py [--items 150] [--judges ...]

Builds tests/runner/sequential_sets.py's single-turn set of real WAV tones (one distinct pitch
pair per item) in a temporary folder, runs the judges on the full plan (probes J,P,O,T, cues
none,hard) and with --sequential, and prints per judge the items and rows each asked and the
two runs' diagnoses (`paraudit report`'s cascade, 1,000 item-bootstrap replicates).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.runner.sequential import SequentialSpec
from paraudit.stats.rowgroups import read_groups
from paraudit.stats.summary import summarize
from tests.runner.sequential_sets import tone_set

PLAN = PlanSpec(("J", "P", "O", "T"), ("pointwise", "pairwise"), ("none", "hard"))


def _diagnoses(out: Path) -> dict[str, str]:
    raw = summarize(list(read_groups(out).rows()), replicates=1000)
    return {v["judge"]: v["diagnosis"] for v in raw["verdicts"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=150)
    ap.add_argument("--judges", default="builtin:random,builtin:first")
    args = ap.parse_args()
    judges = args.judges.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ds = tone_set(root / "ds", root / "src", args.items)
        rows: dict[str, dict[str, int]] = {}
        took = {}
        for name, seq in (("full", None), ("sequential", SequentialSpec())):
            t0 = time.perf_counter()
            cfg = RunConfig(ds, judges, root / name, PLAN, concurrency=16, sequential=seq)
            asyncio.run(Runner(cfg).execute())
            took[name] = time.perf_counter() - t0
            rows[name] = {}
            for r in read_groups(root / name).rows():
                rows[name][r.judge] = rows[name].get(r.judge, 0) + 1
        full, seq = _diagnoses(root / "full"), _diagnoses(root / "sequential")
        record = json.loads((root / "sequential" / "sequential.json").read_text())["judges"]
        print("| judge | items asked | rows (sequential / full) | diagnosis full | sequential |")
        print("|---|---|---|---|---|")
        for j in judges:
            e = record[j]["single-turn-emotions"]
            share = rows["sequential"][j] / rows["full"][j]
            print(f"| {j} | {e['items_asked']} of {e['items_planned']} | "
                  f"{rows['sequential'][j]:,} / {rows['full'][j]:,} ({share:.0%}) | "
                  f"{full[j]} | {seq[j]} |")  # fmt: skip
        print(f"\nwall time: full {took['full']:.1f} s, sequential {took['sequential']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
