"""gemini: backend against a loopback server speaking generateContent and the Files API."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from pathlib import Path
from typing import Any

import pytest

from paraudit.errors import ParauditError
from paraudit.items.dataset import load_dataset
from paraudit.judges.registry import load_judge
from paraudit.protocols.parts import AudioPart
from paraudit.runner.calls import RetryPolicy
from paraudit.runner.plan import PlanSpec, plan_instances
from paraudit.runner.run import RunConfig, Runner
from tests.conftest import needs
from tests.judges.loopback import Loopback, Scripted, free_port

pytestmark = needs("google.genai", "gemini")

PLAN = PlanSpec(probes=("J", "P"), protocols=("pointwise", "pairwise"), cues=("none",))
SECRET = "gemini-test-key-DO-NOT-LEAK"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)


def _run(ds: Path, out: Path, spec: str, plan: PlanSpec = PLAN) -> list[dict[str, Any]]:
    cfg = RunConfig(
        ds,
        [spec],
        out,
        plan,
        concurrency=8,
        retry=RetryPolicy(max_attempts=3, base_delay_s=0.01, timeout_s=10),
    )
    return asyncio.run(Runner(cfg).run())


def _sequence(body: dict[str, Any], uploads: dict[str, bytes]) -> tuple[tuple[str, str], ...]:
    seq = []
    for part in body["contents"][0]["parts"]:
        if "text" in part:
            seq.append(("text", part["text"]))
        elif "inlineData" in part:
            b64 = part["inlineData"]["data"]
            data = base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4))
            seq.append(("audio", hashlib.sha256(data).hexdigest()))
        else:
            seq.append(
                (
                    "audio",
                    hashlib.sha256(
                        uploads[part["fileData"].get("fileUri") or part["fileData"]["file_uri"]]
                    ).hexdigest(),
                )
            )
    return tuple(seq)


def _expected(ds_dir: Path, plan: PlanSpec) -> set[tuple[tuple[str, str], ...]]:
    ds = load_dataset(ds_dir)
    return {
        tuple(
            ("audio", p.sha256) if isinstance(p, AudioPart) else ("text", p.text) for p in i.prompt
        )
        for i in plan_instances(ds, plan)
    }


def test_inline_audio_intact_and_in_order(starter_small: Path, tmp_path: Path) -> None:
    with Loopback(models=("gemini-test",)) as srv:
        rows = _run(starter_small, tmp_path / "run", f"gemini:gemini-test@{srv.url}?seed=3")
    assert {r["status"] for r in rows} == {"ok"}
    gen = [r for r in srv.requests if ":generateContent" in r["path"]]
    assert {_sequence(r["body"], {}) for r in gen} == _expected(starter_small, PLAN)
    cfg = gen[-1]["body"]["generationConfig"]
    assert cfg["temperature"] == 0 and cfg["seed"] == 3 and cfg["maxOutputTokens"] == 1024
    assert "gemini-test" in gen[-1]["path"]
    for f in (tmp_path / "run").rglob("*"):
        if f.is_file():
            assert SECRET.encode() not in f.read_bytes()


def test_large_requests_go_through_the_files_api(starter_small: Path, tmp_path: Path) -> None:
    plan = PlanSpec(probes=("J",), protocols=("pairwise",), cues=("none",), limit=2)
    with Loopback(models=("gemini-test",)) as srv:
        rows = _run(
            starter_small,
            tmp_path / "run",
            f"gemini:gemini-test@{srv.url}?inline_limit_mb=0.01",
            plan,
        )
        uploads = dict(srv.uploads)
    assert {r["status"] for r in rows} == {"ok"} and uploads
    gen = [r for r in srv.requests if ":generateContent" in r["path"]]
    assert all(
        "fileData" in p for r in gen for p in r["body"]["contents"][0]["parts"] if "text" not in p
    )
    assert {_sequence(r["body"], uploads) for r in gen} == _expected(starter_small, plan)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"promptFeedback": {"blockReason": "SAFETY"}}, "prompt blocked"),
        ({"candidates": []}, "no candidates"),
        (
            {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": ""}]},
                        "finishReason": "SAFETY",
                        "index": 0,
                    }
                ]
            },
            "SAFETY",
        ),
    ],
)
def test_safety_blocks_and_empty_candidates_are_refused(
    starter_small: Path, tmp_path: Path, body: dict[str, Any], reason: str
) -> None:
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",), limit=1)
    with Loopback(models=("gemini-test",)) as srv:
        srv.script.append(Scripted(body=body))
        rows = _run(starter_small, tmp_path / "run", f"gemini:gemini-test@{srv.url}", plan)
    refused = [r for r in rows if r["status"] == "refused"]
    assert len(refused) == 1 and reason in refused[0]["reason"]


def test_rate_limits_and_server_errors_are_retried(starter_small: Path, tmp_path: Path) -> None:
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",), limit=1)
    with Loopback(models=("gemini-test",)) as srv:
        srv.script.extend(
            [
                Scripted(
                    status=429,
                    body={
                        "error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}
                    },
                    headers={"Retry-After": "0.1"},
                ),
                Scripted(
                    status=503,
                    body={"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}},
                ),
            ]
        )
        rows = _run(starter_small, tmp_path / "run", f"gemini:gemini-test@{srv.url}", plan)
    assert {r["status"] for r in rows} == {"ok"} and max(r["attempts"] for r in rows) >= 2


def test_bad_configuration(
    starter_small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Loopback(models=("gemini-test",)) as srv:
        with pytest.raises(ParauditError, match="unknown model id 'nope'"):
            _run(starter_small, tmp_path / "a", f"gemini:nope@{srv.url}")
    port = free_port()
    with pytest.raises(ParauditError, match="cannot reach"):
        _run(starter_small, tmp_path / "b", f"gemini:m@http://127.0.0.1:{port}")
    monkeypatch.delenv("GEMINI_API_KEY")
    with pytest.raises(ParauditError, match="GEMINI_API_KEY or GOOGLE_API_KEY"):
        load_judge("gemini:gemini-2.5-pro")


def test_joined_clips_go_as_one_inline_part(starter_small: Path, tmp_path: Path) -> None:
    plan = PlanSpec(probes=("J",), protocols=("pairwise",), cues=("none",), limit=1)
    with Loopback(models=("gemini-test",)) as srv:
        rows = _run(
            starter_small, tmp_path / "run", f"gemini:gemini-test@{srv.url}?clips=joined", plan
        )
    gen = [r for r in srv.requests if ":generateContent" in r["path"]]
    assert gen and len(gen) == len(rows)
    for r in gen:
        audio = [a for kind, a in _sequence(r["body"], {}) if kind == "audio"]
        assert len(audio) == 1
    for row in rows:
        j = row["usage"]["joined"]
        assert row["audio_sent_sha256"] == [j["joined_sha256"]] and len(j["parts_sha256"]) >= 4
