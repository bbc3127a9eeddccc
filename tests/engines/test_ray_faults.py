"""Ray's own failures are one paraudit line and resumable (issue 19 item 8): the raylet, or the
whole local cluster, killed mid-run → exit 1, one error line naming what happened and the
command to resume; the rerun asks only the calls that were missing.

Each test runs `paraudit run --engine ray` in a child process (its own private Ray instance:
the processes killed are that instance's, never the shared test cluster's).
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the 'ray' extra is not installed")

SRC = Path(__file__).resolve().parents[2] / "src"
JUDGE = "builtin:first?delay=0.5"


def _descendants(pid: int) -> dict[int, str]:
    """pid → command line of every process below `pid` (read from /proc)."""
    children: dict[int, list[int]] = {}
    cmd: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out: dict[int, str] = {}
    todo = list(children.get(pid, []))
    while todo:
        p = todo.pop()
        out[p] = cmd.get(p, "")
        todo += children.get(p, [])
    return out


def _stored(run: Path) -> int:
    path = run / "calls.sqlite"
    if not path.exists():
        return 0
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        try:
            return int(db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])
        except sqlite3.Error:
            return 0


# Ray's own health check, faster than its default: a raylet is declared lost after 5 missed
# checks 3 s apart, 15 s during which the killed run kept answering and the test waited on Ray,
# not on paraudit. The child's Ray instance checks every second and gives up after 3 misses (a
# raylet busy for 3 s on a loaded machine is still not declared lost). The GCS reconnect wait
# keeps its default: set to 3 s, the cluster case's run ended (exit 1) with no error line.
FAST_HEALTH_CHECK = {
    "RAY_health_check_period_ms": "1000",
    "RAY_health_check_failure_threshold": "3",
}


def _run(ds: Path, out: Path, *extra: str, concurrency: int = 2) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        **FAST_HEALTH_CHECK,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "paraudit.cli.main", "run", str(ds), "--judge", JUDGE,
         "--out", str(out), "--probes", "J,P", "--concurrency", str(concurrency), *extra],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


@pytest.mark.parametrize("victim", ["raylet", "cluster"])
def test_a_lost_ray_node_is_one_line_and_resumes(
    victim: str, tiny_dataset: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    proc = _run(tiny_dataset, run, "--engine", "ray", "--no-ray-data", "--num-workers", "1")
    try:
        deadline = time.monotonic() + 240
        while _stored(run) < 3:  # mid-run: some answers stored, most still to come
            assert proc.poll() is None, proc.communicate()[0]
            assert time.monotonic() < deadline, "the run never got going"
            time.sleep(0.2)
        procs = _descendants(proc.pid)
        names = ("raylet",) if victim == "raylet" else ("raylet", "gcs_server", "ray::")
        killed = [p for p, c in procs.items() if any(n in c for n in names)]
        assert killed, procs
        for p in killed:
            os.kill(p, signal.SIGKILL)
        out, _ = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1, out
    assert "Traceback" not in out, out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, out
    assert "resume" in errors[0] and f"--judge '{JUDGE}'" in errors[0], out
    before = _stored(run)
    # The rerun (locally: the killed cluster is gone) asks only what is missing.
    # (More calls at once than the first run: only which calls are asked is checked here.)
    again = _run(tiny_dataset, run, concurrency=8)
    text, _ = again.communicate(timeout=300)
    assert again.returncode == 0, text
    rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    assert rows and {r["status"] for r in rows} == {"ok"}
    made = int(re.search(r"(\d+) judge calls made", text).group(1))  # type: ignore[union-attr]
    assert made == _stored(run) - before, text
