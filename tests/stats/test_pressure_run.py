"""The misleading cue end to end: known-behaviour judges through the real runner and the CLI.

builtin:prosody never reads a cue (the cue-ignorer); builtin:prosody?cues=obey takes the value a
misleading cue states as what it heard (the cue-follower). Same perception, same mapping: the
only difference between them is obedience, so only the follower may be named.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.summary import summarize
from tests.stats.pressure_sets import single_turn_set
from tests.stats.synthetic import stat_rows

PLAN = PlanSpec(("J",), ("pointwise",), ("none", "misleading"))


def test_cue_follower_is_named_and_cue_ignorer_is_not(tmp_path: Path) -> None:
    ds = single_turn_set(tmp_path / "ds", tmp_path / "src")
    judges = ["builtin:prosody", "builtin:prosody?cues=obey"]
    rows = asyncio.run(Runner(RunConfig(ds, judges, tmp_path / "run", PLAN)).run())
    assert len(rows) == 2 * 30 * 2 * 2 * 2  # judges × items × branches × orders × cues
    s = summarize(stat_rows(rows), replicates=1000)
    dom = {r["judge"]: r for r in s["text_dominance"]}
    verdicts = {v["judge"]: v for v in s["verdicts"]}
    ignorer, follower = dom["builtin:prosody"], dom["builtin:prosody?cues=obey"]
    # The ignorer's answers do not depend on the cue at all: pressure exactly 0.
    assert ignorer["pressure"]["rate"] == 0.0 and not ignorer["follows_text"]
    assert follower["dominance"]["rate"] > 0.9 and follower["follows_text"]
    kinds = {j: [b["kind"] for b in v["behaviours"]] for j, v in verdicts.items()}
    assert "follows the text against the audio" not in kinds["builtin:prosody"]
    assert "follows the text against the audio" in kinds["builtin:prosody?cues=obey"]
    # The misleading cue never stands in for the native answer, nor enters the pooled "all".
    assert verdicts["builtin:prosody?cues=obey"]["native"]["cue"] == "none"
    assert "follows the text against the audio" in verdicts["builtin:prosody?cues=obey"]["headline"]
    assert "follows the text" not in verdicts["builtin:prosody"]["headline"]
    acc = {(a["judge"], a["cue"]): a["accuracy"] for a in s["accuracy"] if a["probe"] == "J"}
    assert acc[("builtin:prosody?cues=obey", "all")] == acc[("builtin:prosody?cues=obey", "none")]
    assert acc[("builtin:prosody?cues=obey", "misleading")] < 0.1


def test_a_run_without_the_cue_has_no_pressure_section(tmp_path: Path) -> None:
    ds = single_turn_set(tmp_path / "ds", tmp_path / "src", n=4)
    plan = PlanSpec(("J",), ("pointwise",), ("none",))
    rows = asyncio.run(Runner(RunConfig(ds, ["builtin:prosody"], tmp_path / "run", plan)).run())
    # Every registered section is written; without the cue it holds no record.
    assert summarize(stat_rows(rows), replicates=200)["text_dominance"] == []


def test_dry_run_counts_the_misleading_questions(tmp_path: Path) -> None:
    ds = single_turn_set(tmp_path / "ds", tmp_path / "src", n=4)
    counts = {}
    for cues in ("none", "none,misleading"):
        res = CliRunner().invoke(app, ["run", str(ds), "--judge", "builtin:random", "--out",
                                       str(tmp_path / cues), "--probes", "J", "--protocols",
                                       "pointwise", "--cues", cues, "--dry-run"])  # fmt: skip
        assert res.exit_code == 0, res.output
        line = next(x for x in res.output.splitlines() if x.startswith("instances"))
        counts[cues] = int(line.split(":")[1].split()[0].replace(",", ""))
    assert counts == {"none": 16, "none,misleading": 32}


def test_a_dataset_that_cannot_state_the_other_value_is_refused(tiny_dataset: Path) -> None:
    # Keep only the positional item: its branches change value within the conversation.
    items = tiny_dataset / "items.jsonl"
    lines = [x for x in items.read_text().splitlines() if json.loads(x)["id"] == "pos-1"]
    items.write_text("\n".join(lines) + "\n")
    manifest = json.loads((tiny_dataset / "dataset.json").read_text())
    manifest["tasks"] = ["positional-emotion"]
    (tiny_dataset / "dataset.json").write_text(json.dumps(manifest))
    out = tiny_dataset.parent / "run"
    res = CliRunner().invoke(app, ["run", str(tiny_dataset), "--judge", "builtin:random",
                                   "--out", str(out), "--cues", "none,misleading"])  # fmt: skip
    assert res.exit_code == 2
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert lines[0].startswith("error: no item of") and "misleading" in lines[0]
    assert "Traceback" not in res.output and not (out / "calls.sqlite").exists()
