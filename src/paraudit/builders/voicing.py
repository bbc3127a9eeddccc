"""How builders turn a turn's words and emotion into a checked clip: one small interface.

`TurnVoicer` is the seam between the builders and rendering + audio QC. Two implementations:
`ScorerVoicer` (the default) renders through a TTS backend (`render.backends.make_tts`:
piper, openai:gpt-4o-mini-tts, gemini:MODEL) and the Audio Scorer's render-and-retry (paper B.2.3:
stop at 3 accepted or 10 tries, keep the fittest, drop the turn if none passes);
`PiperVoicer` (`--qc direction`) is the starter set's faster chain, the Piper + PSOLA renderer
with its direction check against a neutral rendering (up to 3 tries).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import soundfile as sf

from paraudit.audio.clips import wav_bytes
from paraudit.builders.scorer import AudioScorer, TurnRequest
from paraudit.errors import ParauditError
from paraudit.items.dataset import sha256_bytes
from paraudit.items.records import Speaker
from paraudit.qc.acoustics import ProsodyFeatures
from paraudit.qc.rules import Miss, canonical_emotion
from paraudit.qc.ser import make_ser
from paraudit.render import prosody
from paraudit.render.backends import make_tts
from paraudit.render.profiles import ASSISTANT_PROFILES, HUMAN_PROFILES
from paraudit.render.renderer import Clip, Renderer, render_all


@dataclass(frozen=True)
class Voiced:
    """A rendered clip and what QC said about it."""

    path: Path | None
    """None when no rendering was kept (the turn is dropped)."""
    accepted: bool
    attempts: int
    failures: tuple[str, ...]
    qc: dict[str, Any]
    seconds: float
    """Duration of the clip."""
    misses: tuple[Miss, ...] = ()
    """For a dropped turn, the thresholds its last try missed (the Audio Scorer's rules)."""


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
        self, jobs: Sequence[TurnRequest], on_done: Callable[[], None] | None = None
    ) -> dict[TurnRequest, Voiced]: ...

    def describe(self) -> dict[str, Any]: ...

    def qc_table(self, voiced: dict[TurnRequest, Voiced]) -> dict[str, dict[str, Any]]:
        """Per speaker:emotion accept / retry / drop counts for the card."""
        ...


def qc_counts(voiced: dict[TurnRequest, Voiced]) -> dict[str, dict[str, Any]]:
    """Per speaker:emotion, each distinct clip once: accepted first try, after retry, failed."""
    out: dict[str, dict[str, Any]] = {}
    for job, v in voiced.items():
        row = out.setdefault(
            f"{job.role}:{job.emotion}", {"turns": 0, "first_try": 0, "retried": 0, "dropped": 0}
        )
        row["turns"] += 1
        row["dropped" if not v.accepted else "retried" if v.attempts > 1 else "first_try"] += 1
    return out


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
        self, jobs: Sequence[TurnRequest], on_done: Callable[[], None] | None = None
    ) -> dict[TurnRequest, Voiced]:
        # The renderer draws one voice per role itself, so the voice is not part of its job.
        by_render = {(j.text, j.role, j.emotion): j for j in jobs}
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
        out: dict[TurnRequest, Voiced] = {}
        for job in jobs:
            v = done[(job.text, job.role, job.emotion)]
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

    def qc_table(self, voiced: dict[TurnRequest, Voiced]) -> dict[str, dict[str, Any]]:
        return qc_counts(voiced)

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


