"""`--reask SHARE` through the real runner: a seeded share of questions asked a second time on
identical audio, each re-ask a call of its own, the row keeping its first answer; a default run
is unchanged; and the invariance flip flag, read against this re-ask baseline, fires only
beyond it.

Two judges that flip on a loudness twin half the time: `builtin:random` (fresh draws: a second
ask of the same prompt is a new coin, so it differs from itself as often as from the twin) and
a fixed coin (the same seeded coin per prompt whatever the sample index: it never differs from
itself, and the twin's audio is a new prompt). Without a baseline both are flagged "flips on
loudness changes"; with `--reask` only the fixed coin is.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.items.dataset import audio_name, load_dataset, write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn
from paraudit.items.twins import twin_id
from paraudit.judges import registry
from paraudit.judges.base import Reply
from paraudit.judges.builtin.simple import RandomJudge
from paraudit.judges.prices import Price
from paraudit.judges.registry import load_judge
from paraudit.protocols.parts import Prompt
from paraudit.protocols.questions import Question
from paraudit.runfolder import read_run_json
from paraudit.runfolder.rows import ResultRow
from paraudit.runner.calls import call_key
from paraudit.runner.plan import PlanSpec, plan_instances
from paraudit.runner.reask import REASK_SAMPLE, reasked
from paraudit.runner.run import RunConfig, Runner, dry_run
from paraudit.stats.invariance import invariance_sections
from paraudit.stats.statrow import stat_row
from tests.conftest import tone

ITEMS = 30
PLAN = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))


class FixedCoin(RandomJudge):
    """builtin:random's coin, drawn once per prompt: every ask of one prompt gets one answer."""

    def answer(self, prompt: Prompt, q: Question, sample: int) -> Reply:
        return super().answer(prompt, q, 0)


class _EP:
    def load(self) -> type[RandomJudge]:
        return FixedCoin


