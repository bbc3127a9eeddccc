"""The recording-condition twin rule (qc/invariance.check_condition): a real phone line and a
real room pass on starter clips; the untouched clip, a line that only removes the low band, a
room-less echo-free copy at another level, each fail with the reason naming the measure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from paraudit.audio.changes import VARIANTS, apply
from paraudit.items.dataset import load_dataset
from paraudit.qc.invariance import check_twin


@pytest.fixture(scope="module")
def clips(starter_small: Path) -> list[tuple[np.ndarray, int, str]]:
    ds = load_dataset(starter_small)
    out = []
    for item in ds.items[:3]:
        x, rate = sf.read(str(starter_small / item.branches[0].audio[0]), dtype="float64")
        out.append((x, rate, item.context[0].text))
    return out


@pytest.mark.parametrize("change", ["telephone", "reverb"])
def test_a_real_condition_passes(change: str, clips: list[tuple[np.ndarray, int, str]]) -> None:
    if change == "reverb":
        pytest.importorskip("pyroomacoustics")
    v = VARIANTS[change][0]
    for x, rate, text in clips:
        y, r = apply(v, x, rate)
        c = check_twin(x, rate, y, r, text, change, v.params)
        assert c.accepted, c.reasons
        assert c.condition is not None and c.as_dict()["condition"] == c.condition


def test_wrong_conditions_are_rejected(clips: list[tuple[np.ndarray, int, str]]) -> None:
    from scipy.signal import butter, sosfiltfilt

    x, rate, text = clips[0]
    same = check_twin(x, rate, x, rate, text, "telephone", {})
    assert not same.accepted and same.failed == ("band limit",)
    high_pass_only = sosfiltfilt(butter(4, 300, "highpass", fs=rate, output="sos"), x)
    hp = check_twin(x, rate, high_pass_only, rate, text, "telephone", {})
    assert not hp.accepted and "energy above 4 kHz" in hp.reasons[0]
    dry = check_twin(x, rate, np.r_[x, np.zeros(rate // 2)], rate, text, "reverb", {})
    assert not dry.accepted and dry.failed == ("room tail",)
    pytest.importorskip("pyroomacoustics")
    wet, _ = apply(VARIANTS["reverb"][0], x, rate)
    louder = check_twin(x, rate, wet * 2.0, rate, text, "reverb", {})
    assert not louder.accepted and louder.failed == ("loudness",)
