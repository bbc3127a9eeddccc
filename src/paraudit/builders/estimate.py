"""`--dry-run`: what a build would cost, before any call — LLM calls and characters, audio
seconds to synthesise, and a rough price.

The source is read and every first prompt is written out, so prompt characters are exact;
reply lengths, acceptance rates and speaking rate are stated assumptions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from paraudit.builders.composing import Candidate, calls_per_candidate
from paraudit.builders.pipeline import BuildOptions
from paraudit.builders.scorer import NEUTRAL_RENDERS
from paraudit.compose.prompts import BALANCE, LEXICAL_FACTORS, REFINE
from paraudit.render.renderer import RETRY_STRENGTHS
from paraudit.sources.emocf import SentencePair

PRICES_DATE = "2025-06"
# USD per 1M tokens (input, output), from the providers' public pricing pages on that date.
LLM_PRICES = {
    "openai:gpt-4o": (2.5, 10.0),
    "openai:gpt-4o-mini": (0.15, 0.6),
    "openai:gpt-4.1": (2.0, 8.0),
    "openai:gpt-4.1-mini": (0.4, 1.6),
    "gemini:gemini-2.5-flash": (0.30, 2.50),
    "gemini:gemini-2.5-pro": (1.25, 10.0),
}
# USD per minute of synthesised audio.
TTS_PRICES = {"openai:gpt-4o-mini-tts": 0.015, "piper": 0.0}
CHARS_PER_TOKEN = 4.0
WORDS_PER_SECOND = 2.5
RESPONSE_WORDS = 25
ASSUMED_ACCEPTANCE = {"single-turn": 0.9, "positional": 0.5, "conversations": 0.5}
REPLY_CHARS = {"single-turn": 400, "positional": 3000, "conversations": 3000}
RATING_REPLY_CHARS = 150
# Renders per clip with the starter set's direction check: a neutral baseline plus ~1.3 tries.
DIRECTION_RENDERS = 2.3


def renders_per_clip(tts_spec: str, qc: str, max_accepted: int) -> float:
    """At least: the Audio Scorer's neutral baselines (one for deterministic Piper, three for
    hosted TTS) plus `max_accepted` accepted tries (more when tries are rejected)."""
    if qc == "direction":
        return DIRECTION_RENDERS
    baselines = 1 if tts_spec.split(":", 1)[0] == "piper" else 3
    return float(baselines + max_accepted)


def max_renders_per_clip(tts_spec: str, qc: str, max_tries: int) -> int:
    """At most, what the retry policy may render for one clip: its neutral baselines (the
    direction check renders one neutral per text; the Audio Scorer one for deterministic Piper,
    three for hosted TTS) plus every try it allows (the direction check's three strengths,
    the scorer's `max_tries`)."""
    if qc == "direction":
        return 1 + len(RETRY_STRENGTHS)
    baselines = 1 if tts_spec.split(":", 1)[0] == "piper" else NEUTRAL_RENDERS
    return baselines + max_tries


@dataclass(frozen=True)
class Estimate:
    candidates: int
    tries: int
    expected_pairs: int
    llm_calls: int
    chars_in: int
    chars_out: int
    clips: int
    audio_seconds: float
    llm_usd: float | None
    tts_usd: float | None
    notes: tuple[str, ...]
    max_clips: int = 0
    """Clips if every tried record became a pair."""
    max_renders: int | None = None
    """Renders the retry policy may cost at most (`max_clips` × renders per clip at most)."""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _words(c: Candidate) -> tuple[int, int]:
    """(clips, words) the context of one pair would voice, both branches."""
    rec = c.record
    if isinstance(rec, SentencePair):
        return 2, 2 * len(rec.sentence.split())
    turns = rec.turns
    return 2 * len(turns), 2 * sum(len(t.text.split()) for t in turns)


def estimate(
    o: BuildOptions,
    candidates: list[Candidate],
    llm_spec: str,
    tts_spec: str,
    renders: float = DIRECTION_RENDERS,
    max_per_clip: int | None = None,
) -> Estimate:
    pool = candidates[: o.limit] if o.limit is not None else candidates
    acc = ASSUMED_ACCEPTANCE[o.kind]
    tries = len(pool) if o.n is None else min(len(pool), math.ceil(o.n / acc))
    expected = min(o.n or len(pool), round(tries * acc))
    tried = pool[:tries]
    per = calls_per_candidate(o.kind)
    reply = REPLY_CHARS[o.kind]
    chars_in = sum(len(c.messages[0]["content"]) for c in tried)
    if o.kind == "conversations":
        # The refine pass resends the first prompt and reply, then the refine request.
        chars_in += sum(len(c.messages[0]["content"]) + reply + len(REFINE.text) for c in tried)
    chars_out = tries * per * reply
    calls = tries * per
    if o.rate_balance:
        prompt = len(BALANCE.text) + len(", ".join(LEXICAL_FACTORS)) + 2 * RESPONSE_WORDS * 6
        calls += expected
        chars_in += expected * prompt
        chars_out += expected * RATING_REPLY_CHARS
    clips = words = max_clips = 0
    share = expected / tries if tries else 0.0
    for c in tried:
        n_clips, n_words = _words(c)
        human = 0 if o.audio == "source" else 1
        max_clips += n_clips * human + 2
        clips += round((n_clips * human + 2) * share)
        words += round((n_words * human + 2 * RESPONSE_WORDS) * share)
    backend = tts_spec.split(":", 1)[0]
    seconds = words / WORDS_PER_SECOND * renders
    notes = [
        f"assumed: {acc:.0%} of tried records become pairs, {reply} reply characters per "
        f"generator call, {WORDS_PER_SECOND} words/s, {renders:g} renders per clip (at least)",
        f"prices as of {PRICES_DATE}, {CHARS_PER_TOKEN:.0f} characters per token; "
        "cached calls and renders cost nothing on a rerun",
    ]
    head = llm_spec.split("?", 1)[0]
    if "@" in head:
        llm_usd: float | None = 0.0
        notes.append("the generator runs on your own server: no API charge")
    elif head in LLM_PRICES:
        pin, pout = LLM_PRICES[head]
        llm_usd = round((chars_in * pin + chars_out * pout) / CHARS_PER_TOKEN / 1e6, 2)
    else:
        llm_usd = None
        notes.append(f"no price known for {head}")
    tts_head = tts_spec.split("?", 1)[0].split("@", 1)[0]
    tts_price = TTS_PRICES.get(tts_head, TTS_PRICES.get(backend))
    tts_usd = None if tts_price is None else round(seconds / 60 * tts_price, 2)
    if tts_price is None:
        notes.append(f"no price known for TTS {tts_head}")
    return Estimate(
        candidates=len(candidates),
        tries=tries,
        expected_pairs=expected,
        llm_calls=calls,
        chars_in=chars_in,
        chars_out=chars_out,
        clips=clips,
        audio_seconds=round(seconds, 1),
        llm_usd=llm_usd,
        tts_usd=tts_usd,
        notes=tuple(notes),
        max_clips=max_clips,
        max_renders=None if max_per_clip is None else max_clips * max_per_clip,
    )
