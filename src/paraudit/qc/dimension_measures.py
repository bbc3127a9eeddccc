"""Acoustic primitives the new dimensions' QC rules read (Praat via parselmouth).

Each rule compares a clip with the same words rendered at the dimension's reference value in the
same voice and chain (`baseline`), so a figure is a ratio or a difference against that clip
wherever the words' own length or pitch would otherwise decide it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from paraudit.dimensions.base import QcCheck, RenderedClip
from paraudit.qc.acoustics import ProsodyFeatures, _silence_mask, measure, silent_gaps


def features(clip: RenderedClip, text: str) -> ProsodyFeatures:
    return measure(np.asarray(clip.samples, dtype=np.float64), clip.rate, text)


def pause_share(clip: RenderedClip, min_s: float = 0.1) -> float:
    """Share of the speech span (first to last sound) that is silent gaps of ≥ `min_s`."""
    x = np.asarray(clip.samples, dtype=np.float64)
    silent, step = _silence_mask(x, clip.rate)
    sounding = np.flatnonzero(~silent)
    if sounding.size == 0:
        return 0.0
    span = (int(sounding[-1]) - int(sounding[0]) + 1) * step
    return sum(silent_gaps(x, clip.rate, min_s)) / span


def long_pauses(clip: RenderedClip, min_s: float) -> int:
    return sum(
        1 for g in silent_gaps(np.asarray(clip.samples, np.float64), clip.rate) if g >= min_s
    )


def voicing(clip: RenderedClip) -> tuple[float, float]:
    """(voiced share of the sounding 10 ms frames, mean harmonics-to-noise ratio in dB).

    The pitch range is wide and fixed (60–400 Hz) so a timbre's moved median cannot fall out
    of it; HNR is Praat's cross-correlation harmonicity averaged over frames where it is
    defined (a clip with no periodic frame reads as −20 dB, below any voiced speech).
    """
    import parselmouth
    from parselmouth.praat import call

    x = np.asarray(clip.samples, dtype=np.float64)
    snd = parselmouth.Sound(x, clip.rate)
    pitch = snd.to_pitch_ac(time_step=0.01, pitch_floor=60.0, pitch_ceiling=400.0)
    f0 = pitch.selected_array["frequency"]
    silent, step = _silence_mask(x, clip.rate)
    times = pitch.xs()
    idx = np.minimum((times / step).astype(int), len(silent) - 1)
    sounding = ~silent[idx]
    voiced = float(np.mean(f0[sounding] > 0)) if sounding.any() else 0.0
    hnr = call(snd.to_harmonicity_cc(), "Get mean", 0, 0)
    hnr_db = float(hnr) if hnr is not None and math.isfinite(hnr) else -20.0
    return voiced, hnr_db


@dataclass(frozen=True)
class Bound:
    """One criterion: a named figure with a lower and/or upper bound."""

    figure: str
    low: float = -math.inf
    high: float = math.inf
    why: str = ""
    """What the bound means, for the rejection sentence."""

    def reason(self, value: float) -> str | None:
        if self.low <= value <= self.high:
            return None
        side = f"≥ {self.low:g}" if value < self.low else f"≤ {self.high:g}"
        return f"{self.figure} = {value:.3g}, needs {side}" + (f" ({self.why})" if self.why else "")


def judge(measures: Mapping[str, float], bounds: tuple[Bound, ...]) -> QcCheck:
    reasons = tuple(r for b in bounds if (r := b.reason(measures[b.figure])) is not None)
    rounded = {k: round(v, 4) for k, v in measures.items()}
    return QcCheck(passed=not reasons, measures=rounded, reasons=reasons)


def clip_text(clip: RenderedClip) -> str:
    """The words a renderer recorded: rate figures count the text's syllables."""
    text = clip.meta.get("text")
    if not isinstance(text, str):
        raise ValueError("a clip for this QC rule must record its words in meta['text']")
    return text
