"""What hosted judges share: keys from the environment, decoding options, audio payloads."""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from typing import Any

from paraudit.errors import ParauditError
from paraudit.judges.base import FatalJudgeError
from paraudit.judges.spec import HARNESS_OPTIONS
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.versions import package_version
from paraudit.waits import retry_after_seconds

AUDIO_FORMATS = {".wav": ("wav", "audio/wav"), ".mp3": ("mp3", "audio/mpeg")}
DECODING_OPTIONS = {"temperature", "top_p", "seed", "max_tokens"}


MAX_REPLY_CHARS = 64 * 1024
"""A judge's answer is a few words; a reply beyond this (a runaway generation, a hostile server)
is stored cut to it, its full size recorded in usage, instead of twice whole (calls.sqlite and
results.jsonl)."""


def capped_reply(text: str, usage: dict[str, Any]) -> str:
    """`text` cut to MAX_REPLY_CHARS, noting the full length in `usage` when it was cut."""
    if len(text) <= MAX_REPLY_CHARS:
        return text
    usage["reply_chars"] = len(text)
    usage["reply_stored_chars"] = MAX_REPLY_CHARS
    return text[:MAX_REPLY_CHARS]


def other_params(options: dict[str, str], handled: set[str]) -> dict[str, str]:
    """Spec options not already recorded elsewhere and not harness-only, for the cache key."""
    skip = HARNESS_OPTIONS | DECODING_OPTIONS | handled
    return {k: v for k, v in sorted(options.items()) if k not in skip}


def error_message(e: Exception) -> str:
    """The first line of an SDK error, short enough for a one-line message."""
    return str(e).splitlines()[0][:200] if str(e) else type(e).__name__


def retry_after(e: Any) -> float | None:
    """Seconds from an HTTP error's Retry-After header, if the SDK exposes the response."""
    try:
        value = e.response.headers.get("retry-after")
    except AttributeError:
        return None
    return retry_after_seconds(value)  # negative or unparsable: absent; the runner caps it


def api_key(options: dict[str, str], defaults: tuple[str, ...], backend: str) -> str:
    """The key from `key_env=NAME` or the backend's usual variables; never stored anywhere."""
    names = (options["key_env"],) if "key_env" in options else defaults
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    raise ParauditError(
        f"{backend} judge needs an API key: set {' or '.join(names)}"
        + ("" if "key_env" in options else " (or name another variable with --api-key-env)")
    )


@dataclass(frozen=True)
class Decoding:
    temperature: float = 0.0
    top_p: float | None = None
    seed: int | None = None
    max_tokens: int = 1024

    @classmethod
    def from_options(cls, options: dict[str, str]) -> Decoding:
        try:
            return cls(
                temperature=float(options.get("temperature", 0.0)),
                top_p=float(options["top_p"]) if "top_p" in options else None,
                seed=int(options["seed"]) if "seed" in options else None,
                max_tokens=int(options.get("max_tokens", 1024)),
            )
        except ValueError as e:
            raise ParauditError(f"bad decoding option: {e}") from None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass(frozen=True)
class AudioPayload:
    data: bytes
    fmt: str
    mime: str
    sha256: str


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


sdk_version = package_version


def openai_content(
    prompt: Prompt, form: str = "input_audio"
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """OpenAI-style content parts in prompt order, and the sha256 of each clip's bytes sent.

    `input_audio` is OpenAI's form; `audio_url` with a data URI is what vLLM also accepts.
    """
    content: list[dict[str, Any]] = []
    sent: list[str] = []
    for p in prompt:
        if isinstance(p, AudioPart):
            a = read_audio(p)
            b64 = base64.b64encode(a.data).decode("ascii")
            sent.append(a.sha256)
            if form == "input_audio":
                content.append(
                    {"type": "input_audio", "input_audio": {"data": b64, "format": a.fmt}}
                )
            else:
                content.append(
                    {"type": "audio_url", "audio_url": {"url": f"data:{a.mime};base64,{b64}"}}
                )
        else:
            content.append({"type": "text", "text": p.text})
    return content, tuple(sent)