@pytest.fixture
def fixed_coin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_third_party", lambda: {"fixedcoin": _EP()})


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ITEMS single-turn items, each with a loudness twin (its context clips 6 dB louder)."""
    tmp = tmp_path_factory.mktemp("reask")
    clips = tmp / "clips"
    clips.mkdir()
    audio: dict[str, Path] = {}

    def clip(freq: float, gain: float = 1.0) -> str:
        p = clips / f"{freq}-{gain}.wav"
        tone(p, freq, seconds=0.3)
        if gain != 1.0:
            x, rate = sf.read(str(p))
            sf.write(str(p), np.clip(x * gain, -1, 1), rate, subtype="PCM_16")
        rel = audio_name(p.read_bytes())
        audio[rel] = p
        return rel

    items = []
    for i in range(ITEMS):
        f0, f1 = 100.0 + 7 * i, 400.0 + 7 * i
        r0, r1 = clip(800.0 + 7 * i), clip(1200.0 + 7 * i)
        for variant, gain in ((None, 1.0), ("loudness-up", 2.0)):
            items.append(
                AuditItem(
                    id=f"st-{i}" if variant is None else twin_id(f"st-{i}", variant),
                    task="single-turn-emotions",
                    context=(Turn(speaker="human", text=f"They moved meeting {i} to Friday."),),
                    branches=(
                        Branch(
                            emotions=("angry",),
                            audio=(clip(f0, gain),),
                            response=Response(
                                text=f"Not okay {i}.", emotion="empathetic", audio=r0
                            ),
                        ),
                        Branch(
                            emotions=("sad",),
                            audio=(clip(f1, gain),),
                            response=Response(
                                text=f"A letdown {i}.", emotion="empathetic", audio=r1
                            ),
                        ),
                    ),
                )  # fmt: skip
            )
    root = tmp / "ds"
    write_dataset(root, DatasetManifest(name="twins", tasks=("single-turn-emotions",)), items,
                  audio)  # fmt: skip
    return root


def _run(ds: Path, judge: str, out: Path, reask: float | None) -> tuple[list[dict[str, Any]], int]:
    runner = Runner(RunConfig(ds, [judge], out, PLAN, reask=reask))
    rows = asyncio.run(runner.run())
    return rows, runner.progress.calls_made


def _spec(out: Path) -> dict[str, Any]:
    run = read_run_json(out)
    assert run is not None
    spec: dict[str, Any] = run["spec"]
    return spec


def _loudness(rows: list[dict[str, Any]]) -> dict[str, Any]:
    stat = [stat_row(ResultRow.model_validate(r)) for r in rows]
    judge = stat[0].judge
    out = invariance_sections([(judge, stat[0].task, stat)], replicates=1000)
    return next(r for r in out["invariance"] if r["change"] == "loudness")


def test_default_runs_are_unchanged_and_a_reask_adds_calls(twins: Path, tmp_path: Path) -> None:
    plain, calls = _run(twins, "builtin:random", tmp_path / "plain", None)
    insts = plan_instances(load_dataset(twins), PLAN)
    judge = load_judge("builtin:random")
    # The default run: one call per question, keyed at sample 0, no re-ask fields anywhere,
    # and nothing about re-asks in run.json.
    assert calls == len(plain) == len(insts) == 4 * 2 * ITEMS
    assert {r["key"] for r in plain} == {call_key(judge, i.prompt, 0) for i in insts}
    assert all("samples" not in r for r in plain)
    assert "reask" not in _spec(tmp_path / "plain")

    again, calls2 = _run(twins, "builtin:random", tmp_path / "re", 0.25)
    chosen = [i for i in insts if reasked(i, 0.25, 0)]
    assert 0.15 * len(insts) < len(chosen) < 0.35 * len(insts)
    assert calls2 == len(insts) + len(chosen)  # one more call per re-asked question
    assert _spec(tmp_path / "re")["reask"] == 0.25
    # Every row keeps the first answer the default run got (same key, same reply).
    first = {r["key"]: (r["pred"], r["status"]) for r in plain}
    assert {r["key"]: (r["pred"], r["status"]) for r in again} == first
    twice = [r for r in again if "samples" in r]
    assert len(twice) == len(chosen)
    for r in twice:
        d0, d1 = r["samples"]
        assert d0["key"] == r["key"] and d0["sample"] == 0 and d1["sample"] == REASK_SAMPLE
        assert d1["key"] != d0["key"] and d1["key"] not in first  # a new call
    # Fresh draws: the second ask differs from the first in about half the re-asked questions.
    differ = sum(r["samples"][0]["pred"] != r["samples"][1]["pred"] for r in twice)
    assert 0.25 * len(twice) < differ < 0.75 * len(twice)
    # Resuming the re-ask run makes no call; the same rows come back.
    resumed, calls3 = _run(twins, "builtin:random", tmp_path / "re", 0.25)
    assert calls3 == 0 and resumed == again


@pytest.mark.usefixtures("fixed_coin")
def test_the_flip_flag_fires_only_beyond_the_reask_baseline(twins: Path, tmp_path: Path) -> None:
    fresh, _ = _run(twins, "builtin:random", tmp_path / "f0", None)
    fixed, _ = _run(twins, "fixedcoin:x", tmp_path / "x0", None)
    # Without a baseline, a judge that flips half the time on the twin is flagged: noise and
    # a real dependence on loudness cannot be told apart.
    for rows in (fresh, fixed):
        r = _loudness(rows)
        assert r["reask"] is None and r["flips"], r
        assert r["flip_rate"]["ci_low"] > 0.25
    fresh, _ = _run(twins, "builtin:random", tmp_path / "f1", 0.5)
    fixed, _ = _run(twins, "fixedcoin:x", tmp_path / "x1", 0.5)
    r = _loudness(fresh)  # two asks of one prompt differ as often as original and twin
    assert r["reask"]["rate"] == pytest.approx(0.5, abs=0.15)
    assert r["flip_minus_reask"]["ci_low"] <= 0 and not r["flips"], r
    r = _loudness(fixed)  # never differs from itself: its flips are the audio's doing
    assert r["reask"]["rate"] == 0.0
    assert r["flip_minus_reask"]["ci_low"] > 0 and r["flips"], r


def test_cli_option_checks_and_dry_run(twins: Path, tmp_path: Path) -> None:
    base = ["run", str(twins), "--judge", "builtin:random", "--probes", "J",
            "--protocols", "pointwise", "--cues", "none"]  # fmt: skip
    cli = CliRunner()
    for bad in ("0", "1.5", "-0.2", "nan"):
        r = cli.invoke(app, [*base, "--out", str(tmp_path / "bad"), "--reask", bad],
                       env={"COLUMNS": "200"})  # fmt: skip
        assert r.exit_code == 2 and "--reask" in r.output and "Traceback" not in r.output
        assert not (tmp_path / "bad").exists()
    r = cli.invoke(app, [*base, "--out", str(tmp_path / "dry"), "--dry-run"],
                   env={"COLUMNS": "200"})  # fmt: skip
    assert r.exit_code == 0 and "reask" not in r.output and f"calls: {8 * ITEMS}" in r.output
    r = cli.invoke(app, [*base, "--out", str(tmp_path / "dry"), "--dry-run", "--reask", "0.25"],
                   env={"COLUMNS": "200"})  # fmt: skip
    chosen = sum(reasked(i, 0.25, 0) for i in plan_instances(load_dataset(twins), PLAN))
    assert r.exit_code == 0, r.output
    assert f"calls: {8 * ITEMS + chosen}" in r.output
    assert f"{chosen} questions per judge asked a second time (--reask 0.25" in r.output
    assert json.dumps(0.25) in r.output


def test_the_dry_run_counts_the_calls_the_runner_makes(twins: Path, tmp_path: Path) -> None:
    """--dry-run --reask: its calls are what the real runner then makes, re-asks included; a
    judge on ?samples=2 asks every question twice and is not re-asked (its draws are its
    re-ask baseline), and the dry run says so."""
    plain, sampled = "builtin:random", "builtin:prosody?samples=2"
    planned = dry_run(RunConfig(twins, [plain, sampled], tmp_path / "none", PLAN, reask=0.25))
    made = 0
    for name, judge in (("plain", plain), ("sampled", sampled)):
        runner = Runner(RunConfig(twins, [judge], tmp_path / name, PLAN, reask=0.25))
        rows = asyncio.run(runner.run())
        made += runner.progress.calls_made
        twice = [r for r in rows if "samples" in r]
        # The plain judge's re-asked rows hold two asks; the sampled judge's rows its 2 draws.
        assert len(twice) == (len(rows) if judge == sampled else planned_reasks(twins))
    insts = plan_instances(load_dataset(twins), PLAN)
    assert planned["calls"] == made == len(insts) + planned_reasks(twins) + 2 * len(insts)
    assert "not re-asked: builtin:prosody (already sampled" in planned["reask"]
    assert f"{planned_reasks(twins)} extra calls" in planned["reask"]
    # The default run's dry run is unchanged: one call per question, no re-ask line.
    default = dry_run(RunConfig(twins, [plain], tmp_path / "none", PLAN))
    assert default["calls"] == len(insts) and "reask" not in default


def test_the_dry_run_prices_the_reasks(
    twins: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A priced judge's estimated cost grows with the re-asked questions' tokens and audio."""
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-real-key")  # a dry run makes no call
    # Steep prices, so the estimate is dollars and rounding to cents cannot hide a change.
    price = Price(text_in=1e4, audio_in=1e5, out=1e4, audio_tokens_per_s=10.0)
    prices = {"openai:priced": price}
    judge = "openai:priced"
    base = dry_run(RunConfig(twins, [judge], tmp_path / "none", PLAN), prices)["cost"][judge]
    all_ = dry_run(RunConfig(twins, [judge], tmp_path / "none", PLAN, reask=1.0), prices)
    assert base["usd"] > 10
    # --reask 1 asks every question twice: the estimate doubles (up to rounding).
    assert all_["cost"][judge]["usd"] == pytest.approx(2 * base["usd"], abs=0.03)


def planned_reasks(ds: Path) -> int:
    return sum(reasked(i, 0.25, 0) for i in plan_instances(load_dataset(ds), PLAN))
