"""Audio as hosted judges send it: each clip read, hashed and base64-encoded once per run, and
OpenAI-style request bodies serialised once, with the clips' encodings spliced in.

A run asks about each clip many times (every probe, cue, order and branch of its item), and
the per-call cost of re-reading, re-hashing, re-encoding and JSON-escaping every clip was most
of paraudit's CPU time per call. The bytes sent are still the file's bytes exactly as stored:
nothing is resampled or re-encoded silently.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from paraudit.judges.base import FatalJudgeError
from paraudit.memo import BoundedMemo
from paraudit.protocols.parts import AudioPart, Prompt

AUDIO_FORMATS = {".wav": ("wav", "audio/wav"), ".mp3": ("mp3", "audio/mpeg")}
CACHE_BYTES = 64 * 2**20
"""What a judge's clip cache holds at most. The plan asks an item's questions together and at
most --concurrency calls are built at once, so a few items' clips are all that is reused; the
cap keeps memory flat however many clips a dataset has."""


@dataclass(frozen=True)
class AudioPayload:
    data: bytes
    fmt: str
    mime: str
    sha256: str
    """sha256 of `data`: the bytes as sent."""


@dataclass(frozen=True)
class EncodedClip:
    """A clip as OpenAI-style APIs take it: base64 of the file's bytes."""

    b64: bytes
    """base64 of the bytes (ASCII, so it needs no JSON escaping)."""
    fmt: str
    mime: str
    sha256: str
    """sha256 of the bytes encoded."""


def read_audio(part: AudioPart) -> AudioPayload:
    """The file's bytes exactly as stored: paraudit never resamples or re-encodes silently."""
    suffix = part.path.suffix.lower()
    if suffix not in AUDIO_FORMATS:
        raise FatalJudgeError(
            f"{part.path.name}: hosted judges take wav or mp3; convert the dataset explicitly "
            "(nothing is converted silently)"
        )
    data = part.path.read_bytes()
    fmt, mime = AUDIO_FORMATS[suffix]
    return AudioPayload(data, fmt, mime, hashlib.sha256(data).hexdigest())


def encode_audio(part: AudioPart) -> EncodedClip:
    a = read_audio(part)
    return EncodedClip(base64.b64encode(a.data), a.fmt, a.mime, a.sha256)


T = TypeVar("T")


class ClipCache(BoundedMemo[AudioPart, T]):
    """`load(part)` once per clip while it stays among the most recently used, up to `budget`
    bytes (as `size` counts them). One per judge; thread-safe, since a batching judge builds its
    prompts in a worker thread."""

    def __init__(
        self, load: Callable[[AudioPart], T], size: Callable[[T], int], budget: int = CACHE_BYTES
    ) -> None:
        super().__init__(load, size, budget)


def encoded_clips() -> ClipCache[EncodedClip]:
    return ClipCache(encode_audio, lambda c: len(c.b64))


def payloads() -> ClipCache[AudioPayload]:
    return ClipCache(read_audio, lambda a: len(a.data))


def openai_content(
    prompt: Prompt, clips: ClipCache[EncodedClip], form: str = "input_audio"
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """OpenAI-style content parts in prompt order, and the sha256 of each clip's bytes sent.

    `input_audio` is OpenAI's form; `audio_url` with a data URI is what vLLM also accepts.
    """
    content: list[dict[str, Any]] = []
    sent: list[str] = []
    for p in prompt:
        if isinstance(p, AudioPart):
            c = clips.get(p)
            b64 = c.b64.decode("ascii")
            sent.append(c.sha256)
            if form == "input_audio":
                content.append(
                    {"type": "input_audio", "input_audio": {"data": b64, "format": c.fmt}}
                )
            else:
                content.append(
                    {"type": "audio_url", "audio_url": {"url": f"data:{c.mime};base64,{b64}"}}
                )
        else:
            content.append({"type": "text", "text": p.text})
    return content, tuple(sent)


def dumps(value: Any) -> bytes:
    """JSON as the openai SDK (and httpx) serialise a request body: compact, UTF-8."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def chat_body(
    model: str, prompt: Prompt, clips: ClipCache[EncodedClip], form: str, rest: dict[str, Any]
) -> tuple[bytes, tuple[str, ...]]:
    """The chat-completions request body, byte for byte what serialising
    {"model": model, "messages": [{"role": "user", "content": openai_content(...)}], **rest}
    gives, and the sha256 of each clip sent. Each clip's base64 goes in as it is: JSON-escaping
    a clip means scanning every one of its characters, the largest cost of a call."""
    parts: list[bytes] = []
    sent: list[str] = []
    for p in prompt:
        if isinstance(p, AudioPart):
            c = clips.get(p)
            sent.append(c.sha256)
            if form == "input_audio":
                parts += (b'{"type":"input_audio","input_audio":{"data":"', c.b64, b'","format":')
                parts += (dumps(c.fmt), b"}}")
            else:
                parts += (b'{"type":"audio_url","audio_url":{"url":"data:', c.mime.encode())
                parts += (b";base64,", c.b64, b'"}}')
        else:
            parts.append(dumps({"type": "text", "text": p.text}))
        parts.append(b",")
    if parts:
        parts.pop()  # the comma after the last part
    tail = dumps(rest)[1:] if rest else b"}"  # rest's members, after the messages
    head = b'{"model":' + dumps(model) + b',"messages":[{"role":"user","content":['
    return b"".join((head, *parts, b"]}]", b"," if rest else b"", tail)), tuple(sent)
