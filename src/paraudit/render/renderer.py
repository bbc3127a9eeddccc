"""Render a turn with an emotion profile, cached by content key, and verify it against neutral."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

from paraudit.items.records import Speaker
from paraudit.permissions import follow_umask
from paraudit.pools import interruptible_processes
from paraudit.qc.acoustics import ProsodyFeatures, measure
from paraudit.qc.verify import ProsodyDelta, delta, direction_failures
from paraudit.render.cache_sweep import sweep_stale_temps
from paraudit.render.offline_chain import change_timbre, piper_timbre
from paraudit.render.piper_voice import VoiceInfo, load_synth, resolve_voice
from paraudit.render.profiles import EmotionProfile, profile_for
from paraudit.render.prosody import (
    apply_gain,
    apply_pitch,
    change_voice,
    join_with_pauses,
    split_phrases,
)

# Bump when the processing chain changes, so cached renders made by older code are not reused.
RENDERER_VERSION = 3
# The assistant voice alone: 2 = Praat's "Change gender" seeded (before, each call differed), so
# a cached assistant clip is one a fresh render reproduces byte for byte. Human keys unchanged.
ASSISTANT_VOICE_VERSION = 2
# Strength of the profile on each try: a rendering that misses its direction is pushed further.
RETRY_STRENGTHS = (1.0, 1.3, 1.6)


def default_cache_dir() -> Path:
    env = os.environ.get("PARAUDIT_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "paraudit"


@dataclass(frozen=True)
class Clip:
    path: Path
    key: str


@dataclass(frozen=True)
class VerifiedClip:
    clip: Clip
    features: ProsodyFeatures
    delta: ProsodyDelta | None
    """None for a neutral rendering (it is its own baseline)."""
    attempts: int
    accepted: bool
    failures: tuple[str, ...]


class Renderer:
    """Piper + Praat renderer of human and assistant turns."""

    def __init__(
        self, voice: str | Path | None = None, cache_dir: Path | None = None, timbre: str = "joe"
    ) -> None:
        self.voice_arg = voice
        self.voice: VoiceInfo = resolve_voice(voice)
        self.timbre = piper_timbre(timbre)
        """The human speaker's timbre (render/offline_chain.py); 'joe' is the voice unchanged
        and leaves every cache key as it was."""
        self.cache_dir = (cache_dir or default_cache_dir()) / "renders"
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        sweep_stale_temps(self.cache_dir)
        self.cache_hits = 0
        self.fresh_renders = 0

    @property
    def label(self) -> str:
        return f"{self.voice.label}+psola"

    def key(self, text: str, speaker: Speaker, profile: EmotionProfile) -> str:
        blob = json.dumps(
            {
                "v": RENDERER_VERSION,
                "voice": self.voice.sha256,
                "speaker": speaker,
                "text": text,
                "profile": profile.params(),
                **({"assistant_voice": ASSISTANT_VOICE_VERSION} if speaker == "assistant" else {}),
                **({"timbre": self.timbre.name} if self._retimbred(speaker) else {}),
            },
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def render(self, text: str, speaker: Speaker, profile: EmotionProfile) -> Clip:
        key = self.key(text, speaker, profile)
        path = self.cache_dir / f"{key}.wav"
        if path.is_file():
            self.cache_hits += 1
            return Clip(path, key)
        samples = self._synthesize(text, speaker, profile)
        fd, tmp = tempfile.mkstemp(suffix=".wav", dir=self.cache_dir)
        follow_umask(tmp)
        os.close(fd)
        try:
            sf.write(tmp, samples, self.voice.sample_rate, subtype="PCM_16")
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        self.fresh_renders += 1
        return Clip(path, key)

    def _retimbred(self, speaker: Speaker) -> bool:
        return speaker == "human" and self.timbre.name != "joe"

    def _synthesize(self, text: str, speaker: Speaker, profile: EmotionProfile) -> np.ndarray:
        synth = load_synth(self.voice)
        rate = synth.sample_rate
        parts = [
            synth.synthesize(p, profile.length_scale) for p in split_phrases(text, profile.pauses)
        ]
        samples = join_with_pauses(parts, rate, profile.pause_s)
        if speaker == "assistant":
            samples = change_voice(samples, rate)
        elif self._retimbred(speaker):
            # Before PSOLA, as in the new dimensions' chain: the emotion's pitch moves are made
            # on the new speaker's voice.
            samples = change_timbre(samples, rate, self.timbre, 0)
        samples = apply_pitch(samples, rate, profile)
        return apply_gain(samples, profile.gain_db)

    def measure(self, clip: Clip, text: str) -> ProsodyFeatures:
        samples, rate = sf.read(str(clip.path), dtype="float64")
        return measure(samples, rate, text)

    def render_verified(self, text: str, speaker: Speaker, emotion: str) -> VerifiedClip:
        """Render, measure against neutral, and push the profile further until it shows."""
        base = profile_for(speaker, emotion)
        neutral_clip = self.render(text, speaker, profile_for(speaker, "neutral"))
        neutral = self.measure(neutral_clip, text)
        if emotion == "neutral":
            return VerifiedClip(neutral_clip, neutral, None, 1, True, ())
        failures: list[str] = []
        best: tuple[Clip, ProsodyFeatures, ProsodyDelta] | None = None
        for attempt, strength in enumerate(RETRY_STRENGTHS, start=1):
            clip = self.render(text, speaker, base.scaled(strength))
            feats = self.measure(clip, text)
            d = delta(feats, neutral)
            failures = direction_failures(base, d, len(text.split()))
            best = (clip, feats, d)
            if not failures:
                return VerifiedClip(clip, feats, d, attempt, True, ())
        assert best is not None
        return VerifiedClip(best[0], best[1], best[2], len(RETRY_STRENGTHS), False, tuple(failures))


RenderJob = tuple[str, Speaker, str]
"""(text, speaker, emotion)"""

_worker: Renderer | None = None


def _init_worker(voice: str | None, cache_dir: Path, timbre: str = "joe") -> None:
    global _worker
    _worker = Renderer(voice, cache_dir, timbre)


def _run_job(job: RenderJob) -> tuple[RenderJob, VerifiedClip, int, int]:
    assert _worker is not None
    before = (_worker.fresh_renders, _worker.cache_hits)
    v = _worker.render_verified(*job)
    return job, v, _worker.fresh_renders - before[0], _worker.cache_hits - before[1]


def render_all(
    renderer: Renderer,
    jobs: Sequence[RenderJob],
    *,
    workers: int | None = None,
    on_done: Callable[[RenderJob], None] | None = None,
) -> dict[RenderJob, VerifiedClip]:
    """Render and verify distinct jobs, in worker processes when more than one CPU is free.

    Each worker keeps its own Piper session (one onnxruntime thread, so bytes do not depend on
    the worker count); the cache's atomic renames make concurrent writers safe.
    """
    unique = list(dict.fromkeys(jobs))
    workers = workers if workers is not None else min(len(unique), os.cpu_count() or 1)
    out: dict[RenderJob, VerifiedClip] = {}
    if workers <= 1:
        for job in unique:
            out[job] = renderer.render_verified(*job)
            if on_done:
                on_done(job)
        return out
    voice = None if renderer.voice_arg is None else str(renderer.voice_arg)
    # Ctrl-C or SIGTERM: the workers are terminated and joined at once (pools), not waited for.
    with interruptible_processes(
        workers,
        initializer=_init_worker,
        initargs=(voice, renderer.cache_dir.parent, renderer.timbre.name),
    ) as pool:
        futures = [pool.submit(_run_job, job) for job in unique]
        for fut in as_completed(futures):
            job, v, fresh, hits = fut.result()
            out[job] = v
            renderer.fresh_renders += fresh
            renderer.cache_hits += hits
            if on_done:
                on_done(job)
    return out
