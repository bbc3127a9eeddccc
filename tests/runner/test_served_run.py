"""Which model answered, through the real runner against loopback servers speaking the
providers' wire formats: a provider that routes half the run to a fallback model is named; a
Gemini reply's model version is recorded; an old run folder resumes with no new call; a
skilled judge behind a flaky server (429/500 on a third of requests) stays "reliable" with
nothing named after an interrupted run is resumed."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from paraudit.items.dataset import audio_name, load_dataset, write_dataset
from paraudit.items.records import (
    AuditItem,
    Branch,
    DatasetManifest,
    Response,
    Turn,
)
from paraudit.protocols.parts import AudioPart
from paraudit.report.build import load_runs, write_report
from paraudit.runner.calls import RetryPolicy
from paraudit.runner.plan import PlanSpec, plan_instances
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.summary import summarize
from paraudit.stats.summary_model import Summary
from tests.conftest import needs, tone
from tests.judges.loopback import Loopback, Scripted

pytestmark = needs("openai", "openai")

ITEMS = 48
PLAN = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))
SKILL = 0.92


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ITEMS single-turn items, every clip its own tone (no two prompts share audio)."""
    tmp = tmp_path_factory.mktemp("served")
    audio: dict[str, Path] = {}
    freq = iter(range(90, 10_000, 7))

    def clip() -> str:
        p = tmp / "src" / f"{len(audio)}.wav"
        p.parent.mkdir(exist_ok=True)
        rel = audio_name(tone(p, float(next(freq)), seconds=0.3))
        audio[rel] = p
        return rel

    def response(text: str) -> Response:
        return Response(text=text, emotion="empathetic", audio=clip())

    items = [
        AuditItem(
            id=f"st-{i}",
            task="single-turn-emotions",
            context=(Turn(speaker="human", text=f"They moved meeting {i} to Friday."),),
            branches=(
                Branch(emotions=("angry",), audio=(clip(),), response=response(f"Not ok {i}.")),
                Branch(emotions=("sad",), audio=(clip(),), response=response(f"A pity {i}.")),
            ),
        )
        for i in range(ITEMS)
    ]
    root = tmp / "ds"
    write_dataset(
        root, DatasetManifest(name="served", tasks=("single-turn-emotions",)), items, audio
    )
    return root


def _golds(ds: Path) -> dict[tuple[str, ...], Any]:
    """Prompt (texts and audio hashes in order) → the right answer: what a skilled model
    behind the server hears."""
    return {
        tuple(p.sha256 if isinstance(p, AudioPart) else p.text for p in i.prompt): i.gold
        for i in plan_instances(load_dataset(ds), PLAN)
    }


def _chat_key(body: dict[str, Any]) -> tuple[str, ...]:
    out = []
    for part in body["messages"][0]["content"]:
        if part["type"] == "text":
            out.append(part["text"])
        else:
            data = base64.b64decode(part["input_audio"]["data"])
            out.append(hashlib.sha256(data).hexdigest())
    return tuple(out)


