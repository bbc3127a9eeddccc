"""What hosted judges share: keys from the environment, decoding options, SDK errors (audio
payloads: judges.payloads)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from paraudit.judges.base import FatalJudgeError, JudgeError
from paraudit.judges.spec import JudgeSpec
from paraudit.providers import Failure, find_key, first_line
from paraudit.versions import package_version

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


MAX_TOKEN_COUNT = 1e9
"""No call's prompt or reply holds a billion tokens: a count beyond it (a hostile or broken
server's `1e308`), a negative or a non-finite one is not a measurement."""


def checked_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """`usage` with every count outside physical bounds (negative, non-finite, beyond
    MAX_TOKEN_COUNT, at any depth) taken out and listed under `usage["invalid"]` as
    "path=value", so the delivery check and the totals never report "inf audio tokens"."""
    invalid: list[str] = []

    def walk(x: Any, path: str) -> Any:
        if isinstance(x, dict):
            pairs = ((k, walk(v, f"{path}{k}.")) for k, v in x.items())
            return {k: v for k, v in pairs if v is not _DROPPED}
        if isinstance(x, list):
            kept = (walk(v, f"{path}[{i}].") for i, v in enumerate(x))
            return [v for v in kept if v is not _DROPPED]
        if isinstance(x, int | float) and not isinstance(x, bool):
            if not (math.isfinite(x) and 0 <= x <= MAX_TOKEN_COUNT):
                invalid.append(f"{path.rstrip('.')}={x!r}")
                return _DROPPED
        return x

    out: dict[str, Any] = walk(usage, "")
    if invalid:
        out["invalid"] = invalid
    return out


_DROPPED = object()


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

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """What a spec without decoding options is decoded with: part of the backends' declared
        state (Judge.state), so a changed default is a different judge."""
        return cls().as_dict()


sdk_version = package_version
