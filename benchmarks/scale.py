"""Flat memory at scale: a large audit's run, resume and report, against a baseline revision.

Run from the repository root:
    PYTHONPATH=src:. .venv/bin/python benchmarks/scale.py --rows 1000000 [--baseline-rows N]
        [--baseline-rev 73e3bc3 | --baseline-src PATH] [--starter PATH] [--work DIR]
        [--json PATH]

What it does:
  1. builds the starter set (or reuses --starter PATH) and writes a scaled dataset whose
     items.jsonl repeats the starter's items K times under new ids (`{id}-{k:04d}`), audio copied
     in (a dataset may only use clips inside its own folder). K is chosen from a calibration
     audit of one copy, so the audit below has about --rows result rows;
  2. audits it with four built-in judges (random, first, transcript, prosody), all probes, both
     protocols and all cues at concurrency 64; runs the same command again on the finished
     folder (the resume of a finished audit: it must make no judge call); then `paraudit report`;
  3. measures each of those three steps as its own process (`python -m paraudit.cli.main`, with
     PYTHONPATH set to the code under test): wall seconds and the peak RSS of that process
     (its VmHWM, written at exit by a small wrapper; `os.wait4`'s ru_maxrss where /proc is
     missing, which counts the forked copy of this process too);
  4. does the same with the baseline code (`git archive REV src`, run with the same Python) on a
     dataset of --baseline-rows rows (the same dataset when the row counts agree);
  5. prints new/baseline ratios, checks the issue's targets on the new code (run peak < 400 MB,
     report peak < 800 MB, resume of the finished audit < 10 s), checks that the resume made no
     judge call (calls.sqlite) and left the rows as they were, and that new and baseline runs
     hold the same rows (the rows of the item copies both audited). Exits 1 if any check fails.

MB here are MiB (ru_maxrss KiB / 1024). The row counts of both sides are printed: when
--baseline-rows is smaller, the ratios compare audits of different sizes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.revision import REPO, extract

JUDGES = ("builtin:random", "builtin:first", "builtin:transcript", "builtin:prosody")
CONCURRENCY = 64
STEPS = ("run", "resume", "report")
TARGETS = (("run", "peak_mb", 400.0), ("report", "peak_mb", 800.0), ("resume", "seconds", 10.0))
# The fields that make a result row what it is (not its latency, raw text or cache key).
ROW_FIELDS = (
    "judge",
    "item_id",
    "probe",
    "protocol",
    "cue",
    "branch",
    "order",
    "context_order",
    "pred",
    "status",
)
CALLS_MADE = re.compile(r"(\d+) judge calls made")


@dataclass(frozen=True)
class Measured:
    """One step run as its own process."""

    seconds: float
    peak_mb: float
    rows: int
    calls_printed: int | None
    """The "N judge calls made" the run printed, if it printed that line."""


@dataclass(frozen=True)
class RowDigest:
    """An order-free fingerprint of a multiset of rows: count and sum of row hashes."""

    rows: int
    digest: str


@dataclass(frozen=True)
class Side:
    """The audit of one code version: its steps, the resume's judge calls, its rows."""

    src: str
    rows: int
    copies: int
    steps: dict[str, Measured]
    resume_calls: int
    resume_kept_rows: bool
    shared: RowDigest
    """The rows of the item copies both sides audited."""


# Runs `python -m MODULE ARGS` and, at exit, writes the process's VmHWM (peak RSS of the program
# itself) to $SCALE_BENCH_HWM. ru_maxrss is not used for this: it keeps the high-water mark of the
# forked copy of *this* process from before exec, so a large parent (pytest) would set a floor.
HWM_WRAPPER = """
import atexit, os, runpy, sys
def _hwm():
    with open("/proc/self/status") as f:
        kb = next((l.split()[1] for l in f if l.startswith("VmHWM:")), "")
    with open(os.environ["SCALE_BENCH_HWM"], "w") as f:
        f.write(kb)
atexit.register(_hwm)
module, sys.argv = sys.argv[1], sys.argv[1:]
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def measure(cmd: list[str], src: Path, log: Path) -> tuple[float, float, str]:
    """Run `cmd` with PYTHONPATH=src: wall seconds, peak RSS in MiB, and its output."""
    hwm = log.with_suffix(".hwm")
    hwm.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(src),
        "COLUMNS": "100",
        "SCALE_BENCH_HWM": str(hwm),
    }
    if cmd[1] == "-m" and Path("/proc/self/status").exists():
        cmd = [cmd[0], "-c", HWM_WRAPPER, *cmd[2:]]
    with log.open("w") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
        # wait4 reaps the child and gives its own rusage (not the sum of all our children).
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
    text = log.read_text()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}); its output:\n{text}")
    kb = hwm.read_text().strip() if hwm.exists() else ""
    return seconds, (int(kb) if kb.isdigit() else usage.ru_maxrss) / 1024, text


def check_imports(src: Path, log: Path) -> None:
    """The child must import paraudit from `src`, not from an installed copy."""
    probe = [sys.executable, "-c", "import paraudit; print(paraudit.__file__)"]
    _, _, text = measure(probe, src, log)
    if not Path(text.strip()).resolve().is_relative_to(src.resolve()):
        raise SystemExit(f"PYTHONPATH={src} imports paraudit from {text.strip()}, not from {src}")


def scaled_dataset(starter: Path, copies: int, out: Path) -> Path:
    """The starter's items repeated `copies` times under new ids, with its audio copied in."""
    out.mkdir(parents=True)
    shutil.copytree(starter / "audio", out / "audio")
    shutil.copy(starter / "dataset.json", out / "dataset.json")
    lines = (starter / "items.jsonl").read_text().splitlines()
    with (out / "items.jsonl").open("w") as f:
        for k in range(copies):
            for line in lines:
                item = json.loads(line)
                item["id"] = f"{item['id']}-{k:04d}"
                f.write(json.dumps(item) + "\n")
    return out


