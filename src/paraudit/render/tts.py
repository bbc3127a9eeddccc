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
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import tempfile
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from paraudit.errors import ParauditError
from paraudit.items.records import Speaker
from paraudit.permissions import follow_umask
from paraudit.render.profiles import EmotionProfile
from paraudit.specs import SpecError, integer, number, parse_spec, typed

OUTPUT_SUBTYPE = "PCM_16"
# Praat (parselmouth) and espeak-ng (inside Piper) keep global state and are not known to be
# thread-safe: local synthesis and measurement run one at a time under this lock, while hosted
# calls wait on the network in parallel.
LOCAL_COMPUTE = threading.RLock()
# Bump when what a cached hosted rendering means changes (styles, template, conversion).
TTS_CACHE_VERSION = 1


@dataclass(frozen=True, eq=False)
class Clip:
    """One rendering: mono float samples in [-1, 1] at the backend's set-wide rate."""

    samples: np.ndarray
    sample_rate: int
    meta: Mapping[str, Any] = field(default_factory=dict)
    """backend, model, voice, emotion, role, attempt, and how it was made (instructions,
    profile, resampling); JSON-able, for the dataset card. Never sent to a judge."""

    @property
    def duration_s(self) -> float:
        return len(self.samples) / self.sample_rate


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


def wav_bytes(clip: Clip) -> bytes:
    """The clip as the set's file format: 16-bit PCM mono WAV."""
    buf = io.BytesIO()
    sf.write(buf, np.clip(clip.samples, -1.0, 1.0), clip.sample_rate, "PCM_16", format="WAV")
    return buf.getvalue()


def resample(samples: np.ndarray, rate: int, target: int) -> np.ndarray:
    """Band-limited polyphase resampling (no-op when the rates match)."""
    if rate == target:
        return samples
    from math import gcd

    from scipy.signal import resample_poly

    g = gcd(rate, target)
    return np.asarray(resample_poly(samples, target // g, rate // g), dtype=np.float64)


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
        raise SpecError(
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
        self.cache_hits = 0
        self.fresh_renders = 0

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
        samples, rate, meta = self.render(text, emotion, role, voice, attempt)
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


PIPER_VOICES = ("plain", "shifted")
PIPER_STRENGTH_STEP = 0.12
PIPER_MAX_STRENGTH = 1.8
# Where the starter profiles fall short of the published acceptance rules, the TTS backend
# starts further out: "hesitant" must rise ≥ 6 st/s over the last 0.6 s of voicing (the starter
# profile's 3 st rise over 0.4 s measured 1.5–6 st/s) and, from 7 words, have a second long
# pause (the k-th longest with k = 2).
PIPER_OVERRIDES: dict[str, dict[str, Any]] = {"hesitant": {"end_rise_st": 6.0}}
# The rise spans the same stretch the scorer fits the end slope over (the last 0.6 s of
# voicing); the starter's 0.4 s ramp measured shallower than 6 st/s on some sentence endings.
PIPER_RISE_WINDOW_S = 0.6


def split_for_pauses(text: str, pauses: int) -> list[str]:
    """Phrases for `pauses` inserted pauses: natural boundaries first (the starter renderer's
    rule), then the longest phrase is halved until there are enough (each keeps ≥ 2 words)."""
    from paraudit.render.prosody import split_phrases

    phrases = split_phrases(text, pauses)
    while len(phrases) - 1 < pauses:
        i = max(range(len(phrases)), key=lambda j: len(phrases[j].split()))
        words = phrases[i].split()
        if len(words) < 4:
            break
        mid = len(words) // 2
        phrases[i : i + 1] = [" ".join(words[:mid]), " ".join(words[mid:])]
    return phrases


class PiperTTS(TTSBackend):
    """The offline default: Piper speech with emotion as a Praat prosody profile.

    One Piper model gives two voices: `plain`, and `shifted` (formants and pitch moved by
    Praat's "Change gender", the chain the starter set uses for the assistant). Emotion is a
    prosody manipulation of zero-noise Piper speech, not acted emotion; the card must say so.
    The processing chain is the starter renderer's (the same functions), so neutral clips go
    through the same chain as emotional ones.
    """

    name = "piper"
    voices = PIPER_VOICES
    deterministic = True

    def __init__(self, spec: str, s: TTSSpec, cache_dir: Path | None) -> None:
        from paraudit.render.piper_voice import resolve_voice

        super().__init__(spec, cache_dir)
        self.voice = resolve_voice(s.model or None)
        self.sample_rate = self.voice.sample_rate

    @property
    def label(self) -> str:
        return f"{self.voice.label}+psola"

    def strength(self, attempt: int) -> float:
        return min(PIPER_MAX_STRENGTH, 1.0 + PIPER_STRENGTH_STEP * attempt)

    def profile(self, role: Speaker, emotion: str, attempt: int) -> EmotionProfile:
        from paraudit.render.profiles import profile_for
        from paraudit.render.tts_styles import ALIASES

        name = ALIASES.get(emotion.lower(), emotion.lower())
        try:
            base = profile_for(role, name)
        except ValueError as e:
            raise ParauditError(f"piper: {e}") from None
        if name in PIPER_OVERRIDES:
            base = replace(base, **PIPER_OVERRIDES[name])
        return base.scaled(self.strength(attempt))

    def request(
        self, text: str, emotion: str, role: Speaker, voice: str, attempt: int
    ) -> dict[str, Any]:
        return {
            **super().request(text, emotion, role, voice, attempt),
            "model_sha256": self.voice.sha256,
            "profile": self.profile(role, emotion, attempt).params(),
            "rise_window_s": PIPER_RISE_WINDOW_S,
        }

    def render(
        self, text: str, emotion: str, role: Speaker, voice: str, attempt: int
    ) -> tuple[np.ndarray, int, dict[str, Any]]:
        from paraudit.render.piper_voice import load_synth
        from paraudit.render.prosody import apply_gain, apply_pitch, change_voice, join_with_pauses

        profile = self.profile(role, emotion, attempt)
        with LOCAL_COMPUTE:
            synth = load_synth(self.voice)
            rate = synth.sample_rate
            parts = [
                synth.synthesize(p, profile.length_scale)
                for p in split_for_pauses(text, profile.pauses)
            ]
            samples = join_with_pauses(parts, rate, profile.pause_s)
            if voice == "shifted":
                samples = change_voice(samples, rate)
            samples = apply_pitch(samples, rate, profile, rise_window_s=PIPER_RISE_WINDOW_S)
            samples = apply_gain(samples, profile.gain_db)
        meta = {
            "model": self.voice.label,
            "profile": profile.params(),
            "strength": round(self.strength(attempt), 3),
        }
        return samples, rate, meta


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
DEFAULT_TTS = "piper"


def make_tts(spec: str = DEFAULT_TTS, *, cache_dir: Path | None = None) -> TTSBackend:
    """The backend named by `spec`; hosted renderings are cached under `cache_dir/tts`."""
    s = parse_tts_spec(spec)
    if s.backend == "piper":
        return PiperTTS(spec, s, cache_dir)
    from paraudit.render.hosted_tts import GeminiTTS, OpenAITTS

    if s.backend == "openai":
        return OpenAITTS(spec, s, cache_dir)
    return GeminiTTS(spec, s, cache_dir)
