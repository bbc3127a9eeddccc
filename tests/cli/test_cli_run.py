"""`paraudit run`, `judges` and `demo` through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.stats.accuracy import read_results, summary_table

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert "Traceback" not in r.output, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def test_dry_run_prints_plan_size(starter_small: Path, tmp_path: Path) -> None:
    code, out = _run(
        "run",
        str(starter_small),
        "--judge",
        "builtin:random",
        "--out",
        str(tmp_path / "r"),
        "--dry-run",
    )
    assert code == 0 and "instances_per_judge" in out and "audio_seconds_per_judge" in out
    assert not (tmp_path / "r" / "results.jsonl").exists()


def test_bad_probe_and_judge_typo(starter_small: Path, tmp_path: Path) -> None:
    code, out = _run(
        "run",
        str(starter_small),
        "--judge",
        "builtin:random",
        "--out",
        str(tmp_path / "r"),
        "--probes",
        "J,X",
    )
    assert code == 1 and "unknown probe 'X'" in out
    code, out = _run(
        "run", str(starter_small), "--judge", "builtin:frist", "--out", str(tmp_path / "r")
    )
    assert code == 1 and "did you mean 'first'" in out


def test_judges_lists_backends() -> None:
    code, out = _run("judges")
    assert code == 0 and "builtin:prosody" in out


def test_run_writes_results_and_spec(starter_small: Path, tmp_path: Path) -> None:
    code, out = _run(
        "run",
        str(starter_small),
        "--judge",
        "builtin:first",
        "--out",
        str(tmp_path / "r"),
        "--orders",
        "one",
    )
    assert code == 0, out
    spec = json.loads((tmp_path / "r" / "run.json").read_text())
    assert spec["judges"] == ["builtin:first"] and spec["plan"]["orders"] == "one"
    rows = read_results(tmp_path / "r")
    need = {
        "judge",
        "task",
        "item_id",
        "branch",
        "probe",
        "protocol",
        "cue",
        "order",
        "pred",
        "gold",
        "status",
        "correct",
        "raw",
        "latency_s",
        "attempts",
    }
    assert need <= set(rows[0])


def test_demo_meets_its_done_criteria(tmp_path: Path, render_cache: Path) -> None:
    """The README's main job, in full: every starter item, four judges, every probe and cue."""
    code, out = _run("demo", "--out", str(tmp_path / "demo"), "--cache", str(render_cache))
    assert code == 0, out
    assert "diagnostic report" in out and (tmp_path / "demo" / "report" / "report.html").is_file()
    rows = read_results(tmp_path / "demo" / "run")
    table = summary_table(rows)
    assert all(c["unparsed_rate"] == 0 and c["errors"] == 0 for c in table)
    transcript = [
        c
        for c in table
        if c["judge"] == "builtin:transcript" and c["probe"] == "J" and c["protocol"] == "pointwise"
    ]
    assert transcript and all(c["ci_low"] <= 0.5 <= c["ci_high"] for c in transcript)
    first = [
        r["pred"] for r in rows if r["judge"] == "builtin:first" and isinstance(r["pred"], str)
    ]
    assert set(first) == {"R1"}
    prosody_p = next(
        c
        for c in table
        if c["judge"] == "builtin:prosody"
        and c["probe"] == "P"
        and c["task"] == "single-turn-emotions"
    )
    assert prosody_p["accuracy"] >= 0.85
    summary = json.loads((tmp_path / "demo" / "report" / "summary.json").read_text())
    # The transcript control is reported as what it can measure, never as an accuracy.
    for t in summary["transcript_control"]:
        assert {"order_consistency", "prefers_branch_0", "j_t_agreement"} <= set(t)
    assert "must sit near 50" not in (tmp_path / "demo" / "report" / "report.html").read_text()
    verdicts = {(v["judge"], v["task"]): v for v in summary["verdicts"]}
    # No judge at chance gets a component verdict; the judges without skill are at chance.
    assert all(v["group"] is None for v in verdicts.values() if v["kind"] == "at chance")
    for judge in ("builtin:random", "builtin:first", "builtin:transcript"):
        for task in ("single-turn-emotions", "positional-emotion"):
            assert verdicts[(judge, task)]["kind"] == "at chance", verdicts[(judge, task)]["text"]
    # The prosody judge hears the single-turn cue: a state verdict, not "at chance".
    prosody = verdicts[("builtin:prosody", "single-turn-emotions")]
    assert prosody["kind"] == "state" and prosody["j_accuracy"]["ci_low"] > 0.5, prosody["text"]
