"""JudgeSpec: a judge spec string `backend:model[@base_url][?key=value&...]`, parsed once.

Options split in two: model options change what the judge answers (temperature, seed, …) and
are part of its label and cache key; harness options change only how calls are made (rate
limits, timeouts, the key's variable name, test hooks) and are not. Values are checked here,
at parse time, so a typo is one line before any work, never a hang or a traceback later.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl

from paraudit.errors import ParauditError

# Options that change how calls are made but not what the model answers.
HARNESS_OPTIONS = frozenset(
    {
        "key_env",
        "timeout",
        "rpm",
        "tpm",
        "max_audio_seconds",
        "inline_limit_mb",
        "batch_size",
        "limit_audio",
        # vLLM engine sizing: where the model runs, not what it answers
        "max_model_len",
        "gpu_memory_utilization",
        # builtin judges' test hooks
        "delay",
        "burn",
        "calllog",
        "fail_rate",
        "fail_times",
    }
)


def _number(lo: float, hi: float = math.inf, *, lo_open: bool = True) -> Callable[[str], str]:
    def check(v: str) -> str:
        try:
            x = float(v)
        except ValueError:
            raise ValueError("must be a number") from None
        low_ok = x > lo if lo_open else x >= lo
        if not (low_ok and x <= hi and math.isfinite(x)):
            bound = f"{'>' if lo_open else '≥'} {lo:g}" + (
                "" if hi == math.inf else f" and ≤ {hi:g}"
            )
            raise ValueError(f"must be {bound}")
        return v

    return check


def _integer(lo: int) -> Callable[[str], str]:
    def check(v: str) -> str:
        try:
            x = int(v)
        except ValueError:
            raise ValueError("must be a whole number") from None
        if x < lo:
            raise ValueError(f"must be ≥ {lo}")
        return v

    return check


def _any_int(v: str) -> str:
    return _integer(-(2**63))(v)


CHECKS: dict[str, Callable[[str], str]] = {
    "rpm": _number(0),
    "tpm": _number(0),
    "timeout": _number(0),
    "max_audio_seconds": _number(0),
    "inline_limit_mb": _number(0),
    "batch_size": _integer(1),
    "limit_audio": _integer(1),
    "delay": _number(0, lo_open=False),
    "burn": _number(0, lo_open=False),
    "max_model_len": _integer(1),
    "gpu_memory_utilization": _number(0, 1),
    "fail_rate": _number(0, 1, lo_open=False),
    "fail_times": _integer(0),
    "temperature": _number(0, lo_open=False),
    "top_p": _number(0, 1),
    "seed": _any_int,
    "max_tokens": _integer(1),
}


@dataclass(frozen=True)
class JudgeSpec:
    text: str
    """The spec as the user wrote it."""
    backend: str
    model: str
    base_url: str | None
    model_options: tuple[tuple[str, str], ...]
    """Output-changing options, sorted by name."""
    harness_options: tuple[tuple[str, str], ...]
    """Options that change only how calls are made, sorted by name."""

    @property
    def key_env(self) -> str | None:
        return dict(self.harness_options).get("key_env")

    @property
    def options(self) -> dict[str, str]:
        """Every option (model and harness), as backends read them."""
        return dict(sorted([*self.model_options, *self.harness_options]))

    @property
    def head(self) -> str:
        """backend:model[@base_url]"""
        return f"{self.backend}:{self.model}" + (f"@{self.base_url}" if self.base_url else "")

    @property
    def label(self) -> str:
        """The judge's unique human-readable name: head plus every output-changing option.
        Rows, tables and run specs name the judge by it."""
        if not self.model_options:
            return self.head
        return self.head + "?" + "&".join(f"{k}={v}" for k, v in self.model_options)

    @property
    def identity(self) -> str:
        """Canonical JSON of everything that changes the judge's answers."""
        return json.dumps(
            {
                "backend": self.backend,
                "model": self.model,
                "base_url": self.base_url,
                "options": dict(self.model_options),
            },
            sort_keys=True,
            separators=(",", ":"),
        )

    def harness_float(self, name: str) -> float | None:
        value = dict(self.harness_options).get(name)
        return float(value) if value is not None else None


def parse_judge_spec(text: str) -> JudgeSpec:
    head, _, query = text.strip().partition("?")
    if ":" not in head:
        raise ParauditError(
            f"judge spec '{text}' must look like backend:model (e.g. builtin:prosody)"
        )
    backend, model = head.split(":", 1)
    base_url = None
    if "@" in model:
        model, base_url = model.split("@", 1)
        if not base_url:
            raise ParauditError(f"judge spec '{text}' has '@' but no base URL after it")
    if not backend or not model:
        raise ParauditError(f"judge spec '{text}' names no {'backend' if not backend else 'model'}")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise ParauditError(
            f"judge spec '{text}': options must look like ?name=value&name=value"
        ) from None
    seen: dict[str, str] = {}
    for name, value in pairs:
        if name in seen:
            raise ParauditError(f"judge spec '{text}' sets option '{name}' twice")
        check = CHECKS.get(name)
        if check is not None:
            try:
                check(value)
            except ValueError as e:
                raise ParauditError(f"judge spec '{text}': {name}={value!r} {e}") from None
        seen[name] = value
    model_opts = tuple(sorted((k, v) for k, v in seen.items() if k not in HARNESS_OPTIONS))
    harness = tuple(sorted((k, v) for k, v in seen.items() if k in HARNESS_OPTIONS))
    return JudgeSpec(text.strip(), backend, model, base_url, model_opts, harness)
