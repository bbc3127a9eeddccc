"""Each irrelevant change does what its parameters say, on a real Piper clip of the starter
set, and nothing at random (the same clip gives the same samples)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from paraudit.audio.changes import (
    NOISE_SNR_DB,
    OTHER_RATE_HZ,
    VARIANTS,
    apply,
    clipped,
    other_rate,
    parse_changes,
    snr_db,
)
from paraudit.audio.pitch import estimate_f0_median
from paraudit.items.dataset import load_dataset


@pytest.fixture(scope="module")
def clip(starter_small: Path) -> tuple[np.ndarray, int]:
    item = load_dataset(starter_small).items[0]
    x, rate = sf.read(str(starter_small / item.branches[0].audio[0]), dtype="float64")
    return x, rate


def variant(name: str):  # type: ignore[no-untyped-def]
    return next(v for vs in VARIANTS.values() for v in vs if v.name == name)


def rms_db(x: np.ndarray) -> float:
    return 20 * math.log10(float(np.sqrt(np.mean(x**2))))


def test_loudness_is_exactly_six_db(clip: tuple[np.ndarray, int]) -> None:
    x, rate = clip
    for name, db in (("loudness-up", 6.0), ("loudness-down", -6.0)):
        y, r = apply(variant(name), x, rate)
        assert r == rate and rms_db(y) - rms_db(x) == pytest.approx(db, abs=1e-6)


def test_voice_moves_the_pitch_median_by_three_semitones(clip: tuple[np.ndarray, int]) -> None:
    x, rate = clip
    f0 = estimate_f0_median(x, rate)
    for name, st in (("voice-up", 3.0), ("voice-down", -3.0)):
        y, r = apply(variant(name), x, rate)
        assert r == rate and len(y) == pytest.approx(len(x), rel=0.01)
        assert 12 * math.log2(estimate_f0_median(y, r) / f0) == pytest.approx(st, abs=1.0)
    # Deterministic: Praat's 'Change gender' is seeded.
    assert np.array_equal(
        apply(variant("voice-up"), x, rate)[0], apply(variant("voice-up"), x, rate)[0]
    )


def test_rate_changes_duration_not_pitch(clip: tuple[np.ndarray, int]) -> None:
    x, rate = clip
    f0 = estimate_f0_median(x, rate)
    for name, factor in (("rate-faster", 1.08), ("rate-slower", 0.92)):
        y, _ = apply(variant(name), x, rate)
        assert len(x) / len(y) == pytest.approx(factor, rel=0.02)
        assert abs(12 * math.log2(estimate_f0_median(y, rate) / f0)) < 0.5


def test_noise_at_thirty_db_and_resampling(clip: tuple[np.ndarray, int]) -> None:
    x, rate = clip
    y, _ = apply(variant("noise-30db"), x, rate)
    assert snr_db(x, y) == pytest.approx(NOISE_SNR_DB, abs=0.2)
    assert np.array_equal(y, apply(variant("noise-30db"), x, rate)[0])  # seeded by the clip
    z, r = apply(variant("samplerate-16k"), x, rate)
    assert r == OTHER_RATE_HZ and len(z) / r == pytest.approx(len(x) / rate, abs=1e-3)
    assert other_rate(16000) == 24000  # never a no-op


def test_clipping_is_the_change_s_own() -> None:
    full = np.array([0.0, 0.998, -0.5])
    assert not clipped(full, full * 1.01)  # already at full scale: a hair is no new clipping
    assert clipped(full, full * 2)
    assert not clipped(full * 0.4, full * 0.8)


def test_parse_changes() -> None:
    assert parse_changes("voice, noise,voice") == ("voice", "noise")
    with pytest.raises(ValueError, match="unknown change 'pitch'"):
        parse_changes("voice,pitch")
    with pytest.raises(ValueError, match="no change"):
        parse_changes(" , ")