class ScorerVoicer:
    """A TTS backend through the Audio Scorer's render-and-retry. Kept clips are written once,
    by content hash, under `cache_dir/clips/`."""

    def __init__(
        self,
        tts_spec: str,
        cache_dir: Path,
        *,
        ser: str | None = None,
        workers: int = 1,
        max_accepted: int = 3,
        max_tries: int = 10,
        min_dnsmos_ovrl: float | None = None,
    ) -> None:
        self.tts = make_tts(tts_spec, cache_dir=cache_dir)
        self.scorer = AudioScorer(
            self.tts,
            make_ser(ser),
            max_accepted=max_accepted,
            max_tries=max_tries,
            min_dnsmos_ovrl=min_dnsmos_ovrl,
        )
        self.clips = cache_dir / "clips"
        self.workers = workers
        self.stats = VoicingStats()
        self.label = self.tts.label
        self.rendering = (
            PIPER_RENDERING
            if self.tts.name == "piper"
            else f"{self.tts.label}: expressive TTS prompted with each emotion (synthetic speech)"
        )
        ser_note = f"SER {self.scorer.ser.label}" if self.scorer.ser else "no SER"
        self.qc_rule = (
            f"Audio Scorer: baseline-relative rules per emotion ({ser_note}); stop at "
            f"{max_accepted} accepted or {max_tries} tries, keep the fittest, drop the turn "
            "if none passes"
        )
        synthesize = self.tts.synthesize

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return synthesize(*args, **kwargs)
            finally:
                self.stats.tts_s += time.perf_counter() - t0

        self.tts.synthesize = timed  # type: ignore[method-assign]

    def voices(self, speaker: Speaker) -> tuple[str, ...]:
        return tuple(self.tts.voices)

    def can_voice(self, speaker: Speaker, emotion: str) -> bool:
        try:
            canonical_emotion(emotion)
            self.tts.request("x", emotion, speaker, self.tts.voices[0], 0)
        except ParauditError:
            return False
        return True

    def _write(self, clip: Any) -> Path:
        data = wav_bytes(clip)
        path = self.clips / f"{sha256_bytes(data)}.wav"
        if not path.is_file():
            self.clips.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(data)
            tmp.replace(path)
        return path

    def voice_all(
        self, jobs: Sequence[TurnRequest], on_done: Callable[[], None] | None = None
    ) -> dict[TurnRequest, Voiced]:
        t0 = time.perf_counter()
        tts0 = self.stats.tts_s
        before = (self.tts.fresh_renders, self.tts.cache_hits)
        outcomes = self.scorer.render_turns(
            jobs,
            workers=self.workers,
            on_done=(lambda _j, _o: on_done()) if on_done else None,
        )
        out: dict[TurnRequest, Voiced] = {}
        for job, o in outcomes.items():
            last = o.verdicts[-1] if o.verdicts else None
            qc: dict[str, Any] = {
                "tries": o.tries,
                "accepted_tries": o.accepted,
                "rule": last.rule if last else None,
            }
            if o.repeated_at is not None:
                qc["repeated_at"] = o.repeated_at
            if o.best is None:
                misses = last.misses if last else ()
                out[job] = Voiced(None, False, o.tries, o.reasons[-1:], qc, 0.0, misses)
                continue
            qc["kept_try"] = o.best.attempt
            qc["values"] = {k: round(float(x), 4) for k, x in o.best.verdict.values.items()}
            out[job] = Voiced(
                self._write(o.best.clip), True, o.tries, (), qc, o.best.clip.duration_s
            )
        self.stats.fresh += self.tts.fresh_renders - before[0]
        self.stats.cached += self.tts.cache_hits - before[1]
        spent = time.perf_counter() - t0
        self.stats.qc_s += max(0.0, spent - (self.stats.tts_s - tts0))
        self.stats.timed = self.workers <= 1
        return out

    def qc_table(self, voiced: dict[TurnRequest, Voiced]) -> dict[str, dict[str, Any]]:
        return {k: dict(v) for k, v in self.scorer.counts.as_dict().items()}

    def describe(self) -> dict[str, Any]:
        return {
            **self.tts.describe(),
            "rendering": self.rendering,
            "qc": self.qc_rule,
            "scorer": self.scorer.describe(),
        }


def make_voicer(
    spec: str,
    cache_dir: Path,
    workers: int | None = None,
    *,
    qc: str = "scorer",
    ser: str | None = None,
    max_accepted: int = 3,
    max_tries: int = 10,
    min_dnsmos_ovrl: float | None = None,
) -> TurnVoicer:
    """`qc="scorer"`: any TTS spec through the Audio Scorer; `qc="direction"`: Piper with the
    starter set's direction check (`piper` or `piper:/path/voice.onnx`)."""
    if qc == "scorer":
        return ScorerVoicer(
            spec,
            cache_dir,
            ser=ser,
            workers=workers or 1,
            max_accepted=max_accepted,
            max_tries=max_tries,
            min_dnsmos_ovrl=min_dnsmos_ovrl,
        )
    if qc != "direction":
        raise ParauditError(f"--qc must be scorer or direction, not '{qc}'")
    name, _, arg = spec.partition(":")
    if name != "piper":
        raise ParauditError("--qc direction works with piper only; hosted TTS needs --qc scorer")
    return PiperVoicer(arg or None, cache_dir, workers)
