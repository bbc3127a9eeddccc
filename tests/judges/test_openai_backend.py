"""openai: backend against a loopback server speaking the chat-completions wire format."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.errors import MissingExtraError, ParauditError
from paraudit.items.dataset import load_dataset
from paraudit.judges.registry import load_judge
from paraudit.protocols.parts import AudioPart
from paraudit.runner.calls import RetryPolicy
from paraudit.runner.plan import PlanSpec, plan_instances
from paraudit.runner.run import RunConfig, Runner
from tests.conftest import needs
from tests.judges.loopback import Loopback, Scripted, Silent, free_port

pytestmark = needs("openai", "openai")

PLAN = PlanSpec(probes=("J", "P"), protocols=("pointwise", "pairwise"), cues=("none", "transition"))
SECRET = "sk-test-DO-NOT-LEAK-0123456789"


def _run(ds: Path, out: Path, spec: str, plan: PlanSpec = PLAN, **kw: Any) -> list[dict[str, Any]]:
    cfg = RunConfig(
        ds,
        [spec],
        out,
        plan,
        concurrency=8,
        retry=RetryPolicy(max_attempts=3, base_delay_s=0.01, timeout_s=kw.pop("timeout", 10)),
    )
    return asyncio.run(Runner(cfg).run())


def _sent_sequence(body: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    seq = []
    for part in body["messages"][0]["content"]:
        if part["type"] == "text":
            seq.append(("text", part["text"]))
        elif part["type"] == "input_audio":
            seq.append(
                ("audio", hashlib.sha256(base64.b64decode(part["input_audio"]["data"])).hexdigest())
            )
        else:
            url = part["audio_url"]["url"]
            assert url.startswith("data:audio/wav;base64,")
            seq.append(
                ("audio", hashlib.sha256(base64.b64decode(url.split(",", 1)[1])).hexdigest())
            )
    return tuple(seq)


def test_full_run_sends_every_clip_intact_and_in_order(
    starter_small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOP_KEY", SECRET)
    with Loopback() as srv:
        spec = f"openai:test-model@{srv.url}/v1?seed=7&max_tokens=300&key_env=LOOP_KEY"
        rows = _run(starter_small, tmp_path / "run", spec)
    assert {r["status"] for r in rows} == {"ok"}
    assert all(r["usage"]["total_tokens"] == 18 for r in rows)
    ds = load_dataset(starter_small)
    by_id = {i.instance_id: i for i in plan_instances(ds, PLAN)}
    for r in rows:  # each row names the clips actually sent, in prompt order
        ctx = "" if r["context_order"] is None else f"|ctx-{r['context_order']}"
        inst = by_id[
            f"{r['item_id']}|{r['probe']}|{r['protocol']}|{r['cue']}|{r['order']}{ctx}|"
            f"{'-' if r['branch'] is None else r['branch']}"
        ]
        assert r["audio_sent_sha256"] == [p.sha256 for p in inst.prompt if isinstance(p, AudioPart)]
    expected = {
        tuple(
            ("audio", p.sha256) if isinstance(p, AudioPart) else ("text", p.text) for p in i.prompt
        )
        for i in plan_instances(ds, PLAN)
    }
    got = [
        _sent_sequence(r["body"]) for r in srv.requests if r["path"].endswith("/chat/completions")
    ]
    assert set(got) == expected and len(got) == len(expected)  # each distinct prompt paid once
    for seq in got:  # the bytes sent are the dataset files' bytes (their names are their hashes)
        for kind, value in seq:
            if kind == "audio":
                assert (starter_small / "audio" / f"{value}.wav").is_file()
    body = srv.requests[-1]["body"]
    assert body["model"] == "test-model" and body["seed"] == 7 and body["max_tokens"] == 300
    assert body["temperature"] == 0 and body["modalities"] == ["text"]
    headers = {k.lower(): v for k, v in srv.requests[-1]["headers"].items()}
    assert headers["authorization"] == f"Bearer {SECRET}"
    for f in (tmp_path / "run").rglob("*"):
        if f.is_file():
            assert SECRET.encode() not in f.read_bytes(), f


def test_audio_url_form(starter_small: Path, tmp_path: Path) -> None:
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",), limit=1)
    with Loopback() as srv:
        _run(
            starter_small,
            tmp_path / "run",
            f"openai:test-model@{srv.url}/v1?audio_part=audio_url",
            plan,
        )
    parts = srv.requests[-1]["body"]["messages"][0]["content"]
    assert {p["type"] for p in parts} == {"text", "audio_url"}


def test_429_500_timeouts_and_malformed_bodies_are_retried(
    starter_small: Path, tmp_path: Path
) -> None:
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",), limit=1)
    with Loopback() as srv:
        srv.script.extend(
            [
                Scripted(
                    status=429,
                    body={"error": {"message": "slow down"}},
                    headers={"Retry-After": "0.2"},
                ),
                Scripted(status=500, body={"error": {"message": "boom"}}),
                Scripted(body=b"{this is not json"),
                Scripted(delay=1.5),
            ]
        )
        spec = f"openai:test-model@{srv.url}/v1"
        rows = _run(starter_small, tmp_path / "run", spec, plan, timeout=1.0)
        assert {r["status"] for r in rows} <= {"ok", "error"}
        assert sum(r["status"] == "ok" for r in rows) >= len(rows) - 1
        assert max(r["attempts"] for r in rows) >= 2
        # The rerun (same server: the base URL is part of the judge) retries any error row.
        rows = _run(starter_small, tmp_path / "run", spec, plan)
    assert {r["status"] for r in rows} == {"ok"}


def test_authentication_error_stops_the_run(starter_small: Path, tmp_path: Path) -> None:
    with Loopback() as srv:
        srv.script.append(Scripted(status=401, body={"error": {"message": "bad key"}}))
        r = CliRunner().invoke(
            app,
            [
                "run",
                str(starter_small),
                "--judge",
                f"openai:test-model@{srv.url}/v1",
                "--out",
                str(tmp_path / "r"),
                "--probes",
                "J",
            ],
        )
    assert r.exit_code == 1 and "authentication failed" in r.output and "Traceback" not in r.output


def test_unknown_model_and_unreachable_server(starter_small: Path, tmp_path: Path) -> None:
    with Loopback() as srv:
        with pytest.raises(ParauditError, match="does not serve model 'nope'"):
            _run(starter_small, tmp_path / "a", f"openai:nope@{srv.url}/v1")
    port = free_port()
    with pytest.raises(ParauditError, match="cannot reach"):
        _run(starter_small, tmp_path / "b", f"openai:m@http://127.0.0.1:{port}/v1")
    # A failed start-up check writes nothing: the corrected spec is a new run, not a refusal.
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_missing_key_for_the_hosted_api(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ParauditError, match="OPENAI_API_KEY"):
        load_judge("openai:gpt-4o-audio-preview")


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "openai" else real(name, *a)
    )
    with pytest.raises(MissingExtraError, match=r"pip install 'paraudit\[openai\]'"):
        load_judge("openai:gpt-4o-audio-preview")


def test_run_json_records_decoding_and_sdk(starter_small: Path, tmp_path: Path) -> None:
    import json

    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",), limit=1)
    with Loopback() as srv:
        _run(
            starter_small, tmp_path / "run", f"openai:test-model@{srv.url}/v1?temperature=0.2", plan
        )
    spec = json.loads((tmp_path / "run" / "run.json").read_text())
    d = spec["judge_details"][0]
    ident = d["identity"]
    assert ident["options"]["temperature"] == "0.2" and ident["model"] == "test-model"
    assert ident["state"]["defaults"]["max_tokens"] == 1024  # what the spec leaves out
    assert d["sdk"].startswith("openai ")


J_ONLY = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))


@pytest.mark.parametrize("status", [404, 405, 501])
def test_a_server_without_a_model_listing_is_audited_with_a_note(
    tiny_dataset: Path, tmp_path: Path, status: int
) -> None:
    with Loopback(listing=Scripted(status=status)) as srv:
        cfg = RunConfig(tiny_dataset, [f"openai:test-model@{srv.url}/v1"], tmp_path / "r", J_ONLY)
        runner = Runner(cfg)
        rows = asyncio.run(runner.run())
    assert rows and {r["status"] for r in rows} == {"ok"}
    assert any(f"serves no model listing (HTTP {status})" in n for n in runner.notes)


def test_other_listing_statuses_are_one_clear_line(tiny_dataset: Path, tmp_path: Path) -> None:
    with Loopback(listing=Scripted(status=500, body={"error": {"message": "boom"}})) as srv:
        r = CliRunner().invoke(
            app,
            [
                "run",
                str(tiny_dataset),
                "--judge",
                f"openai:test-model@{srv.url}/v1",
                "--out",
                str(tmp_path / "r"),
                "--probes",
                "J",
            ],
        )
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert "answered the start-up check with HTTP 500" in r.output


def test_a_server_that_never_answers_is_named_within_the_timeout(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    import time

    with Silent() as srv:
        t0 = time.monotonic()
        with pytest.raises(ParauditError, match="reachable but not answering"):
            _run(tiny_dataset, tmp_path / "r", f"openai:m@{srv.url}/v1", J_ONLY, timeout=1.5)
        assert time.monotonic() - t0 < 10
