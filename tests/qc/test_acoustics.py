from __future__ import annotations

import numpy as np

from paraudit.qc.acoustics import count_syllables, measure, silent_gaps


def _voiced(f0: float, seconds: float, rate: int = 16000, amp: float = 0.3) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return amp * np.sign(np.sin(2 * np.pi * f0 * t)) * 0.5 + amp * np.sin(2 * np.pi * f0 * t)


def test_pitch_loudness_and_pause_are_measured() -> None:
    rate = 16000
    x = np.concatenate([_voiced(120, 0.6), np.zeros(int(0.4 * rate)), _voiced(120, 0.6)])
    f = measure(x, rate, "one two three four")
    assert abs(f.f0_median_hz - 120) < 3
    assert 0.35 <= f.longest_pause_s <= 0.45
    louder = measure(2 * x, rate, "one two three four")
    assert abs((louder.rms_db - f.rms_db) - 6.02) < 0.1


def test_syllable_count() -> None:
    assert count_syllables("They moved the meeting to Friday.") == 8


def test_silent_gaps_inside_the_speech_span_only() -> None:
    rate = 16000
    gap = [np.zeros(int(s * rate)) for s in (0.5, 0.3, 0.02, 0.7)]
    x = np.concatenate(
        [gap[0], _voiced(120, 0.4), gap[1], _voiced(120, 0.4), gap[2], _voiced(120, 0.4), gap[3]]
    )
    # Leading and trailing silence are not gaps; a 20 ms dip is below the minimum.
    gaps = silent_gaps(x, rate)
    assert len(gaps) == 1 and abs(gaps[0] - 0.3) <= 0.02
    assert silent_gaps(np.zeros(rate), rate) == []
