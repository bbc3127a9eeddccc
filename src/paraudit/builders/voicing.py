"""How builders turn a turn's words and emotion into a checked clip: one small interface.

`TurnVoicer` is the seam between the builders and rendering + audio QC. The offline
implementation wraps the Piper + PSOLA renderer and its direction check against a neutral
rendering (render/renderer.py, qc/verify.py). Hosted TTS backends and the Audio Scorer's
render-and-retry plug in behind the same interface (`make_voicer`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import soundfile as sf

from paraudit.errors import ParauditError
from paraudit.items.records import Speaker
from paraudit.qc.acoustics import ProsodyFeatures
from paraudit.render import prosody
from paraudit.render.profiles import ASSISTANT_PROFILES, HUMAN_PROFILES
from paraudit.render.renderer import Clip, Renderer, render_all

VoiceJob = tuple[str, Speaker, str, str]
"""(text, speaker, emotion, voice)"""


@dataclass(frozen=True)
class Voiced:
    """A rendered clip and what QC said about it."""

    path: Path
    accepted: bool
    attempts: int
    failures: tuple[str, ...]
    qc: dict[str, Any]
    seconds: float
    """Duration of the clip."""


@dataclass
class VoicingStats:
    tts_s: float = 0.0
    qc_s: float = 0.0
    fresh: int = 0
    cached: int = 0
    timed: bool = True
    """False when clips were made in worker processes (their split of time is not seen)."""


class TurnVoicer(Protocol):
    label: str
    """Backend label recorded in item meta and the card."""
    rendering: str
    """How emotion is realised, for dataset.json."""
    qc_rule: str
    """What the acceptance check measures, for the card."""
    stats: VoicingStats

    def voices(self, speaker: Speaker) -> tuple[str, ...]: ...

    def can_voice(self, speaker: Speaker, emotion: str) -> bool: ...

    def voice_all(
        self, jobs: Sequence[VoiceJob], on_done: Callable[[], None] | None = None
    ) -> dict[VoiceJob, Voiced]: ...

    def describe(self) -> dict[str, Any]: ...


class _TimedRenderer(Renderer):
    """The offline renderer, timing synthesis apart from measurement."""

    def __init__(self, voice: str | Path | None, cache_dir: Path | None, stats: VoicingStats):
        super().__init__(voice, cache_dir)
        self.stats = stats

    def render(self, text: str, speaker: Speaker, profile: Any) -> Clip:
        t0 = time.perf_counter()
        try:
            return super().render(text, speaker, profile)
        finally:
            self.stats.tts_s += time.perf_counter() - t0

    def measure(self, clip: Clip, text: str) -> ProsodyFeatures:
        t0 = time.perf_counter()
        try:
            return super().measure(clip, text)
        finally:
            self.stats.qc_s += time.perf_counter() - t0


PIPER_RENDERING = (
    "prosody-manipulated: Piper speech, emotion realised as speaking rate, pitch level and range "
    "(Praat PSOLA), gain and inserted pauses; not acted emotional speech"
)
PIPER_QC = (
    "direction check against a neutral rendering of the same text and voice (pitch, rate, "
    "loudness, range, pauses, end rise), up to 3 tries with a stronger profile "
    "(qc/verify.py); no SER model"
)


@dataclass
class PiperVoicer:
    voice_path: str | None
    cache_dir: Path | None
    workers: int | None = None
    stats: VoicingStats = field(default_factory=VoicingStats)

    def __post_init__(self) -> None:
        self.renderer = _TimedRenderer(self.voice_path, self.cache_dir, self.stats)
        self.label = self.renderer.label
        self.rendering = PIPER_RENDERING
        self.qc_rule = PIPER_QC

    def voices(self, speaker: Speaker) -> tuple[str, ...]:
        # One Piper voice; the assistant's is the same voice through Praat 'Change gender'.
        v = self.renderer.voice.label
        return (v,) if speaker == "human" else (f"{v}+change-gender",)

    def can_voice(self, speaker: Speaker, emotion: str) -> bool:
        return emotion in (HUMAN_PROFILES if speaker == "human" else ASSISTANT_PROFILES)

    def voice_all(
        self, jobs: Sequence[VoiceJob], on_done: Callable[[], None] | None = None
    ) -> dict[VoiceJob, Voiced]:
        by_render = {(t, s, e): (t, s, e, v) for t, s, e, v in jobs}
        before = (self.renderer.fresh_renders, self.renderer.cache_hits)
        done = render_all(
            self.renderer,
            list(by_render),
            workers=self.workers,
            on_done=(lambda _: on_done()) if on_done else None,
        )
        if self.workers is None or self.workers > 1:
            self.stats.timed = False
        self.stats.fresh += self.renderer.fresh_renders - before[0]
        self.stats.cached += self.renderer.cache_hits - before[1]
        out: dict[VoiceJob, Voiced] = {}
        for job in jobs:
            v = done[(job[0], job[1], job[2])]
            qc: dict[str, Any] = {"features": v.features.as_dict()}
            if v.delta is not None:
                qc["delta"] = v.delta.as_dict()
            info = sf.info(str(v.clip.path))
            out[job] = Voiced(
                path=v.clip.path,
                accepted=v.accepted,
                attempts=v.attempts,
                failures=v.failures,
                qc=qc,
                seconds=float(info.frames / info.samplerate),
            )
        return out

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "piper",
            "label": self.label,
            "voice": self.renderer.voice.label,
            "voice_sha256": self.renderer.voice.sha256,
            "assistant_voice": (
                f"Praat 'Change gender' (formants x{prosody.ASSISTANT_FORMANT_RATIO}, pitch "
                f"median {prosody.ASSISTANT_PITCH_MEDIAN_HZ:.0f} Hz)"
            ),
            "rendering": self.rendering,
            "qc": self.qc_rule,
        }


def make_voicer(spec: str, cache_dir: Path | None, workers: int | None = None) -> TurnVoicer:
    """`piper` (bundled voice) or `piper:/path/voice.onnx`; hosted backends come from
    paraudit.render.tts when that module is installed."""
    name, _, arg = spec.partition(":")
    if name == "piper":
        return PiperVoicer(arg or None, cache_dir, workers)
    raise ParauditError(
        f"TTS backend '{name}' is not available in this build (available: piper); hosted TTS "
        "(openai:gpt-4o-mini-tts, gemini:MODEL) arrives with paraudit.render.tts"
    )
