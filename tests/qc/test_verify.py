from __future__ import annotations

from paraudit.qc.verify import ProsodyDelta, direction_failures
from paraudit.render.profiles import profile_for


def _d(**kw: float) -> ProsodyDelta:
    base = dict(
        f0_shift_st=0.0,
        f0_range_delta_st=0.0,
        rate_ratio=1.0,
        rms_db=0.0,
        pause_delta_s=0.0,
        end_slope_delta=0.0,
        end_level_delta=0.0,
    )
    base.update(kw)
    return ProsodyDelta(**base)


def test_angry_needs_higher_faster_louder() -> None:
    angry = profile_for("human", "angry")
    assert (
        direction_failures(angry, _d(f0_shift_st=5, rate_ratio=1.2, rms_db=5, f0_range_delta_st=1))
        == []
    )
    fails = direction_failures(angry, _d(f0_shift_st=-1, rate_ratio=0.9, rms_db=-2))
    assert len(fails) == 4


def test_sad_going_up_fails() -> None:
    assert direction_failures(profile_for("human", "sad"), _d(f0_shift_st=2, rate_ratio=1.1))


def test_short_utterances_skip_range_and_pause() -> None:
    hes = profile_for("human", "hesitant")
    d = _d(rate_ratio=0.8, rms_db=-2, end_slope_delta=3, f0_range_delta_st=1)
    assert direction_failures(hes, d, words=3) == []
    assert direction_failures(hes, d, words=10)
