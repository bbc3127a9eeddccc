"""The twin QC rule: the changed property moved as documented, the emotion's other cues kept."""

from __future__ import annotations

from dataclasses import replace

from paraudit.qc.acoustics import ProsodyFeatures
from paraudit.qc.invariance import check_twin, compare

BASE = ProsodyFeatures(
    duration_s=2.0, speech_s=1.8, f0_median_hz=100.0, f0_range_st=5.0, rms_db=-25.0,
    syllable_rate=4.0, longest_pause_s=0.3, end_slope_st_s=-5.0, end_level_st=-2.0,
)  # fmt: skip


def test_an_unchanged_copy_passes_every_change() -> None:
    assert compare(BASE, BASE, "noise", {}).accepted
    assert compare(BASE, BASE, "samplerate", {}).accepted


def test_the_changed_property_must_move_as_documented() -> None:
    up = replace(BASE, f0_median_hz=100.0 * 2 ** (3 / 12))
    assert compare(BASE, up, "voice", {"pitch_median_st": 3.0}).accepted
    not_moved = compare(BASE, BASE, "voice", {"pitch_median_st": 3.0})
    assert not not_moved.accepted and not_moved.failed == ("pitch",)
    louder = replace(BASE, rms_db=-19.0)
    assert compare(BASE, louder, "loudness", {"gain_db": 6.0}).accepted
    assert not compare(BASE, louder, "loudness", {"gain_db": -6.0}).accepted
    faster = replace(BASE, syllable_rate=4.32, longest_pause_s=0.3 / 1.08)
    assert compare(BASE, faster, "rate", {"rate_factor": 1.08}).accepted


def test_a_cue_of_the_emotion_must_not_move() -> None:
    # Loudness must not shift pitch (that is how an emotion reads) nor flatten the contour.
    shifted = replace(BASE, rms_db=-19.0, f0_median_hz=115.0)
    c = compare(BASE, shifted, "loudness", {"gain_db": 6.0})
    assert not c.accepted and c.failed == ("pitch",)
    flat = replace(BASE, f0_range_st=1.0, end_level_st=2.0)
    c = compare(BASE, flat, "noise", {})
    assert set(c.failed) == {"pitch range", "end level"}
    assert "expected +0.00" in c.reasons[0]


def test_noise_must_keep_its_snr() -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    t = np.arange(16000) / 16000
    x = 0.3 * np.sin(2 * np.pi * 120 * t) * (1 + 0.2 * np.sin(2 * np.pi * 3 * t))
    y = x + 0.001 * rng.standard_normal(x.size)
    ok = check_twin(x, 16000, y, 16000, "a b c", "noise", {}, measured_snr_db=30.0)
    bad = check_twin(x, 16000, y, 16000, "a b c", "noise", {}, measured_snr_db=20.0)
    assert ok.accepted and not bad.accepted and bad.failed[-1] == "SNR"
