"""The composition LLM client against loopback servers speaking the real wire formats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from paraudit.compose.llm import CompletionCache, ComposerLLM, LLMSpec, cache_key, model_family
from paraudit.errors import ParauditError
from tests.builders.fakes import ChatServer
from tests.judges.loopback import Loopback, Scripted


def _llm(spec: str, tmp: Path, **kw: Any) -> ComposerLLM:
    return ComposerLLM(LLMSpec.parse(spec), CompletionCache(tmp / "c.sqlite"), **kw)


def test_spec_parsing_family_and_key() -> None:
    s = LLMSpec.parse("openai:gpt-4o-mini@http://h/v1?temperature=0.7&timeout=9")
    assert s.family == "openai" and s.base_url == "http://h/v1"
    assert s.params() == {"max_tokens": 4096, "temperature": 0.7}
    assert s.label == "openai:gpt-4o-mini?temperature=0.7"
    assert model_family("Qwen/Qwen2.5-7B-Instruct", "openai") == "qwen"
    assert LLMSpec.parse("gemini:gemini-2.5-flash").family == "google"
    with pytest.raises(ParauditError, match="unknown LLM backend"):
        LLMSpec.parse("hf:x")
    with pytest.raises(ParauditError, match="must be a number"):
        LLMSpec.parse("openai:x?temperature=hot").params()
    msgs = [{"role": "user", "content": "hi"}]
    # Harness options do not change the key; decoding options do.
    assert cache_key(LLMSpec.parse("openai:m?timeout=1"), msgs) == cache_key(
        LLMSpec.parse("openai:m"), msgs
    )
    assert cache_key(LLMSpec.parse("openai:m?temperature=1"), msgs) != cache_key(
        LLMSpec.parse("openai:m"), msgs
    )


def test_openai_compatible_calls_are_cached_and_resumed(tmp_path: Path) -> None:
    with ChatServer(lambda m: "echo " + m[-1]["content"]) as s:
        llm = _llm(s.spec, tmp_path)
        assert llm.ask("one") == "echo one"
        assert (
            llm.chat(
                [
                    {"role": "user", "content": "a"},
                    {"role": "assistant", "content": "b"},
                    {"role": "user", "content": "c"},
                ]
            )
            == "echo c"
        )
        assert len(s.requests) == 2 and s.requests[1]["messages"][1]["role"] == "assistant"
        assert s.requests[0]["max_tokens"] == 4096
        again = _llm(s.spec, tmp_path)  # a new process after a crash: same cache file
        assert again.ask("one") == "echo one"
        assert len(s.requests) == 2 and again.stats.cache_hits == 1


def test_transient_errors_are_retried_then_given_up(tmp_path: Path) -> None:
    with ChatServer(lambda m: "fine") as s:
        s.fail_after = 0
        llm = _llm(s.spec + "?retries=3", tmp_path, backoff_s=0.01)
        with pytest.raises(ParauditError, match="gave up after 3 tries"):
            llm.ask("x")
        assert len(s.requests) == 3
        s.fail_after = None
        assert llm.ask("x") == "fine"  # nothing failed was cached


def test_gemini_generate_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    with Loopback(models=("gemini-x",)) as lb:
        lb.script.append(
            Scripted(
                body={
                    "candidates": [
                        {
                            "content": {"role": "model", "parts": [{"text": "generated"}]},
                            "finishReason": "STOP",
                            "index": 0,
                        }
                    ]
                }
            )
        )
        llm = _llm(f"gemini:gemini-x@{lb.url}", tmp_path)
        out = llm.chat(
            [
                {"role": "user", "content": "p"},
                {"role": "assistant", "content": "r"},
                {"role": "user", "content": "refine"},
            ]
        )
        assert out == "generated"
        body = lb.requests[0]["body"]
        assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
        assert body["generationConfig"]["maxOutputTokens"] == 4096
        assert json.dumps(body).count("refine") == 1


def test_a_hosted_generator_without_a_key_says_which_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ParauditError, match="OPENAI_API_KEY"):
        _llm("openai:gpt-4o", tmp_path).ask("x")


# No provider's key shape: only the literal key the generator sent can catch it (issue 30).
PLAIN_KEY = "gen-private-7f3a9c2e51"


def _chat_body(content: str) -> dict[str, Any]:
    return {
        "id": "x", "object": "chat.completion", "created": 0, "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
    }  # fmt: skip


def test_a_generator_key_echoed_in_a_reply_is_cached_and_returned_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEN_KEY", PLAIN_KEY)
    with Loopback() as lb:
        lb.script.append(Scripted(body=_chat_body(f"text; you sent {PLAIN_KEY}")))
        llm = _llm(f"openai:test-model@{lb.url}/v1?key_env=GEN_KEY", tmp_path)
        reply = llm.ask("x")
        headers = {k.lower(): v for k, v in lb.requests[0]["headers"].items()}
    assert headers.get("authorization") == f"Bearer {PLAIN_KEY}"  # where it belongs
    assert PLAIN_KEY not in reply and reply.startswith("text; you sent")
    assert PLAIN_KEY.encode() not in (tmp_path / "c.sqlite").read_bytes()


@pytest.mark.parametrize("status", [401, 500])
def test_a_generator_key_echoed_in_an_error_is_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    monkeypatch.setenv("GEN_KEY", PLAIN_KEY)
    body = {"error": {"message": f"key {PLAIN_KEY} is not valid here"}}
    with Loopback() as lb:
        lb.script.extend([Scripted(status=status, body=body)] * 3)
        llm = _llm(f"openai:test-model@{lb.url}/v1?key_env=GEN_KEY&retries=2", tmp_path)
        llm.backoff_s = 0.0
        with pytest.raises(ParauditError) as info:
            llm.ask("x")
    assert "not valid here" in str(info.value) and PLAIN_KEY not in str(info.value)
