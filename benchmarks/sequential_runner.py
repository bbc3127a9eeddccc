"""Sequential vs full plan through the real runner: built-in judges on a generated tone set,
or on the starter set's 160 single-turn items of real speech.

Run: PYTHONPATH=src:. python benchmarks/sequential_runner.py [--items 150] [--judges ...]
     PYTHONPATH=src:. python benchmarks/sequential_runner.py --starter-extended [--cache DIR]

Builds tests/runner/sequential_sets.py's single-turn set of real WAV tones (one distinct pitch
pair per item) in a temporary folder, runs the judges on the full plan (probes J,P,O,T, cues
none,hard) and with --sequential, and prints per judge the items and rows each asked and the
two runs' diagnoses (`paraudit report`'s cascade, 1,000 item-bootstrap replicates), then
the items at which the sequential run settled each step.

`--starter-extended` instead renders the starter's single-turn sentences with their extension
(`build_starter(extended=True)`: 48 + 112, Piper and Praat, about four minutes on 2 cores from
an empty render cache; renders go to `--cache`, by default paraudit's own cache folder, so a
rerun reuses them; `--items` does not apply) and asks `paraudit run`'s
default plan (probes J,P,O,S,T, both protocols, cues none,soft,hard,transition); the default
judges are then random, always-first and the acoustic prosody judge.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from paraudit.compose.starter import build_starter
from paraudit.protocols.instances import CUES, PROTOCOLS
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.runner.sequential import SequentialSpec
from paraudit.sources.starter import extended_single_turn_sources, single_turn_sources
from paraudit.stats.rowgroups import read_groups
from paraudit.stats.sequential_record import annotate
from paraudit.stats.summary import summarize
from tests.runner.sequential_sets import tone_set

PLAN = PlanSpec(("J", "P", "O", "T"), ("pointwise", "pairwise"), ("none", "hard"))
RUN_DEFAULT = PlanSpec(("J", "P", "O", "S", "T"), PROTOCOLS, CUES)
"""`paraudit run`'s default plan (cli/run.py's --probes, --protocols and --cues)."""


def _diagnoses(out: Path) -> dict[str, str]:
    raw = summarize(list(read_groups(out).rows()), replicates=1000)
    annotate(raw, [out])
    for v in raw["verdicts"]:
        print(f"{out.name}: {v['judge']} · {v['task']}: {v['headline']}")
    return {v["judge"]: v["diagnosis"] for v in raw["verdicts"]}


def _by_part(out: Path, judges: list[str]) -> None:
    """Native J (pointwise, no cue) of each judge on the starter's 48 sentences and on the 112
    of the extension, per emotion pair: where a judge's accuracy moves between the two."""
    extension = extended_single_turn_sources()
    more = {s.id for s in extension}
    pairs = {s.id: "/".join(s.emotions) for s in single_turn_sources() + extension}
    right: dict[tuple[str, str, str], list[bool]] = {}
    for r in read_groups(out).rows():
        if (r.probe, r.protocol, r.cue) == ("J", "pointwise", "none") and r.status == "ok":
            part = "extension" if r.item_id in more else "starter"
            for pair in ("all", pairs[r.item_id]):
                right.setdefault((r.judge, part, pair), []).append(r.correct)
    print("\n| judge | part | pair | answers | native J (pointwise, no cue) |")
    print("|---|---|---|---|---|")
    for (judge, part, pair), v in sorted(right.items()):
        if judge in judges:
            print(f"| {judge} | {part} | {pair} | {len(v)} | {sum(v) / len(v):.1%} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--items", type=int, default=150, help="tone items (not with --starter-extended)"
    )
    ap.add_argument("--judges", default=None)
    ap.add_argument("--starter-extended", action="store_true")
    ap.add_argument("--cache", type=Path, default=None, help="render cache (--starter-extended)")
    args = ap.parse_args()
    speech = args.starter_extended
    default = "builtin:random,builtin:first" + (",builtin:prosody" if speech else "")
    judges = (args.judges or default).split(",")
    plan = RUN_DEFAULT if speech else PLAN
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if speech:
            t0 = time.perf_counter()
            ids = {s.id for s in single_turn_sources() + extended_single_turn_sources()}
            built = build_starter(root / "ds", ids=ids, extended=True, cache_dir=args.cache)
            print(f"built {built.items_written} in {time.perf_counter() - t0:.0f} s "
                  f"(dropped {len(built.items_dropped)})")  # fmt: skip
            ds = root / "ds"
        else:
            ds = tone_set(root / "ds", root / "src", args.items)
        rows: dict[str, dict[str, int]] = {}
        took = {}
        for name, seq in (("full", None), ("sequential", SequentialSpec())):
            t0 = time.perf_counter()
            cfg = RunConfig(ds, judges, root / name, plan, concurrency=16, sequential=seq)
            first = asyncio.run(Runner(cfg).execute())
            took[name] = time.perf_counter() - t0
            if seq is not None:
                # Resumed as after a crash before the rows were written: every answer comes
                # from calls.sqlite, and the record's looks and stops are the same.
                record_text = (root / name / "sequential.json").read_text()
                (root / name / "results.jsonl").unlink()
                again = asyncio.run(Runner(cfg).execute())
                same = (root / name / "sequential.json").read_text() == record_text
                print(f"resumed sequential run: {again.calls_made} calls made, {again.rows} of "
                      f"{first.rows} rows, the same stops: {same}")  # fmt: skip
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
        for j in judges:
            steps = record[j]["single-turn-emotions"]["steps"]
            settled = ", ".join(
                f"{k} {v['outcome']} at {v['items']}"
                for k, v in sorted(steps.items(), key=lambda kv: kv[1]["items"])
            )
            print(f"{j}: steps settled (items): {settled or 'none'}")
        print(f"\nwall time: full {took['full']:.1f} s, sequential {took['sequential']:.1f} s")
        if speech:
            _by_part(root / "full", judges)
    return 0


if __name__ == "__main__":
    sys.exit(main())