def _coin(key: tuple[str, ...], salt: str) -> float:
    """A fixed draw in [0, 1) per prompt: independent errors, the same on every re-ask."""
    h = hashlib.sha256(json.dumps([salt, *key]).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def _answer(gold: str, right: bool) -> str:
    pred = gold if right else {"R1": "R2", "R2": "R1"}[gold]
    return json.dumps({"reasoning": "loopback", "pred": pred})


def _set_answer(reply: dict[str, Any], text: str, model: str) -> None:
    reply["choices"][0]["message"]["content"] = text
    reply["model"] = model


def _cfg(ds: Path, out: Path, spec: str, attempts: int = 3) -> RunConfig:
    retry = RetryPolicy(max_attempts=attempts, base_delay_s=0.001, max_delay_s=0.01, timeout_s=10)
    return RunConfig(ds, [spec], out, PLAN, concurrency=8, retry=retry)


def test_fallback_model_is_named(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Half the requests go to a fallback that guesses: the verdict names it, the summary and
    the report show both models, the terminal line says which answered."""
    golds = _golds(dataset)
    seen = [0]
    lock = threading.Lock()

    def route(body: dict[str, Any], reply: dict[str, Any]) -> None:
        key = _chat_key(body)
        with lock:
            seen[0] += 1
            fallback = seen[0] > len(golds) // 2
        if fallback:  # a small model that guesses
            _set_answer(reply, _answer(golds[key], _coin(key, "mini") < 0.5), "test-model-mini")
        else:
            _set_answer(reply, _answer(golds[key], _coin(key, "skill") < SKILL), "test-model")

    with Loopback(models=("test-model",)) as srv:
        srv.edit = route  # type: ignore[assignment]
        runner = Runner(_cfg(dataset, tmp_path / "run", f"openai:test-model@{srv.url}/v1"))
        outcome = asyncio.run(runner.execute())
    judge = f"openai:test-model@{srv.url}/v1"
    assert outcome.served == {judge: {"test-model": 96, "test-model-mini": 96}}

    rows = load_runs([tmp_path / "run"])
    summary = Summary.of(summarize(rows, replicates=200))
    served = summary.served[0]
    assert {m.model: m.answers for m in served.models} == {"test-model": 96, "test-model-mini": 96}
    assert served.other_model and served.changed
    assert [m.matches_requested for m in served.models if m.model == "test-model-mini"] == [False]
    kinds = {b.kind for b in summary.verdicts[0].behaviours}
    assert "answered by another model" in kinds
    assert "test-model-mini on 96 of 192" in summary.verdicts[0].headline
    # The fallback guessed on the late half: the drift test sees it from accuracy alone.
    assert served.stationarity is not None and served.stationarity.drift
    assert "drifts during the run" in kinds

    write_report([tmp_path / "run"], tmp_path / "report", replicates=200)
    md = (tmp_path / "report" / "summary.md").read_text()
    assert "## Which model answered" in md and "test-model-mini 96 (50%)" in md
    html = (tmp_path / "report" / "report.html").read_text()
    assert "Which model answered" in html and "test-model-mini" in html

    from paraudit.runner.served import served_lines

    (line,) = served_lines(outcome.served, {judge: "J1"})
    assert line.startswith("J1 answered by: test-model 96, test-model-mini 96")
    assert "not the requested test-model" in line


def test_served_model_never_changes_a_call_key(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same questions answered by another model have the same keys: a rerun asks nothing."""
    with Loopback(models=("test-model",)) as srv:
        srv.edit = lambda body, reply: reply.update(model="other")  # type: ignore[assignment,func-returns-value]
        spec = f"openai:test-model@{srv.url}/v1"
        first = Runner(_cfg(dataset, tmp_path / "run", spec))
        rows = asyncio.run(first.run())
        again = Runner(_cfg(dataset, tmp_path / "run", spec))
        asyncio.run(again.run())
    assert again.progress.calls_made == 0
    assert {r["served"]["model"] for r in rows} == {"other"}
    assert all(r["finished_at"] > 0 for r in rows)


def test_gemini_model_version_is_recorded(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("google.genai", reason="the 'gemini' extra is not installed")
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-test-key")
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",), limit=3)
    with Loopback(models=("gemini-test",)) as srv:
        srv.edit = lambda body, reply: reply.update(modelVersion="gemini-test-002")  # type: ignore[assignment,func-returns-value]
        cfg = RunConfig(dataset, [f"gemini:gemini-test@{srv.url}"], tmp_path / "run", plan)
        rows = asyncio.run(Runner(cfg).run())
    assert rows and {json.dumps(r["served"]) for r in rows} == {'{"model": "gemini-test-002"}'}
    db = sqlite3.connect(tmp_path / "run" / "calls.sqlite")
    stored = {s for (s,) in db.execute("SELECT served FROM calls")}
    db.close()
    assert stored == {'{"model": "gemini-test-002"}'}
    summary = Summary.of(summarize(load_runs([tmp_path / "run"]), replicates=100))
    (served,) = summary.served
    assert served.models[0].model == "gemini-test-002" and served.models[0].matches_requested
    assert not served.other_model and served.stationarity is None  # 3 items: no test


def _downgrade(run: Path) -> None:
    """Make the folder what paraudit wrote before schema 4: no `served` column, version 3, no
    recorded completion, and rows without `served` or `finished_at`."""
    db = sqlite3.connect(run / "calls.sqlite")
    db.execute("ALTER TABLE calls DROP COLUMN served")
    db.execute("DELETE FROM completions")
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()
    lines = (run / "results.jsonl").read_text().splitlines()
    old = []
    for line in lines:
        row = json.loads(line)
        row.pop("served")
        row.pop("finished_at")
        old.append(json.dumps(row))
    (run / "results.jsonl").write_text("\n".join(old) + "\n")


def test_old_run_folder_loads_and_resumes_with_no_new_call(dataset: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    cfg = RunConfig(dataset, ["builtin:random"], run, PLAN)
    asyncio.run(Runner(cfg).run())
    _downgrade(run)
    old = Summary.of(summarize(load_runs([run]), replicates=100))  # old rows still load
    (section,) = old.served
    assert section.models[0].model is None and section.stationarity is not None
    assert section.stationarity.order == "results order"  # no call times: plan order
    resumed = Runner(RunConfig(dataset, ["builtin:random"], run, PLAN))
    rows = asyncio.run(resumed.run())
    assert resumed.progress.calls_made == 0
    assert {r["served"] for r in rows} == {None}  # calls stored before the record was made
    db = sqlite3.connect(run / "calls.sqlite")
    assert db.execute("PRAGMA user_version").fetchone()[0] == 4
    db.close()
    fresh = asyncio.run(Runner(RunConfig(dataset, ["builtin:first"], tmp_path / "b", PLAN)).run())
    assert {r["served"]["model"] for r in fresh} == {"builtin:first"}  # a built-in names itself


def test_skilled_judge_behind_a_flaky_server_stays_reliable_after_resume(
    dataset: Path, tmp_path: Path
) -> None:
    """≈ 92 % right with independent errors; a third of requests get 429 or 500. The run is
    interrupted, then resumed: "reliable", nothing named, no failed call left."""
    golds = _golds(dataset)
    attempts: dict[tuple[str, ...], int] = {}
    lock = threading.Lock()

    def flaky(body: dict[str, Any], reply: dict[str, Any]) -> Scripted | None:
        key = _chat_key(body)
        with lock:
            n = attempts[key] = attempts.get(key, 0) + 1
        draw = _coin((*key, str(n)), "flaky")
        if draw < 1 / 6:
            return Scripted(status=429, headers={"Retry-After": "0"})
        if draw < 1 / 3:
            return Scripted(status=500, body={"error": {"message": "upstream hiccup"}})
        _set_answer(reply, _answer(golds[key], _coin(key, "skill") < SKILL), "test-model")
        return None

    run = tmp_path / "run"
    with Loopback(models=("test-model",)) as srv:
        srv.edit = flaky  # type: ignore[assignment]
        spec = f"openai:test-model@{srv.url}/v1"

        async def interrupted() -> None:
            task = asyncio.ensure_future(Runner(_cfg(dataset, run, spec, attempts=8)).run())
            while len(srv.requests) < 90 and not task.done():
                await asyncio.sleep(0.005)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(interrupted())
        assert not (run / "results.jsonl").exists()  # interrupted before the end
        resumed = Runner(_cfg(dataset, run, spec, attempts=8))
        rows = asyncio.run(resumed.run())
    assert 0 < resumed.progress.calls_made < len(golds)  # the first run's answers were kept
    assert len(rows) == len(golds) and {r["status"] for r in rows} == {"ok"}
    failures = sum(1 for r in srv.requests) - len(golds)
    assert failures > len(golds) / 4  # the server really failed about a third of requests
    accuracy = sum(r["correct"] for r in rows) / len(rows)
    assert 0.86 < accuracy < 0.97
    summary = Summary.of(summarize(load_runs([run]), replicates=500))
    (v,) = summary.verdicts
    assert v.diagnosis == "reliable", v.text
    assert v.behaviours == [] and v.failed_calls == 0, v.text
    (served,) = summary.served
    assert [m.model for m in served.models] == ["test-model"] and not served.other_model
    assert served.stationarity is not None and not served.stationarity.drift


def test_a_specialist_on_a_set_listed_by_contrast_is_not_called_drifting(
    dataset: Path, tmp_path: Path
) -> None:
    """Right on every question of the first quarter of the dataset's items (one contrast,
    listed first), a coin on the rest: asked in dataset order this would read as a judge
    getting worse; the runner's seeded asking order keeps call order apart from it."""
    plan = plan_instances(load_dataset(dataset), PLAN)
    first = {f"st-{i}" for i in range(ITEMS // 4)}
    item_of = {tuple(p.sha256 if isinstance(p, AudioPart) else p.text for p in i.prompt): i
               for i in plan}  # fmt: skip

    def specialist(body: dict[str, Any], reply: dict[str, Any]) -> None:
        inst = item_of[_chat_key(body)]
        right = inst.item_id in first or _coin(_chat_key(body), "coin") < 0.5
        _set_answer(reply, _answer(str(inst.gold), right), "test-model")

    with Loopback(models=("test-model",)) as srv:
        srv.edit = specialist  # type: ignore[assignment]
        rows = asyncio.run(
            Runner(_cfg(dataset, tmp_path / "run", f"openai:test-model@{srv.url}/v1")).run()
        )
    asked = list(dict.fromkeys(r["item_id"] for r in rows))
    assert sorted(asked) == sorted(f"st-{i}" for i in range(ITEMS))
    assert asked != [f"st-{i}" for i in range(ITEMS)]  # not the dataset's order
    summary = Summary.of(summarize(load_runs([tmp_path / "run"]), replicates=200))
    (served,) = summary.served
    assert served.stationarity is not None and served.stationarity.order == "call time"
    assert not served.stationarity.drift, served.stationarity
    assert "drifts during the run" not in {b.kind for b in summary.verdicts[0].behaviours}


def test_the_end_of_run_terminal_line_names_the_fallback(dataset: Path, tmp_path: Path) -> None:
    """`paraudit run` (the real CLI): the models that answered, and that one was not asked for;
    `--report` puts it in the verdict's headline too."""
    from typer.testing import CliRunner

    from paraudit.cli.main import app

    seen = [0]
    lock = threading.Lock()

    def route(body: dict[str, Any], reply: dict[str, Any]) -> None:
        with lock:
            seen[0] += 1
            reply["model"] = "test-model-mini" if seen[0] > 12 else "test-model-2024-08-06"

    with Loopback(models=("test-model",)) as srv:
        srv.edit = route  # type: ignore[assignment]
        args = ["run", str(dataset), "--judge", f"openai:test-model@{srv.url}/v1"]
        args += ["--out", str(tmp_path / "r"), "--probes", "J", "--protocols", "pointwise"]
        args += ["--cues", "none", "--limit", "6", "--concurrency", "1"]
        r = CliRunner().invoke(app, [*args, "--report", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    out = " ".join(r.output.split())
    assert "J1 answered by: test-model-2024-08-06 12, test-model-mini 12 (of 24 answers)" in out
    assert "not the requested test-model" in out
    assert "Answered by another model: test-model-mini on 12 of 24 answers" in out
