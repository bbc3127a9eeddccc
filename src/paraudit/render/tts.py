"""TTS backends by spec string, for building audit sets.

    piper[:VOICE.onnx]                          offline default (Piper + Praat prosody profile)
    openai:gpt-4o-mini-tts[@BASE_URL][?voices=echo,alloy,ash&rate=24000&key_env=NAME]
    gemini:MODEL[@BASE_URL][?voices=Kore,Puck,Charon&rate=24000&key_env=NAME]

Every backend returns `Clip`s at ONE sample rate for the whole set (`TTSBackend.sample_rate`);
audio a service returns at another rate is resampled explicitly and the clip's meta records it
(`resampled_from_hz`). Clips are written as 16-bit PCM mono WAV (`wav_bytes`).

Each conversation draws one voice for the human and a different one for the assistant from the
backend's voice set (`draw_voices`), as in the paper (B.2.3).

`synthesize(..., attempt=k)` asks for the k-th rendering of the same turn (render-and-retry):
hosted services sample afresh on each call; Piper is deterministic, so attempt k pushes the
emotion's prosody profile further (strength 1 + 0.12·k, capped at 1.8).

This module holds what every backend shares; the backends live beside it (`piper_tts`,
`hosted_tts`) and `backends.make_tts` picks one, so no backend imports the factory.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import tempfile
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from paraudit.audio.clips import OUTPUT_SUBTYPE, Clip, resample, wav_bytes
from paraudit.errors import ParauditError
from paraudit.items.records import Speaker
from paraudit.permissions import follow_umask
from paraudit.render.cache_sweep import sweep_stale_temps
from paraudit.specs import integer, number, parse_spec, redact, typed

# Praat (parselmouth) and espeak-ng (inside Piper) keep global state and are not known to be
# thread-safe: local synthesis and measurement run one at a time under this lock, while hosted
# calls wait on the network in parallel.
LOCAL_COMPUTE = threading.RLock()
# Bump when what a cached hosted rendering means changes (styles, template, conversion).
TTS_CACHE_VERSION = 1


@dataclass(frozen=True)
class VoicePair:
    human: str
    assistant: str

    def for_role(self, role: Speaker) -> str:
        return self.human if role == "human" else self.assistant


def draw_voices(voices: Sequence[str], seed: int, conversation: str) -> VoicePair:
    """One voice for the human and a different one for the assistant, drawn from `voices`,
    reproducibly for (seed, conversation id)."""
    distinct = list(dict.fromkeys(voices))
    if len(distinct) < 2:
        raise ParauditError(
            f"a voice set needs at least two voices (human ≠ assistant), got {distinct}"
        )
    digest = hashlib.sha256(f"{seed}\x00{conversation}".encode()).digest()
    human, assistant = random.Random(int.from_bytes(digest[:8], "big")).sample(distinct, 2)
    return VoicePair(human, assistant)


@dataclass(frozen=True)
class TTSSpec:
    backend: str
    model: str
    base_url: str | None
    options: dict[str, str]


def parse_tts_spec(spec: str) -> TTSSpec:
    """`backend[:model][@base_url][?name=value&…]`: the grammar of paraudit.specs (the model
    may be left out: each backend has a default)."""
    s = parse_spec(spec, "TTS", "openai:gpt-4o-mini-tts", model_optional=True)
    if s.backend not in BACKENDS:
        raise ParauditError(  # a name not known (exit 1), as for the judges' backends
            f"unknown TTS backend '{s.backend}' in '{spec}' (known: {', '.join(BACKENDS)})"
        )
    # The numbers the hosted backends read are checked here (finite, in range), once.
    typed(s, "TTS", {"timeout": number(0), "max_retries": integer(0)})
    return TTSSpec(s.backend, s.model, s.base_url, s.option_dict)


class TTSBackend(ABC):
    """Text + emotion + role + voice → one `Clip`, at `sample_rate` for the whole set."""

    name: str
    voices: tuple[str, ...]
    sample_rate: int
    deterministic: bool = False
    """True when the same request always gives the same audio (one neutral rendering is then
    a complete baseline)."""

    def __init__(self, spec: str, cache_dir: Path | None) -> None:
        self.spec = spec
        self.cache_dir = cache_dir / "tts" if cache_dir is not None else None
        if self.cache_dir is not None and self.cache_dir.is_dir():
            sweep_stale_temps(self.cache_dir)
        self.cache_hits = 0
        self.fresh_renders = 0
        self.secrets: tuple[str, ...] = ()
        """The credentials this backend sends (a hosted service's API key): redacted from its
        errors before they are printed, since a service may echo the key it was sent."""

    @property
    @abstractmethod
    def label(self) -> str:
        """Human-readable identity of what renders (model and options that change audio)."""

    def describe(self) -> dict[str, Any]:
        """For the dataset card: backend, model, voice set, output format."""
        return {
            "backend": self.name,
            "label": self.label,
            "voices": list(self.voices),
            "sample_rate": self.sample_rate,
            "format": f"wav/{OUTPUT_SUBTYPE}/mono",
            "deterministic": self.deterministic,
        }

    def check_voice(self, voice: str) -> None:
        if voice not in self.voices:
            raise ParauditError(
                f"{self.label}: unknown voice '{voice}' (voices: {', '.join(self.voices)})"
            )

    def synthesize(
        self, text: str, emotion: str, role: Speaker, voice: str, *, attempt: int = 0
    ) -> Clip:
        self.check_voice(voice)
        if not text.strip():
            raise ParauditError("cannot synthesize an empty turn")
        request = self.request(text, emotion, role, voice, attempt)
        key = hashlib.sha256(
            json.dumps(
                {"v": TTS_CACHE_VERSION, "label": self.label, "rate": self.sample_rate, **request},
                sort_keys=True,
            ).encode()
        ).hexdigest()
        cached = self._cache_read(key)
        if cached is not None:
            self.cache_hits += 1
            return cached
        try:
            samples, rate, meta = self.render(text, emotion, role, voice, attempt)
        except ParauditError as e:
            e.args = tuple(redact(a, self.secrets) if isinstance(a, str) else a for a in e.args)
            raise
        if rate != self.sample_rate:
            samples = resample(samples, rate, self.sample_rate)
            meta = {**meta, "resampled_from_hz": rate}
        meta = {
            "backend": self.name,
            "tts": self.label,
            "voice": voice,
            "emotion": emotion,
            "role": role,
            "attempt": attempt,
            **meta,
        }
        clip = Clip(np.clip(samples, -1.0, 1.0), self.sample_rate, meta)
        self.fresh_renders += 1
        self._cache_write(key, clip)
        return clip

    def request(
        self, text: str, emotion: str, role: Speaker, voice: str, attempt: int
    ) -> dict[str, Any]:
        """Everything that decides the rendering (the cache key); checks the emotion."""
        return {"text": text, "emotion": emotion, "role": role, "voice": voice, "attempt": attempt}

    @abstractmethod
    def render(
        self, text: str, emotion: str, role: Speaker, voice: str, attempt: int
    ) -> tuple[np.ndarray, int, dict[str, Any]]:
        """Samples, their rate, and meta describing how they were made."""

    def _cache_read(self, key: str) -> Clip | None:
        if self.cache_dir is None:
            return None
        wav, meta = self.cache_dir / f"{key}.wav", self.cache_dir / f"{key}.json"
        if not (wav.is_file() and meta.is_file()):
            return None
        samples, rate = sf.read(str(wav), dtype="float64")
        return Clip(samples, int(rate), json.loads(meta.read_text(encoding="utf-8")))

    def _cache_write(self, key: str, clip: Clip) -> None:
        if self.cache_dir is None:
            return
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        # Meta first, WAV last: a reader only trusts an entry whose WAV exists.
        for suffix, data in (
            (".json", json.dumps(dict(clip.meta), sort_keys=True).encode()),
            (".wav", wav_bytes(clip)),
        ):
            fd, tmp = tempfile.mkstemp(suffix=suffix, dir=self.cache_dir)
            follow_umask(tmp)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self.cache_dir / f"{key}{suffix}")


@dataclass(frozen=True)
class BackendInfo:
    name: str
    description: str
    extra: str | None


BACKENDS: dict[str, BackendInfo] = {
    b.name: b
    for b in (
        BackendInfo("piper", "offline Piper voice, emotion as a prosody profile (default)", "tts"),
        BackendInfo("openai", "OpenAI audio/speech (gpt-4o-mini-tts) with instructions", "openai"),
        BackendInfo("gemini", "Gemini TTS via generateContent (audio modality)", "gemini"),
    )
}