def run_cmd(dataset: Path, out: Path) -> list[str]:
    cmd = [sys.executable, "-m", "paraudit.cli.main", "run", str(dataset), "--out", str(out)]
    for judge in JUDGES:
        cmd += ["--judge", judge]
    return [*cmd, "--concurrency", str(CONCURRENCY)]


def copies_of(n: int) -> str:
    return f"{n} {'copy' if n == 1 else 'copies'} of the starter set"


def copy_index(item_id: str) -> int:
    return int(item_id.rsplit("-", 1)[1])


def row_digests(results: Path, shared_copies: int) -> tuple[RowDigest, RowDigest]:
    """Fingerprints of all rows and of those of item copies < shared_copies, in one pass."""
    if not results.is_file():
        raise SystemExit(f"{results} is missing: the benchmark compares runs' results.jsonl")
    count = shared = 0
    total = shared_sum = 0
    with results.open() as f:
        for line in f:
            row = json.loads(line)
            key = json.dumps({k: row.get(k) for k in ROW_FIELDS}, sort_keys=True)
            h = int.from_bytes(hashlib.sha256(key.encode()).digest(), "big")
            count, total = count + 1, total + h
            if copy_index(row["item_id"]) < shared_copies:
                shared, shared_sum = shared + 1, shared_sum + h
    mod = 1 << 256
    return RowDigest(count, f"{total % mod:064x}"), RowDigest(shared, f"{shared_sum % mod:064x}")


def calls_stored(store: Path, since: float = 0.0) -> int:
    """Calls in calls.sqlite (finished at or after `since`, a Unix time)."""
    with sqlite3.connect(store) as db:
        (n,) = db.execute("SELECT count(*) FROM calls WHERE finished_at >= ?", (since,)).fetchone()
    return int(n)


def audit(src: Path, dataset: Path, copies: int, shared_copies: int, work: Path) -> Side:
    """Run, resume and report one audit with the code in `src`."""
    check_imports(src, work / "imports.log")
    run_dir, report_dir = work / "run", work / "report"
    steps: dict[str, Measured] = {}
    results = run_dir / "results.jsonl"

    def step(name: str, cmd: list[str]) -> None:
        seconds, peak, text = measure(cmd, src, work / f"{name}.log")
        printed = CALLS_MADE.search(text)
        rows = sum(1 for _ in results.open()) if results.is_file() else 0
        steps[name] = Measured(seconds, peak, rows, int(printed[1]) if printed else None)
        print(f"  {name}: {seconds:.1f} s, peak {peak:.0f} MB, {rows:,} rows", flush=True)

    step("run", run_cmd(dataset, run_dir))
    after_run, _ = row_digests(results, shared_copies)
    stored, resumed_at = calls_stored(run_dir / "calls.sqlite"), time.time()
    step("resume", run_cmd(dataset, run_dir))
    made = calls_stored(run_dir / "calls.sqlite", resumed_at)
    grown = calls_stored(run_dir / "calls.sqlite") - stored
    printed = steps["resume"].calls_printed
    after_resume, shared = row_digests(results, shared_copies)
    report = [sys.executable, "-m", "paraudit.cli.main", "report", str(run_dir)]
    step("report", [*report, "--out", str(report_dir)])
    return Side(
        str(src),
        after_resume.rows,
        copies,
        steps,
        max(made, grown, printed or 0),
        after_run == after_resume,
        shared,
    )


def rows_per_copy(starter: Path, src: Path, work: Path) -> int:
    """Result rows of one copy of the starter: the audit itself (Staging asks one question
    per parsed P answer, so the plan alone does not say)."""
    work.mkdir(parents=True)
    measure(run_cmd(starter, work / "run"), src, work / "run.log")
    return sum(1 for _ in (work / "run" / "results.jsonl").open())


def baseline_src(rev: str, work: Path) -> Path:
    """`git archive REV src` extracted under `work`."""
    return extract(rev, work, "src") / "src"


