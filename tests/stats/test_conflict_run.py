"""Word–tone conflict items end to end: known-behaviour judges through the real runner and the
CLI, the offline starter's conflict items, and the refusals.

builtin:prosody?words=follow takes the value the user's words read as (the text-sentiment
follower); plain builtin:prosody measures the clip (the audio follower). Same mapping from value
to response: the only difference is what they read the value from, so only the follower may be
named; random and first must not be either.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.items.dataset import load_dataset
from paraudit.items.validate import validate_dataset
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.strata_items import read_attributes
from paraudit.stats.summary import summarize
from tests.stats.pressure_sets import conflict_set
from tests.stats.synthetic import stat_rows

KIND = "follows the words against the voice"
FOLLOWER = "builtin:prosody?words=follow"


def test_the_text_sentiment_follower_is_named_and_no_other_judge_is(tmp_path: Path) -> None:
    ds = conflict_set(tmp_path / "ds", tmp_path / "src")
    judges = ["builtin:prosody", FOLLOWER, "builtin:random", "builtin:first"]
    plan = PlanSpec(("J",), ("pointwise",), ("none",))
    run = tmp_path / "run"
    rows = asyncio.run(Runner(RunConfig(ds, judges, run, plan)).run())
    assert len(rows) == 4 * 16 * 2 * 2  # judges × items × branches × orders
    s = summarize(stat_rows(rows), replicates=1000, attributes=read_attributes([run]))
    rec = {r["judge"]: r for r in s["conflict"]}
    assert set(rec) == set(judges) and all(r["items"] == 16 for r in rec.values())
    follower, listener = rec[FOLLOWER], rec["builtin:prosody"]
    assert follower["congruent"]["rate"] == 1.0 and follower["conflict"]["rate"] == 0.0
    assert follower["follows_words"] and follower["gap"]["decision_high"] < -0.1
    # The audio follower hears every clip right here: no gap at all.
    assert listener["congruent"]["rate"] == listener["conflict"]["rate"] == 1.0
    first = rec["builtin:first"]
    assert first["congruent"]["rate"] == first["conflict"]["rate"] == 0.5
    kinds = {v["judge"]: [b["kind"] for b in v["behaviours"]] for v in s["verdicts"]}
    assert KIND in kinds[FOLLOWER]
    assert all(KIND not in kinds[j] for j in judges if j != FOLLOWER)
    # The report reads the run's dataset for the items' attributes, as the summary above did.
    res = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "rep"),
                                   "--replicates", "200"])  # fmt: skip
    assert res.exit_code == 0, res.output
    md = (tmp_path / "rep" / "summary.md").read_text()
    assert "## Word–tone conflict: the words against the voice" in md
    assert f"| {FOLLOWER} | single-turn-emotions | 16 | 100.0%" in md
    assert 'id="conflict"' in (tmp_path / "rep" / "report.html").read_text()


def test_a_run_without_conflict_items_has_no_conflict_section(tmp_path: Path) -> None:
    from tests.stats.pressure_sets import single_turn_set

    ds = single_turn_set(tmp_path / "ds", tmp_path / "src", n=4)
    plan = PlanSpec(("J",), ("pointwise",), ("none",))
    run = tmp_path / "run"
    rows = asyncio.run(Runner(RunConfig(ds, ["builtin:prosody"], run, plan)).run())
    s = summarize(stat_rows(rows), replicates=200, attributes=read_attributes([run]))
    assert s["conflict"] == []


def test_declared_conflict_items_whose_words_agree_with_the_voice_are_refused(
    tmp_path: Path,
) -> None:
    ds = conflict_set(tmp_path / "ds", tmp_path / "src", n=4, agree=1)
    (problem,) = [p for p in validate_dataset(ds) if p.is_error]
    assert problem.field == "meta.conflict" and "words and voice agree" in problem.message
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["run", str(ds), "--judge", "builtin:random", "--out",
                                   str(out), "--probes", "J"])  # fmt: skip
    assert res.exit_code == 2, res.output
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "words and voice agree" in lines[0]
    assert "drop meta.conflict or rebuild it" in lines[0] and "no judge was called" in lines[0]
    assert not out.exists()


def test_conflict_is_refused_where_no_builder_makes_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    source = str(tmp_path / "in.csv")
    for args in (["build", "starter", "--dimension", "whisper", "--conflict"],
                 ["build", "conversations", "--conflict", "--source", source]):  # fmt: skip
        res = CliRunner().invoke(app, [*args, "--out", str(out)])
        assert res.exit_code == 2, res.output
        assert "--conflict" in res.output and len(res.output.strip().splitlines()) == 1
        assert not out.exists()


def test_the_starter_builds_conflict_items_checked_and_recorded(
    tmp_path: Path, render_cache: Path
) -> None:
    from paraudit.compose.starter import build_starter

    report = build_starter(tmp_path / "ds", ids={"cf-002"}, conflict=True, cache_dir=render_cache)
    assert report.conflict_refused == []
    (item,) = load_dataset(tmp_path / "ds").items
    c = item.meta["conflict"]
    assert c["words"] == "surprised" and c["voice"] == "angry"
    assert c["words_label"] == "positive" and c["label_source"] == "vader" and c["compound"] > 0
    assert {b.emotions[0] for b in item.branches} == {"surprised", "angry"}
    assert validate_dataset(tmp_path / "ds") == []
    line = (tmp_path / "ds" / "items.jsonl").read_text().splitlines()[0]
    assert json.loads(line)["task"] == "single-turn-emotions"
