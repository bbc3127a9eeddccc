"""`--engine ray` through the real CLI on the shared local Ray cluster: `judges`, `--dry-run`
and a run."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from paraudit.cli.main import app
from tests.engines.audits import rows_without_latency as _rows

runner = CliRunner()


def _cli(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert "Traceback" not in r.output, r.output
    return r.exit_code, r.output


def test_run_on_ray_writes_the_run_folder(
    ray_cluster: Any, tiny_dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    args = ["run", str(tiny_dataset), "--judge", "builtin:first", "--out", str(out)]
    code, text = _cli(*args, "--probes", "J", "--engine", "ray", "--num-workers", "2")
    assert code == 0, text
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert rows and {r["pred"] for r in rows if isinstance(r["pred"], str)} == {"R1"}
    engine = json.loads((out / "run.json").read_text())["judge_details"][0]["engine"]
    assert engine == {
        "name": "ray",
        "num_workers": 2,
        "gpus_per_worker": 0.0,
        "cpus_per_worker": 1.0,
        "ray_data": True,
    }
    # --no-ray-data: every call through the judge's actor pool; the same rows.
    again = tmp_path / "pool"
    args[-1] = str(again)
    code, text = _cli(*args, "--probes", "J", "--engine", "ray", "--no-ray-data")
    assert code == 0, text
    assert _rows(again) == _rows(out)
    details = json.loads((again / "run.json").read_text())["judge_details"][0]
    assert details["engine"]["ray_data"] is False


def test_dry_run_on_ray_shows_the_cluster_and_a_calibrated_wall_time(
    ray_cluster: Any, tiny_dataset: Path, tmp_path: Path
) -> None:
    code, out = _cli(
        "run",
        str(tiny_dataset),
        "--judge",
        "builtin:random?delay=0.2",
        "--out",
        str(tmp_path / "r"),
        "--probes",
        "J,O",
        "--engine",
        "ray",
        "--num-workers",
        "2",
        "--concurrency",
        "2",
        "--dry-run",
    )
    assert code == 0, out
    assert "Ray cluster: 1 node(s), 2 CPUs, 0 GPUs" in out
    assert "the cluster holds 2 such workers" in out
    assert "calls: each judge's unanswered calls as a Ray Dataset" in out
    found = re.search(
        r"estimated wall time builtin:random\?delay=0.2: ([\d.,]+) s .*?(\d+) calls ×"
        r" ([\d.]+) s",
        out,
    )
    assert found, out
    wall, calls, per_call = float(found[1].replace(",", "")), int(found[2]), float(found[3])
    # Two workers answer 0.2 s calls two at a time: about 0.1 s per call, not 0.2 or 0.
    assert 0.08 <= per_call <= 0.18
    assert wall >= calls * per_call
    assert not (tmp_path / "r" / "calls.sqlite").exists()  # a dry run stores nothing


def test_judges_command_shows_the_cluster(ray_cluster: Any) -> None:
    code, out = _cli("judges", "--engine", "ray")
    assert code == 0 and "Ray cluster: 1 node(s), 2 CPUs" in out


def test_a_pool_no_node_can_hold_is_refused_before_any_call(
    ray_cluster: Any, tiny_dataset: Path, tmp_path: Path
) -> None:
    code, out = _cli(
        "run",
        str(tiny_dataset),
        "--judge",
        "builtin:random",
        "--out",
        str(tmp_path / "r"),
        "--engine",
        "ray",
        "--gpus-per-worker",
        "1",
    )
    assert code == 1
    assert "no Ray node has 1 CPU(s) and 1 GPU(s) free for one worker" in out
    assert not (tmp_path / "r" / "results.jsonl").exists()


def test_a_ray_run_parses_each_spec_once_and_workers_take_the_object(
    ray_cluster: Any, tiny_dataset: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    import paraudit.judges.spec as judge_spec
    from paraudit.engines.ray_data import BulkCaller
    from paraudit.engines.ray_worker import JudgeWorker
    from paraudit.runner.asking import BulkSettings
    from paraudit.runner.calls import RetryPolicy
    from tests.cli.test_run_spec_once import count_parses

    s = judge_spec.parse_judge_spec("builtin:first")  # before counting starts
    seen = count_parses(monkeypatch)
    out = tmp_path / "r"
    args = ["run", str(tiny_dataset), "--judge", "builtin:first", "--out", str(out)]
    # The actor pool (a second Ray Data pass through the CLI in one process trips over Ray's
    # logging, which keeps the first CliRunner's closed stream); BulkCaller is checked below.
    code, text = _cli(*args, "--probes", "J", "--cues", "none", "--engine", "ray", "--no-ray-data")
    assert code == 0, text
    assert seen == ["builtin:first"]  # the CLI's; the Ray proxy re-parses nothing
    # The workers (in other processes) are handed the JudgeSpec object: built here from one,
    # they parse nothing either.
    seen.clear()
    assert asyncio.run(JudgeWorker(s, tiny_dataset).ready()) > 0
    caller = BulkCaller(s, None, BulkSettings(1, RetryPolicy(), 0))
    caller.loop.close()
    assert seen == []
