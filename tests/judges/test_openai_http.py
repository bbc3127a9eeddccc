"""The transport to an OpenAI-compatible server named by URL (judges.openai_http): the same
requests, and the SDK's own exceptions on failure, without importing the SDK on the way."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai", reason="the 'openai' extra is not installed")
pytest.importorskip("httpx2", reason="the 'openai' extra is not installed")

from paraudit.judges.openai_http import OpenAIHTTP  # noqa: E402
from paraudit.providers import openai_failure  # noqa: E402
from tests.judges.loopback import Loopback, Scripted, Silent, free_port  # noqa: E402

BODY = json.dumps({"model": "test-model", "messages": [{"role": "user", "content": "hi"}]})

FAILURES = [
    Scripted(status=400, body={"error": {"message": "bad audio", "type": "invalid_request"}}),
    Scripted(status=401, body={"error": {"message": "bad key"}}),
    Scripted(status=403, body={"error": {"message": "not yours"}}),
    Scripted(status=404, body={"error": {"message": "no such model"}}),
    Scripted(status=409, body={"error": {"message": "conflict"}}),
    Scripted(status=422, body={"detail": [{"msg": "field required"}]}),
    Scripted(status=429, body={"error": {"message": "slow down"}}, headers={"Retry-After": "7"}),
    Scripted(status=500, body={"error": {"message": "boom"}}),
    Scripted(status=503, body=b"<html>upstream down</html>", content_type="text/html"),
    Scripted(status=418, body=b""),
]


async def _lean(url: str, timeout: float = 10.0) -> Exception | str:
    try:
        return await OpenAIHTTP(url, "sk-test", timeout).post("/chat/completions", BODY.encode())
    except Exception as e:
        return e


async def _sdk(url: str, timeout: float = 10.0) -> Exception | str:
    client = openai.AsyncOpenAI(api_key="sk-test", base_url=url, max_retries=0, timeout=timeout)
    try:
        reply: str = await client.post("/chat/completions", content=BODY.encode(), cast_to=str)
        return reply
    except Exception as e:
        return e


def _seen(e: Exception | str) -> tuple[Any, ...]:
    """What the runner reads of an outcome: the exception's class and text, and its
    classification (retry or stop, the message, Retry-After)."""
    if isinstance(e, str):
        return ("reply", json.loads(e)["choices"][0]["message"]["content"])
    return (type(e), str(e), openai_failure(openai, e))


@pytest.mark.parametrize("scripted", FAILURES, ids=lambda s: str(s.status))
def test_each_failure_is_the_sdks_own_exception(scripted: Scripted) -> None:
    with Loopback() as srv:
        srv.script.extend([scripted, scripted])
        lean = asyncio.run(_lean(f"{srv.url}/v1"))
        sdk = asyncio.run(_sdk(f"{srv.url}/v1"))
    assert isinstance(lean, openai.APIStatusError) and lean.status_code == scripted.status
    assert _seen(lean) == _seen(sdk)


def test_a_reply_timeouts_and_refused_connections_match_the_sdk() -> None:
    with Loopback() as srv:
        assert _seen(asyncio.run(_lean(f"{srv.url}/v1"))) == _seen(
            asyncio.run(_sdk(f"{srv.url}/v1"))
        )
    with Silent() as hung:
        lean, sdk = asyncio.run(_lean(hung.url, 0.3)), asyncio.run(_sdk(hung.url, 0.3))
    assert isinstance(lean, openai.APITimeoutError) and _seen(lean) == _seen(sdk)
    closed = f"http://127.0.0.1:{free_port()}/v1"
    lean, sdk = asyncio.run(_lean(closed)), asyncio.run(_sdk(closed))
    assert isinstance(lean, openai.APIConnectionError) and _seen(lean) == _seen(sdk)


def test_the_request_carries_the_body_as_given_and_the_sdks_headers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-1")
    with Loopback() as srv:
        asyncio.run(_lean(f"{srv.url}/v1/"))  # a trailing slash joins cleanly
        asyncio.run(_sdk(f"{srv.url}/v1/"))
    lean, sdk = srv.requests
    assert lean["path"] == sdk["path"] == "/v1/chat/completions"
    assert lean["body"] == sdk["body"] == json.loads(BODY)
    for name in ("authorization", "content-type", "openai-organization", "openai-project"):
        ours = {k.lower(): v for k, v in lean["headers"].items()}
        theirs = {k.lower(): v for k, v in sdk["headers"].items()}
        assert ours[name] == theirs[name], name


def test_an_audit_of_a_server_by_url_never_imports_the_sdk(
    starter_small: Path, tmp_path: Path
) -> None:
    """The SDK's import is the largest start-up cost of `paraudit run`; against a server named
    by URL nothing on the way needs it (a failure would import it, to name itself)."""
    script = (
        "import sys\n"
        "from paraudit.cli.main import app\n"
        "try:\n"
        "    app(sys.argv[1:])\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "print('openai imported:', 'openai' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root)])}
    with Loopback(keep_alive=True) as srv:
        run = [sys.executable, "-c", script, "run", str(starter_small), "--judge"]
        run += [f"openai:test-model@{srv.url}/v1", "--probes", "J", "--protocols", "pointwise"]
        run += ["--cues", "none", "--limit", "2", "--out", str(tmp_path / "r")]
        out = subprocess.run(run, env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        calls = [r for r in srv.requests if r["path"].endswith("/chat/completions")]
    assert calls and "openai imported: False" in out.stdout
