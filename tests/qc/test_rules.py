"""The Audio Scorer's measurements on signals with known pitch, rate, glides and pauses, and the
published acceptance rules at and around their thresholds."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from paraudit.errors import ParauditError
from paraudit.qc.acoustics import count_syllables
from paraudit.qc.rules import (
    SER_LABELS,
    Baseline,
    Measurements,
    end_slope,
    judge,
    measure_relative,
    neutral_baseline,
    pause_rank,
    rule_description,
)

RATE = 16000
TEXT = "we could maybe move the meeting to friday"  # 8 words → k = 2
SYL = count_syllables(TEXT)


def voiced(
    seconds: float, f0: float, glide_st_s: float = 0.0, glide_from: float = 0.0
) -> np.ndarray:
    """A harmonic, voice-like tone at `f0` that glides `glide_st_s` semitones per second after
    `glide_from` seconds (phase-integrated, so the F0 is exact)."""
    t = np.arange(int(RATE * seconds)) / RATE
    st = np.where(t > glide_from, glide_st_s * (t - glide_from), 0.0)
    f = f0 * 2 ** (st / 12)
    phase = 2 * np.pi * np.cumsum(f) / RATE
    return 0.2 * (np.sin(phase) + 0.5 * np.sin(2 * phase) + 0.25 * np.sin(3 * phase))


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(RATE * seconds))


@pytest.fixture(scope="module")
def base() -> Baseline:
    # Two "neutral renderings" 2.0 s and 2.2 s long at 120 and 126 Hz: averaged.
    return neutral_baseline([(voiced(2.0, 120), RATE), (voiced(2.2, 126), RATE)], TEXT)


def test_baseline_averages_its_renderings(base: Baseline) -> None:
    assert base.renders == 2
    assert abs(base.f0_hz - 123) < 2
    assert abs(base.syllable_rate - (SYL / 2.0 + SYL / 2.2) / 2) < 0.1
    assert abs(base.syllable_s - 1 / base.syllable_rate) < 1e-12
    with pytest.raises(ParauditError, match="no voiced speech"):
        neutral_baseline([(silence(1.0), RATE)], TEXT)


def test_relative_pitch_and_speed_are_measured(base: Baseline) -> None:
    f0 = base.f0_hz * 2 ** (6 / 12)  # +6 semitones
    span = SYL / (base.syllable_rate * 1.4)  # 40 % faster
    m = measure_relative(voiced(span, f0), RATE, TEXT, base)
    assert abs(m.rel_pitch_st - 6.0) < 0.3
    assert abs(m.rel_speed - 0.40) < 0.03
    assert abs(m.end_slope_st_s) < 1.0  # flat
    v = judge("frazzled", m)
    assert v.accepted and v.source == "published" and abs(v.fitness - m.rel_pitch_st) < 1e-9
    slow = measure_relative(voiced(SYL / base.syllable_rate, f0), RATE, TEXT, base)
    v = judge("frazzled", slow)
    assert not v.accepted and any(r.startswith("rel_speed") for r in v.reasons)
    # impatient: fast but NOT raised in pitch.
    assert not judge("impatient", m).accepted
    calm_pitch = measure_relative(voiced(span, base.f0_hz * 2 ** (2 / 12)), RATE, TEXT, base)
    assert judge("impatient", calm_pitch).accepted


@pytest.mark.parametrize("slope", [10.0, 4.0, -8.0])
def test_end_slope_follows_a_known_glide(slope: float) -> None:
    x = voiced(2.0, 120, glide_st_s=slope, glide_from=1.0)
    assert abs(end_slope(x, RATE) - slope) < 1.0


def test_end_slope_uses_the_last_voiced_stretch_not_the_silence_after_it() -> None:
    x = np.concatenate([voiced(1.5, 110, glide_st_s=9.0, glide_from=0.8), silence(0.8)])
    assert abs(end_slope(x, RATE) - 9.0) < 1.0


def test_pauses_count_in_neutral_syllable_durations(base: Baseline) -> None:
    syl = base.syllable_s
    x = np.concatenate(
        [
            voiced(0.6, 120),
            silence(3.0 * syl),
            voiced(0.6, 120),
            silence(1.0 * syl),
            voiced(0.8, 120, glide_st_s=10.0, glide_from=0.2),
        ]
    )
    m = measure_relative(x, RATE, TEXT, base)
    assert m.k == 2 and len(m.pauses_syl) == 2
    assert abs(m.pauses_syl[0] - 3.0) < 0.15 and abs(m.kth_pause_syl - 1.0) < 0.15
    v = judge("hesitant", m)
    assert not v.accepted and v.reasons == (f"pause_2 {m.kth_pause_syl:.3g} syl < 2 syl",)
    x2 = np.concatenate(
        [
            voiced(0.6, 120),
            silence(3.0 * syl),
            voiced(0.6, 120),
            silence(2.5 * syl),
            voiced(0.8, 120, glide_st_s=10.0, glide_from=0.2),
        ]
    )
    m2 = measure_relative(x2, RATE, TEXT, base)
    v2 = judge("hesitant", m2)
    assert v2.accepted and abs(v2.fitness - 10.0) < 1.0
    # A falling end fails hesitant even with the pauses.
    fall = np.concatenate([x2[: -int(0.8 * RATE)], voiced(0.8, 120, -10.0, 0.2)])
    assert not judge("hesitant", measure_relative(fall, RATE, TEXT, base)).accepted


def test_short_turns_skip_the_pause_condition(base: Baseline) -> None:
    short = "not sure"  # < 5 words: the pause condition does not apply
    b = neutral_baseline([(voiced(0.5, 120), RATE)], short)
    m = measure_relative(voiced(0.6, 120, glide_st_s=12.0, glide_from=0.1), RATE, short, b)
    assert m.kth_pause_syl == 0.0 and judge("hesitant", m).accepted


def test_pause_rank() -> None:
    assert [pause_rank(w) for w in (1, 2, 5, 6, 7, 8, 40)] == [1, 1, 1, 1, 2, 2, 2]


def test_silence_is_rejected_not_measured_as_zero(base: Baseline) -> None:
    m = measure_relative(silence(1.0) + 1e-9, RATE, TEXT, base)
    assert math.isnan(m.rel_pitch_st)
    for emotion in ("impatient", "neutral", "frazzled", "hesitant"):
        assert not judge(emotion, m).accepted, emotion


def probs(**p: float) -> dict[str, float]:
    rest = (1.0 - sum(p.values())) / (len(SER_LABELS) - len(p))
    return {k: p.get(k, rest) for k in SER_LABELS}


M0 = Measurements(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1, (), 8, SYL)


@pytest.mark.parametrize(
    ("emotion", "ok", "bad", "fitness"),
    [
        ("angry", probs(angry=0.3, disgusted=0.21), probs(angry=0.3, disgusted=0.19), 0.51),
        ("neutral", probs(neutral=0.81), probs(neutral=0.79), 0.81),
        ("sad", probs(sad=0.031), probs(sad=0.029), 0.031),
        ("happy", probs(happy=0.0051), probs(happy=0.0049), 0.0051),
        # sqrt(0.5 · (0.004 + 0.0012)) = 0.051 ; sqrt(0.5 · (0.004 + 0.0008)) = 0.049
        (
            "bored",
            probs(neutral=0.5, sad=0.004, disgusted=0.0012),
            probs(neutral=0.5, sad=0.004, disgusted=0.0008),
            math.sqrt(0.5 * 0.0052),
        ),
        ("empathetic", probs(angry=0.005, disgusted=0.004), probs(angry=0.008, disgusted=0.004), 0),
    ],
)
def test_ser_rules_at_their_published_thresholds(
    emotion: str, ok: dict[str, float], bad: dict[str, float], fitness: float
) -> None:
    v = judge(emotion, M0, ok)
    assert v.accepted and v.source == "published", v.reasons
    assert abs(v.fitness - fitness) < 1e-9
    assert not judge(emotion, M0, bad).accepted


def test_empathetic_also_needs_the_speed_limit() -> None:
    calm = probs(angry=0.001, disgusted=0.001)
    assert judge("empathetic", replace(M0, rel_speed=0.019), calm).accepted
    v = judge("empathetic", replace(M0, rel_speed=0.021), calm)
    assert not v.accepted and v.reasons[0].startswith("rel_speed")


def test_without_ser_the_fallback_is_named() -> None:
    angry = replace(M0, rel_pitch_st=4.0, rel_loudness_db=3.0)
    v = judge("angry", angry)
    assert v.accepted and v.source == "acoustic-fallback" and "no SER" in v.rule
    assert not judge("angry", replace(angry, rel_loudness_db=0.5)).accepted
    sad = replace(M0, rel_pitch_st=-2.0, rel_speed=-0.2)
    assert judge("sad", sad).accepted and not judge("happy", sad).accepted
    assert judge("neutral", M0).accepted and not judge("neutral", sad).accepted
    assert judge("bored", replace(M0, rel_range_st=-2.0, rel_speed=-0.05)).accepted
    assert rule_description("hesitant", with_ser=False)[1] == "published"
    assert rule_description("surprised", with_ser=True)[1] == "paraudit"


def test_emotion_names_and_ser_keys_are_checked() -> None:
    assert judge("apologetic/empathetic/reassuring", M0).emotion == "empathetic"
    assert judge("hesistant", M0).emotion == "hesitant"  # the paper's spelling
    with pytest.raises(ParauditError, match="no rule for emotion 'smug'"):
        judge("smug", M0)
    assert judge("fear", M0, probs(fearful=0.06)).accepted
    with pytest.raises(ParauditError, match="needs an SER backend to judge 'disgusted'"):
        judge("disgust", M0)
    with pytest.raises(ParauditError, match="lack"):
        judge("sad", M0, {"sad": 1.0})
