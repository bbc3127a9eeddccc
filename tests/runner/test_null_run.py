"""Probe N end to end on a real starter set: rows, stored null clips, resume, known behaviours.

Known-behaviour judges (issue 21): builtin:transcript answers identically with and without
audio → flagged "answers without audio"; builtin:transcript?hears=speech reads only the
transcript and, on null audio, says it cannot hear anything → no-audio outcomes, not flagged;
builtin:prosody (a real acoustic judge) answers confidently on silence and noise, but its null
answers do not follow its real ones → not flagged.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from paraudit.items.dataset import load_dataset
from paraudit.runfolder.rows import ResultRow, read_rows
from paraudit.runner.plan import PlanSpec, count_instances
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.summary import summarize
from paraudit.stats.summary_model import Summary

JUDGES = ["builtin:transcript", "builtin:transcript?hears=speech", "builtin:prosody"]
PLAN = PlanSpec(probes=("J", "P", "N"), protocols=("pointwise",), cues=("none", "hard"))


@pytest.fixture(scope="module")
def null_run(starter_small: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("null") / "run"
    asyncio.run(Runner(RunConfig(starter_small, JUDGES, out, PLAN, concurrency=8)).run())
    return out


def _summary(run: Path) -> Summary:
    rows = [r.model_dump() for r in read_rows(run)]
    return Summary.of(summarize(rows, replicates=500))


def test_rows_and_null_clips(null_run: Path, starter_small: Path) -> None:
    rows = read_rows(null_run)
    n = [r for r in rows if r.probe == "N"]
    real = [r for r in rows if r.probe in ("P", "J")]
    # every real pointwise P/J question, once per null kind
    assert len(n) == 2 * len(real)
    asked = Counter(r.probe for r in real)
    kinds = ("silence", "noise")
    assert Counter((r.asks, r.null) for r in n) == {(a, k): asked[a] for a in "PJ" for k in kinds}
    assert all(r.asks is None and r.null is None for r in real)
    per_judge = count_instances(load_dataset(starter_small), PLAN)
    assert len(rows) == per_judge * len(JUDGES)
    # null clips: stored once in the run folder, named by their content hash, and sent as such
    stored = sorted((null_run / "null_audio").iterdir())
    assert stored and all(p.stem == hashlib.sha256(p.read_bytes()).hexdigest() for p in stored)
    names = {p.stem for p in stored}
    sent = {h for r in n for h in r.audio_sent_sha256}
    assert names <= sent and not any(p.name.startswith(".") for p in stored)


def test_resume_asks_nothing_again(
    null_run: Path, starter_small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = (null_run / "results.jsonl").read_bytes()
    runner = Runner(RunConfig(starter_small, JUDGES, null_run, PLAN, concurrency=8))
    asyncio.run(runner.run())
    assert runner.progress.calls_made == 0
    assert (null_run / "results.jsonl").read_bytes() == before

    # found finished before any start-up check: the clip folder is no part of the run's key
    async def no_preflight(self: Runner, judge: object) -> None:
        raise AssertionError("a finished audit needs no start-up check")

    monkeypatch.setattr(Runner, "_preflight", no_preflight)
    outcome = asyncio.run(
        Runner(RunConfig(starter_small, JUDGES, null_run, PLAN, concurrency=8)).execute()
    )
    assert outcome.already_complete


def _cells(s: Summary, judge: str) -> list[Any]:
    return [c for c in s.null_audio if c.judge == judge]


def test_known_behaviours(null_run: Path) -> None:
    s = _summary(null_run)
    assert {c.judge for c in s.null_audio} == set(JUDGES)
    kinds = {(v.judge, v.task): {b.kind for b in v.behaviours} for v in s.verdicts}
    for c in _cells(s, "builtin:transcript"):  # identical with and without audio
        assert c.agreement.rate == 1.0 and c.confident.rate == 1.0 and c.answers_without_audio
        assert "answers without audio" in kinds[(c.judge, c.task)]
    for c in _cells(s, "builtin:transcript?hears=speech"):  # "I can't hear anything"
        assert c.no_audio.rate == 1.0 and c.no_audio_replies == c.answers
        assert c.confident.rate == 0.0 and c.agreement.rate == 0.0 and c.unparsed == 0
        assert not c.answers_without_audio
        assert "answers without audio" not in kinds[(c.judge, c.task)]
    for c in _cells(s, "builtin:prosody"):  # hears: confident on null audio, but not agreeing
        assert c.confident.rate == 1.0 and not c.answers_without_audio
        assert "answers without audio" not in kinds[(c.judge, c.task)]


def test_n_rows_enter_no_other_section(null_run: Path) -> None:
    rows = [r.model_dump() for r in read_rows(null_run)]
    with_n = summarize(rows, replicates=200)
    without = summarize([r for r in rows if r["probe"] != "N"], replicates=200)
    assert without["null_audio"] == []
    for section in ("accuracy", "position_bias", "behaviour", "states"):
        assert with_n[section] == without[section], section
    assert not any(a["probe"] == "N" for a in with_n["accuracy"])


def test_rows_written_before_probe_n_still_load(null_run: Path) -> None:
    data = read_rows(null_run)[0].model_dump(mode="json")
    del data["asks"], data["null"]
    row = ResultRow.model_validate(data)
    assert row.asks is None and row.null is None
