"""What hosted judges share: keys from the environment, decoding options, audio payloads."""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

from paraudit.judges.base import FatalJudgeError, JudgeError
from paraudit.judges.spec import HARNESS_OPTIONS, JudgeSpec
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.providers import Failure, find_key, first_line
from paraudit.versions import package_version

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


error_message = first_line


def api_key(s: JudgeSpec, defaults: tuple[str, ...], *, optional: bool = False) -> str:
    """The judge's key from its spec's key_env or the backend's usual variables."""
    return find_key(
        s.key_env,
        defaults,
        f"{s.backend} judge",
        optional=optional,
        hint=" (or name another variable with --api-key-env)",
    )


def judge_failure(f: Failure) -> Exception:
    """A classified provider failure as the runner's error types (stop, or retry)."""
    return FatalJudgeError(f.message) if f.fatal else JudgeError(f.message, f.retry_after)


@dataclass(frozen=True)
class Decoding:
    temperature: float = 0.0
    top_p: float | None = None
    seed: int | None = None
    max_tokens: int = 1024

    @classmethod
    def from_spec(cls, s: JudgeSpec) -> Decoding:
        """The decoding options, typed when the spec was parsed (no conversion here)."""
        temperature, max_tokens = s.number("temperature"), s.whole("max_tokens")
        return cls(
            temperature=0.0 if temperature is None else temperature,
            top_p=s.number("top_p"),
            seed=s.whole("seed"),
            max_tokens=1024 if max_tokens is None else max_tokens,
        )

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
