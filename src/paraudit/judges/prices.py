"""A small, dated price table for `--dry-run` cost estimates; override it with --prices FILE.

Figures are USD per million tokens as listed on the providers' public pricing pages on the
date given. They were not re-checked from this offline machine, so treat estimates as rough
and pass your own table (same JSON shape) when budgeting.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paraudit.bounds import not_regular
from paraudit.errors import ParauditError
from paraudit.judges.spec import JudgeSpec

PRICES_DATE = "2025-06"


@dataclass(frozen=True)
class Price:
    text_in: float
    """USD per 1M text input tokens."""
    audio_in: float
    """USD per 1M audio input tokens."""
    out: float
    """USD per 1M output tokens."""
    audio_tokens_per_s: float
    """How many tokens a second of audio costs."""


DEFAULT_PRICES: dict[str, Price] = {
    # OpenAI: audio is billed at about 10 tokens per second of input.
    "openai:gpt-4o-audio-preview": Price(2.5, 40.0, 10.0, 10.0),
    "openai:gpt-4o-mini-audio-preview": Price(0.15, 10.0, 0.6, 10.0),
    "openai:gpt-audio": Price(2.5, 40.0, 10.0, 10.0),
    # Gemini: 32 tokens per second of audio.
    "gemini:gemini-2.5-pro": Price(1.25, 1.25, 10.0, 32.0),
    "gemini:gemini-2.5-flash": Price(0.30, 1.00, 2.50, 32.0),
}
OUTPUT_TOKENS_PER_CALL = 150
"""Assumed reply length (the paper's prompts ask for short JSON with reasoning)."""


def load_prices(path: Path | None) -> dict[str, Price]:
    prices = dict(DEFAULT_PRICES)
    if path is None:
        return prices
    kind = not_regular(path)
    if kind is not None:  # a FIFO would wait forever for a writer, /dev/zero never end
        raise ParauditError(f"--prices {path} is {kind}; give a regular JSON file")
    try:
        raw: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        for key, value in raw.items():
            prices[key] = Price(**value)
    except (OSError, ValueError, TypeError, RecursionError) as e:
        raise ParauditError(
            f"{path}: not a price table ({e}); expected "
            '{"openai:MODEL": {"text_in": …, "audio_in": …, "out": …, "audio_tokens_per_s": …}}'
        ) from None
    return prices


def estimate(
    spec: JudgeSpec, text_tokens: int, audio_seconds: float, calls: int, prices: dict[str, Price]
) -> dict[str, Any]:
    """Estimated USD for a judge, or a note that its price is unknown (free for local ones)."""
    key = f"{spec.backend}:{spec.model}"
    if spec.backend == "scaffold":
        # Its calls are the wrapped judge's P and Staging questions, not the planned ones.
        return {"usd": None, "note": "scaffold: the wrapped judge's P and Staging calls; "
                "estimate the wrapped judge with --probes P,S"}  # fmt: skip
    if spec.backend in ("builtin", "hf", "vllm", "desta") or spec.base_url is not None:
        return {"usd": 0.0, "note": "runs locally or on your own server: no API charge"}
    p = prices.get(key)
    if p is None:
        return {"usd": None, "note": f"no price for {key}; add it with --prices FILE"}
    usd = (
        text_tokens * p.text_in
        + audio_seconds * p.audio_tokens_per_s * p.audio_in
        + calls * OUTPUT_TOKENS_PER_CALL * p.out
    ) / 1e6
    return {
        "usd": round(usd, 2),
        "note": f"prices as of {PRICES_DATE}; {OUTPUT_TOKENS_PER_CALL} "
        "output tokens assumed per call",
    }
