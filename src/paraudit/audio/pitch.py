"""Pitch tracking helpers (Praat via parselmouth) used both to measure a clip and to shift it.

The bundled voice is low (~88 Hz) and Praat makes octave errors on it with a wide pitch range,
so callers track pitch in two passes: a rough median, then a range adapted to it.
"""

from __future__ import annotations

import numpy as np


def pitch_bounds(median_hz: float) -> tuple[float, float]:
    """A pitch floor and ceiling around a voice's median that avoid octave errors."""
    return max(40.0, median_hz * 0.55), min(800.0, median_hz * 2.4)


def pitch_track(
    samples: np.ndarray, rate: int, lo: float, hi: float
) -> tuple[np.ndarray, np.ndarray]:
    """Frame times and F0 (Hz, 0 where unvoiced) between `lo` and `hi`."""
    import parselmouth

    pitch = parselmouth.Sound(samples, rate).to_pitch_ac(pitch_floor=lo, pitch_ceiling=hi)
    f0 = pitch.selected_array["frequency"]
    return pitch.xs(), f0


def estimate_f0_median(samples: np.ndarray, rate: int) -> float:
    _, f0 = pitch_track(samples, rate, 50.0, 400.0)
    voiced = f0[f0 > 0]
    return float(np.median(voiced)) if voiced.size else 120.0


def last_voiced_time(times: np.ndarray, f0: np.ndarray, default: float) -> float:
    """End of the last voiced stretch of at least 0.1 s.

    Piper leaves short voiced islands (breath, creak) after the last word; a ramp aimed at them
    would miss the final syllable.
    """
    voiced = f0 > 0
    end = default
    run_start: int | None = None
    for i, v in enumerate([*voiced, False]):
        if v and run_start is None:
            run_start = i
        elif not v and run_start is not None:
            if times[i - 1] - times[run_start] >= 0.1:
                end = float(times[i - 1])
            run_start = None
    return end
