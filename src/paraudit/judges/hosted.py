"""What hosted judges share: keys from the environment, decoding options, SDK errors (audio
payloads: judges.payloads)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from paraudit.errors import ParauditError
from paraudit.judges.spec import HARNESS_OPTIONS
from paraudit.versions import package_version

DECODING_OPTIONS = {"temperature", "top_p", "seed", "max_tokens"}


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
        return float(value) if value is not None else None
    except (AttributeError, ValueError):
        return None


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


sdk_version = package_version
