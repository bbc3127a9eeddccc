"""Clip encodings made once per clip, and request bodies serialised once with them spliced in."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from paraudit.errors import ParauditError
from paraudit.judges.payloads import (
    ClipCache,
    chat_body,
    encode_audio,
    encoded_clips,
    openai_content,
    payloads,
)
from paraudit.protocols.parts import AudioPart, Prompt, TextPart


def _clip(tmp: Path, name: str, data: bytes) -> AudioPart:
    path = tmp / name
    path.write_bytes(data)
    return AudioPart(path, hashlib.sha256(data).hexdigest())


def _prompt(tmp: Path) -> Prompt:
    a = _clip(tmp, "a.wav", b"RIFF" + bytes(range(256)) * 40)
    b = _clip(tmp, "b.mp3", b"ID3" + b"\xff\xfb" * 999)
    # Text a JSON encoder must escape: quotes, backslashes, newlines, control and non-ASCII
    # characters (kept as UTF-8, as the SDK sends them).
    tricky = 'Say "R1" or \\R2\\\n\ttabbed \x01 — émotion 😊'
    return (TextPart(tricky), a, TextPart("then"), b, a, TextPart(""))


def _as_the_sdk_would(value: Any) -> bytes:
    """The openai SDK's serialisation of a dict body (openai._utils._json.openapi_dumps)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


@pytest.mark.parametrize("form", ["input_audio", "audio_url"])
@pytest.mark.parametrize(
    "rest", [{"modalities": ["text"], "temperature": 0.0, "seed": 7, "max_tokens": 300}, {}]
)
def test_chat_body_is_byte_for_byte_the_dict_body_serialised(
    tmp_path: Path, form: str, rest: dict[str, Any]
) -> None:
    prompt = _prompt(tmp_path)
    content, sent = openai_content(prompt, encoded_clips(), form)
    expected = _as_the_sdk_would(
        {"model": 'm/ü"x', "messages": [{"role": "user", "content": content}], **rest}
    )
    body, body_sent = chat_body('m/ü"x', prompt, encoded_clips(), form, rest)
    assert body == expected
    assert body_sent == sent == tuple(p.sha256 for p in prompt if isinstance(p, AudioPart))
    parsed = json.loads(body)  # and the clips in it are the files' exact bytes
    clips = [c for c in parsed["messages"][0]["content"] if c["type"] != "text"]
    for c, part in zip(clips, [p for p in prompt if isinstance(p, AudioPart)], strict=True):
        b64 = c["input_audio"]["data"] if form == "input_audio" else c["audio_url"]["url"]
        assert base64.b64decode(b64.split(",")[-1]) == part.path.read_bytes()


def test_chat_body_of_a_text_only_prompt(tmp_path: Path) -> None:
    body, sent = chat_body("m", (TextPart("hi"),), encoded_clips(), "input_audio", {"seed": 1})
    assert json.loads(body) == {
        "model": "m",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "seed": 1,
    }
    assert sent == ()


def test_each_clip_is_read_and_encoded_once_while_it_fits(tmp_path: Path) -> None:
    prompt = _prompt(tmp_path)
    clips = encoded_clips()
    first = [chat_body("m", prompt, clips, "input_audio", {})[0] for _ in range(5)]
    assert clips.loads == 2  # two distinct clips, five prompts with three clips each
    assert len(set(first)) == 1


def test_the_cache_forgets_the_least_recently_used_clip_beyond_its_budget(tmp_path: Path) -> None:
    parts = [_clip(tmp_path, f"{n}.wav", bytes([n]) * 100) for n in range(3)]
    cache = ClipCache(encode_audio, lambda c: len(c.b64), budget=300)  # two clips' base64
    for p in (parts[0], parts[1], parts[0], parts[2]):  # 2 pushes out 1, the older one
        assert base64.b64decode(cache.get(p).b64) == p.path.read_bytes()
    assert cache.loads == 3
    cache.get(parts[0])
    assert cache.loads == 3
    cache.get(parts[1])
    assert cache.loads == 4


def test_a_clip_larger_than_the_budget_is_still_sent(tmp_path: Path) -> None:
    big = _clip(tmp_path, "big.wav", b"x" * 1000)
    cache = payloads()
    cache.budget = 10
    assert cache.get(big).data == b"x" * 1000 and cache.get(big).sha256 == big.sha256


def test_the_hash_sent_is_of_the_bytes_read_not_the_name(tmp_path: Path) -> None:
    part = _clip(tmp_path, "a.wav", b"one")
    part.path.write_bytes(b"two")  # the file changed after it was named
    assert encode_audio(part).sha256 == hashlib.sha256(b"two").hexdigest() != part.sha256


def test_other_formats_are_refused_not_converted(tmp_path: Path) -> None:
    part = _clip(tmp_path, "a.flac", b"fLaC")
    with pytest.raises(ParauditError, match="convert the dataset explicitly"):
        encoded_clips().get(part)


def test_an_openai_judge_reads_each_clip_once_over_many_calls(tmp_path: Path) -> None:
    pytest.importorskip("openai", reason="the 'openai' extra is not installed")
    from paraudit.judges.registry import load_judge
    from tests.judges.loopback import Loopback

    prompt = _prompt(tmp_path)
    with Loopback(keep_alive=True) as srv:
        judge: Any = load_judge(f"openai:test-model@{srv.url}/v1?seed=3")

        async def ask() -> list[Any]:
            return [await judge.generate(prompt, sample=n) for n in range(4)]

        replies = asyncio.run(ask())
    assert judge.clips.loads == 2
    bodies = [r["body"] for r in srv.requests if r["path"].endswith("/chat/completions")]
    expected, sent = openai_content(prompt, encoded_clips())
    assert len(bodies) == 4
    for body, reply in zip(bodies, replies, strict=True):
        assert body["messages"] == [{"role": "user", "content": expected}]
        assert body["seed"] == 3 and body["modalities"] == ["text"]
        assert reply.sent_audio_sha256 == sent