def table(new: Side, base: Side) -> list[str]:
    head = (
        f"{'step':<7} {'rows (base / new)':>21} {'base s':>8} {'new s':>8} {'ratio':>6} "
        f"{'base MB':>8} {'new MB':>8} {'ratio':>6}"
    )
    lines = [head, "-" * len(head)]
    for name in STEPS:
        b, n = base.steps[name], new.steps[name]
        lines.append(
            f"{name:<7} {f'{b.rows:,} / {n.rows:,}':>21} {b.seconds:>8.1f} {n.seconds:>8.1f} "
            f"{n.seconds / b.seconds:>6.2f} {b.peak_mb:>8.0f} {n.peak_mb:>8.0f} "
            f"{n.peak_mb / b.peak_mb:>6.2f}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--rows", type=int, default=1_000_000, help="Result rows of the new audit.")
    ap.add_argument("--baseline-rows", type=int, help="Rows of the baseline audit (= --rows).")
    ap.add_argument("--baseline-rev", default="73e3bc3", help="Git revision of the baseline.")
    ap.add_argument("--baseline-src", type=Path, help="A src folder to use as the baseline.")
    ap.add_argument("--new-src", type=Path, default=REPO / "src", help="The code under test.")
    ap.add_argument("--starter", type=Path, help="A built starter set (else built here).")
    ap.add_argument("--work", type=Path, help="Keep everything in this (new) folder.")
    ap.add_argument("--json", type=Path, help="Also write the figures here as JSON.")
    args = ap.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="paraudit-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        return bench(args, work)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


def bench(args: argparse.Namespace, work: Path) -> int:
    new_src: Path = args.new_src.resolve()
    starter: Path | None = args.starter
    if starter is None:
        from paraudit.compose.starter import build_starter

        starter = work / "starter"
        print(f"building the starter set in {starter} …", flush=True)
        build_starter(starter)
    per_copy = rows_per_copy(starter, new_src, work / "calibration")
    copies = max(1, round(args.rows / per_copy))
    base_copies = max(1, round((args.baseline_rows or args.rows) / per_copy))
    shared_copies = min(copies, base_copies)
    print(f"{per_copy:,} rows per copy of the starter set ({starter})", flush=True)
    dataset = scaled_dataset(starter, copies, work / f"dataset-{copies}")
    base_dataset = (
        dataset
        if base_copies == copies
        else scaled_dataset(starter, base_copies, work / f"dataset-{base_copies}")
    )
    base_src = (
        args.baseline_src.resolve()
        if args.baseline_src
        else baseline_src(args.baseline_rev, work / "baseline-code")
    )
    base_name = str(args.baseline_src) if args.baseline_src else f"git {args.baseline_rev}"
    print(f"baseline ({base_name}): {copies_of(base_copies)}", flush=True)
    (work / "baseline").mkdir()
    base = audit(base_src, base_dataset, base_copies, shared_copies, work / "baseline")
    print(f"new ({new_src}): {copies_of(copies)}", flush=True)
    (work / "new").mkdir()
    new = audit(new_src, dataset, copies, shared_copies, work / "new")

    load = os.getloadavg()[0]
    print(
        f"\n{len(JUDGES)} built-in judges, all probes, concurrency {CONCURRENCY}; "
        f"load {load:.1f} on {os.cpu_count()} cores; MB = MiB of peak RSS"
    )
    print("\n".join(table(new, base)))
    if base.rows != new.rows:
        print(
            f"note: the baseline audited {base.rows:,} rows and the new code {new.rows:,}; the "
            "ratios compare those absolute figures"
        )
    checks: list[dict[str, Any]] = []
    for name, figure, limit in TARGETS:
        value = getattr(new.steps[name], figure)
        unit = "MB peak" if figure == "peak_mb" else "s"
        checks.append(
            {"check": f"{name} < {limit:g} {unit}", "value": round(value, 2), "pass": value < limit}
        )
    checks.append(
        {
            "check": "resume made no judge call",
            "value": new.resume_calls,
            "pass": not new.resume_calls,
        }
    )
    checks.append(
        {
            "check": "resume left the rows unchanged",
            "value": new.resume_kept_rows,
            "pass": new.resume_kept_rows,
        }
    )
    same = new.shared == base.shared
    checks.append(
        {
            "check": f"rows identical to the baseline ({new.shared.rows:,} rows of "
            f"{shared_copies} shared copies)",
            "value": same,
            "pass": same,
        }
    )
    print(f"\nchecks on the new code ({new.rows:,} rows):")
    for c in checks:
        print(f"  {'PASS' if c['pass'] else 'FAIL'}  {c['check']}: {c['value']}")
    print(f"rows identical: {'yes' if same else 'no'}")
    if args.json:
        figures = {
            "rows_per_copy": per_copy,
            "judges": list(JUDGES),
            "concurrency": CONCURRENCY,
            "load": load,
            "cores": os.cpu_count(),
            "baseline": {"name": base_name, **asdict(base)},
            "new": asdict(new),
            "ratios": {
                name: {
                    "seconds": new.steps[name].seconds / base.steps[name].seconds,
                    "peak_mb": new.steps[name].peak_mb / base.steps[name].peak_mb,
                }
                for name in STEPS
            },
            "checks": checks,
        }
        args.json.write_text(json.dumps(figures, indent=2, default=str) + "\n")
    return 0 if all(c["pass"] for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
