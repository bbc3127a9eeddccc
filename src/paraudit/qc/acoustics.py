"""Praat measurements of a clip: pitch, range, rate, loudness, pauses, end slope.

The bundled voice is low (~88 Hz) and Praat makes octave errors on it with a wide pitch range,
so pitch is measured in two passes (a rough median, then a range adapted to it) with outlier
points removed, and medians are used throughout.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass

import numpy as np

from paraudit.audio.pitch import estimate_f0_median, last_voiced_time, pitch_bounds, pitch_track

SILENCE_BELOW_PEAK_DB = 28.0
MIN_PAUSE_S = 0.12
END_WINDOW_S = 0.6


def clean_pitch(samples: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """Times and F0 (Hz) of voiced frames, after the two-pass range and outlier removal."""
    lo, hi = pitch_bounds(estimate_f0_median(samples, rate))
    t, f0 = pitch_track(samples, rate, lo, hi)
    keep = f0 > 0
    t, f0 = t[keep], f0[keep]
    if f0.size >= 5:
        st = 12 * np.log2(f0)
        padded = np.pad(st, 2, mode="edge")
        local = np.median(np.lib.stride_tricks.sliding_window_view(padded, 5), axis=1)
        ok = np.abs(st - local) < 4.0
        t, f0 = t[ok], f0[ok]
    return t, f0


def count_syllables(text: str) -> int:
    """Vowel-group syllable count: good enough for rate ratios against the same text."""
    total = 0
    for word in re.findall(r"[a-zA-Z']+", text.lower()):
        groups = re.findall(r"[aeiouy]+", word)
        n = len(groups)
        if word.endswith("e") and n > 1 and not word.endswith(("le", "ee")):
            n -= 1
        elif word.endswith("ed") and n > 1 and not word.endswith(("ted", "ded")):
            n -= 1
        total += max(1, n)
    return max(1, total)


@dataclass(frozen=True)
class ProsodyFeatures:
    """Acoustic primitives of one clip."""

    duration_s: float
    """Whole clip length."""
    speech_s: float
    """From the first to the last non-silent frame."""
    f0_median_hz: float
    """Median F0 of voiced frames (0 when nothing is voiced)."""
    f0_range_st: float
    """90th minus 10th percentile of F0, in semitones."""
    rms_db: float
    """RMS level of the speech span, dBFS."""
    syllable_rate: float
    """Syllables (from the text) per second of speech span, pauses included."""
    longest_pause_s: float
    """Longest silent gap inside the speech span."""
    end_slope_st_s: float
    """Linear pitch slope over the last 0.6 s of voicing, semitones per second."""
    end_level_st: float
    """Median pitch of the last 0.3 s of voicing relative to the clip's median, semitones.

    Sparse final syllables make slopes unreliable; the end level is a second witness of a rise.
    """

    def as_dict(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in asdict(self).items()}


def _silence_mask(samples: np.ndarray, rate: int) -> tuple[np.ndarray, float]:
    """Per-10-ms-frame silence flags and the frame step."""
    step = int(rate * 0.01)
    n = max(1, len(samples) // step)
    frames = samples[: n * step].reshape(n, step)
    energy = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-12)
    return energy < energy.max() - SILENCE_BELOW_PEAK_DB, 0.01


def silent_gaps(samples: np.ndarray, rate: int, min_s: float = 0.05) -> list[float]:
    """Durations (s) of the silent gaps inside the speech span, in order, of at least `min_s`."""
    silent, step = _silence_mask(np.asarray(samples, dtype=np.float64), rate)
    voiced_idx = np.flatnonzero(~silent)
    if voiced_idx.size == 0:
        return []
    gaps: list[float] = []
    run = 0
    for s in silent[int(voiced_idx[0]) : int(voiced_idx[-1]) + 1]:
        if s:
            run += 1
        elif run:
            if run * step >= min_s - 1e-9:
                gaps.append(run * step)
            run = 0
    return gaps


def measure(samples: np.ndarray, rate: int, text: str) -> ProsodyFeatures:
    samples = np.asarray(samples, dtype=np.float64)
    duration = len(samples) / rate
    silent, step = _silence_mask(samples, rate)
    voiced_idx = np.flatnonzero(~silent)
    if voiced_idx.size == 0:
        return ProsodyFeatures(duration, 0.0, 0.0, 0.0, -math.inf, 0.0, 0.0, 0.0, 0.0)
    first, last = int(voiced_idx[0]), int(voiced_idx[-1])
    speech_s = (last - first + 1) * step
    span = samples[int(first * step * rate) : int((last + 1) * step * rate)]
    rms = float(np.sqrt(np.mean(span**2)))
    # Rate counts pauses in: short pauses sit near any detection threshold, and excluding them
    # made rate ratios flip sign between near-identical renderings.
    longest = run = 0
    for s in silent[first : last + 1]:
        run = run + 1 if s else 0
        longest = max(longest, run)
    longest_pause = longest * step if longest * step >= MIN_PAUSE_S else 0.0
    t, f0 = clean_pitch(samples, rate)
    if f0.size:
        keep = t <= last_voiced_time(t, f0, float(t[-1])) + 1e-9
        t, f0 = t[keep], f0[keep]
        st = 12 * np.log2(f0)
        median = float(np.median(f0))
        rng = float(np.percentile(st, 90) - np.percentile(st, 10))
        tail = t >= t[-1] - END_WINDOW_S
        slope = float(np.polyfit(t[tail], st[tail], 1)[0]) if tail.sum() >= 5 else 0.0
        end_level = float(np.median(st[t >= t[-1] - 0.3]) - np.median(st))
    else:
        median = rng = slope = end_level = 0.0
    return ProsodyFeatures(
        duration_s=duration,
        speech_s=speech_s,
        f0_median_hz=median,
        f0_range_st=rng,
        rms_db=20 * math.log10(rms) if rms > 0 else -math.inf,
        syllable_rate=count_syllables(text) / speech_s if speech_s > 0 else 0.0,
        longest_pause_s=longest_pause,
        end_slope_st_s=slope,
        end_level_st=end_level,
    )
