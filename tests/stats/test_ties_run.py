"""The ties preset end to end: a judge that never abstains and one that always abstains,
through the real runner and the CLI, each get the verdict their behaviour implies."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.summary import summarize
from tests.stats.pressure_sets import single_turn_set, whisper_set
from tests.stats.synthetic import stat_rows


def test_never_and_always_abstaining_judges_get_their_verdicts(tmp_path: Path) -> None:
    ds = single_turn_set(tmp_path / "ds", tmp_path / "src", n=30, ties=12)
    plan = PlanSpec(("J",), ("pointwise",), ("none",), prompts="ties")
    judges = ["builtin:prosody", "builtin:abstain"]
    rows = asyncio.run(Runner(RunConfig(ds, judges, tmp_path / "run", plan)).run())
    assert len(rows) == 2 * 42 * 4
    s = summarize(stat_rows(rows), replicates=1000)
    ties = {r["judge"]: r for r in s["ties"]}
    never, always = ties["builtin:prosody"], ties["builtin:abstain"]
    assert never["tie_items"] == 12 and never["tie_accuracy"]["rate"] == 0.0
    assert never["abstain_rate"]["rate"] == 0.0 and never["never_abstains"]
    assert not never["always_abstains"]
    assert always["tie_accuracy"]["rate"] == 1.0 and always["abstain_rate"]["rate"] == 1.0
    assert always["always_abstains"] and not always["never_abstains"]
    # Saying "tie" blindly (never or always) tells the two kinds of item apart no better.
    assert never["calibration"]["rate"] == 0.0 == always["calibration"]["rate"]
    kinds = {v["judge"]: [b["kind"] for b in v["behaviours"]] for v in s["verdicts"]}
    assert "never says there is no difference" in kinds["builtin:prosody"]
    assert "abstains where the audio decides" not in kinds["builtin:prosody"]
    assert "abstains where the audio decides" in kinds["builtin:abstain"]
    assert "never says there is no difference" not in kinds["builtin:abstain"]
    # Tie items stay out of the native figures: abstaining on the others is not right.
    native = {v["judge"]: v["native"]["evidence"]["J"] for v in s["verdicts"]}
    assert native["builtin:abstain"]["rate"] == 0.0 and native["builtin:abstain"]["items"] == 30
    run_json = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run_json["spec"]["prompts"] == "ties"


def test_dry_run_counts_the_tie_questions_and_a_bad_preset_is_refused(tmp_path: Path) -> None:
    ds = single_turn_set(tmp_path / "ds", tmp_path / "src", n=3, ties=2)
    counts = {}
    for preset in ("paper", "ties"):
        res = CliRunner().invoke(app, ["run", str(ds), "--judge", "builtin:random", "--out",
                                       str(tmp_path / preset), "--probes", "J", "--protocols",
                                       "pointwise", "--cues", "none", "--prompts", preset,
                                       "--dry-run"])  # fmt: skip
        assert res.exit_code == 0, res.output
        line = next(x for x in res.output.splitlines() if x.startswith("instances"))
        counts[preset] = int(line.split(":")[1].split()[0].replace(",", ""))
    assert counts == {"paper": 12, "ties": 20}
    res = CliRunner().invoke(app, ["run", str(ds), "--judge", "builtin:random", "--out",
                                   str(tmp_path / "bad"), "--prompts", "tie"])  # fmt: skip
    assert res.exit_code == 2 and res.output.startswith("error: unknown --prompts 'tie'")
    assert not (tmp_path / "bad").exists()


def test_pairwise_ties_get_their_own_record_and_verdicts(tmp_path: Path) -> None:
    ds = single_turn_set(tmp_path / "ds", tmp_path / "src", n=12, ties=6)
    plan = PlanSpec(("J",), ("pointwise", "pairwise"), ("none",), prompts="ties")
    judges = ["builtin:prosody", "builtin:abstain"]
    rows = asyncio.run(Runner(RunConfig(ds, judges, tmp_path / "run", plan)).run())
    # Tie items are asked pairwise too under the preset (both context orders × both orders).
    assert sum(1 for r in rows if r["protocol"] == "pairwise" and r["gold"] == "tie") == 2 * 6 * 4
    s = summarize(stat_rows(rows), replicates=500)
    ties = {(r["judge"], r["protocol"]): r for r in s["ties"]}
    assert set(ties) == {(j, p) for j in judges for p in ("pointwise", "pairwise")}
    never, always = ties[("builtin:prosody", "pairwise")], ties[("builtin:abstain", "pairwise")]
    assert never["tie_items"] == 6 and never["tie_accuracy"]["rate"] == 0.0
    assert never["never_abstains"] and not never["always_abstains"]
    assert always["tie_accuracy"]["rate"] == 1.0 and always["abstain_rate"]["rate"] == 1.0
    assert always["always_abstains"] and always["calibration"]["rate"] == 0.0
    texts = {v["judge"]: [b["text"] for b in v["behaviours"]] for v in s["verdicts"]}
    assert any("of pairwise answers about tie items" in t for t in texts["builtin:prosody"])
    assert any("of pairwise answers about items that differ" in t
               for t in texts["builtin:abstain"])  # fmt: skip


def test_dry_run_counts_the_pairwise_tie_questions(tmp_path: Path) -> None:
    ds = single_turn_set(tmp_path / "ds", tmp_path / "src", n=3, ties=2)
    counts = {}
    for preset in ("paper", "ties"):
        res = CliRunner().invoke(app, ["run", str(ds), "--judge", "builtin:random", "--out",
                                       str(tmp_path / preset), "--probes", "J", "--protocols",
                                       "pairwise", "--cues", "none", "--prompts", preset,
                                       "--dry-run"])  # fmt: skip
        assert res.exit_code == 0, res.output
        line = next(x for x in res.output.splitlines() if x.startswith("instances"))
        counts[preset] = int(line.split(":")[1].split()[0].replace(",", ""))
    assert counts == {"paper": 12, "ties": 20}


def test_a_non_emotion_dimension_counts_and_runs_the_new_questions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whisper: the misleading cue and the ties preset's questions (pointwise and pairwise, tie
    items included) are counted and priced by --dry-run, and run through the real runner."""
    ds = whisper_set(tmp_path / "ds", tmp_path / "src", n=4, ties=2)
    monkeypatch.setenv("OPENAI_API_KEY", "dry-run-only")
    seen = {}
    for name, extra in (("plain", ["--cues", "none"]),
                        ("new", ["--cues", "none,misleading", "--prompts", "ties"])):  # fmt: skip
        res = CliRunner().invoke(app, ["run", str(ds), "--judge", "builtin:random", "--judge",
                                       "openai:gpt-4o-audio-preview", "--out",
                                       str(tmp_path / name), "--probes", "J", "--protocols",
                                       "pointwise,pairwise", *extra, "--dry-run"])  # fmt: skip
        assert res.exit_code == 0, res.output
        lines = res.output.splitlines()
        count = next(x for x in lines if x.startswith("instances"))
        cost = next(x for x in lines if x.startswith("estimated cost openai"))
        seen[name] = (int(count.split(":")[1]), float(cost.split("$")[1].split()[0]))
        assert not (tmp_path / name).exists()
    # 4 items × (4 pointwise + 4 pairwise) without; with: + 4 misleading per item, and the
    # 2 tie items × (4 pointwise + 4 pairwise) that only the ties preset asks.
    assert seen["plain"][0] == 32 and seen["new"][0] == 32 + 16 + 16
    assert seen["new"][1] > seen["plain"][1] > 0
    plan = PlanSpec(("J",), ("pointwise", "pairwise"), ("none",), prompts="ties")
    rows = asyncio.run(Runner(RunConfig(ds, ["builtin:abstain"], tmp_path / "run", plan)).run())
    s = summarize(stat_rows(rows), replicates=200)
    assert {(r["task"], r["protocol"]) for r in s["ties"]} == {
        ("single-turn-whisper", "pointwise"), ("single-turn-whisper", "pairwise")}  # fmt: skip
    assert all(r["tie_accuracy"]["rate"] == 1.0 for r in s["ties"])
