"""The demo's verdicts on a smaller stratified subset: does a cheaper default keep them?

Run: PYTHONPATH=src .venv/bin/python benchmarks/demo_subset.py PER_PAIR DIALOGUES OUT [CACHE]
Builds `quick_ids(per_pair=PER_PAIR, positional=DIALOGUES)` (the demo's default is 4 and 12)
into OUT/starter, asks the demo's judges every probe, protocol and cue in OUT/run, writes the
report to OUT/report and prints each verdict's diagnosis and headline, then the CPU-seconds.
A CACHE warmed by an earlier demo (`--cache`) makes it a matter of the audit alone.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

from paraudit.cli.demo import DEMO_JUDGES, JOINED_JUDGE
from paraudit.compose.starter import build_starter, quick_ids
from paraudit.protocols.instances import CUES, PROBES, PROTOCOLS
from paraudit.report.build import write_report
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.summary_model import Summary


def main() -> None:
    per_pair, dialogues, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    cache = Path(sys.argv[4]) if len(sys.argv) > 4 else None
    t0, c0 = time.time(), os.times()
    ids = quick_ids(per_pair=per_pair, positional=dialogues)
    built = build_starter(out / "starter", ids=ids, cache_dir=cache)
    print(f"renders: {built.fresh_renders} fresh, {built.cache_hits} cached; {built.items_written}")
    plan = PlanSpec(probes=PROBES, protocols=PROTOCOLS, cues=CUES)
    judges = [*DEMO_JUDGES, JOINED_JUDGE]
    cfg = RunConfig(out / "starter", judges, out / "run", plan, concurrency=16)
    asyncio.run(Runner(cfg, lambda _: None).execute())
    write_report([out / "run"], out / "report")
    for v in Summary.read(out / "report" / "summary.json").verdicts:
        print(f"{v.judge} · {v.task}: [{v.diagnosis}] {v.headline}")
    c = os.times()
    cpu = c.user + c.system - c0.user - c0.system
    print(f"{cpu:.1f} CPU-s (this process), {time.time() - t0:.1f} s wall")


if __name__ == "__main__":
    main()
