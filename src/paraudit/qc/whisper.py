"""Whisper QC: a whispered clip has (almost) no voiced frames and a low harmonics-to-noise
ratio, and is quieter than the voiced reading; a voiced clip is voiced through most of its sound."""

from __future__ import annotations

import numpy as np

from paraudit.dimensions.base import QcCheck, RenderedClip
from paraudit.errors import ParauditError
from paraudit.qc.dimension_measures import Bound, judge, voicing

WHISPERED = (
    Bound("voiced_fraction", high=0.1, why="share of sounding frames with a pitch"),
    Bound("hnr_db", high=2.5, why="harmonics-to-noise ratio; voiced speech here reads 4-13 dB"),
    Bound("level_db", high=-3.0, why="RMS against the voiced reading"),
)
# Voiced readings measured 65-92 % voiced frames and HNR 7-13 dB in the five voices; whispers
# 0-2 % and HNR ≤ 1.3 dB. The bounds sit between, nearer the whispers' side of the gap.
VOICED = (
    Bound("voiced_fraction", low=0.4, why="share of sounding frames with a pitch"),
    Bound("hnr_db", low=3.0, why="harmonics-to-noise ratio"),
)


def _rms_db(clip: RenderedClip) -> float:
    x = np.asarray(clip.samples, dtype=np.float64)
    return float(20 * np.log10(np.sqrt(np.mean(x**2)) + 1e-12))


def check(clip: RenderedClip, value: str, *, baseline: RenderedClip) -> QcCheck:
    voiced, hnr = voicing(clip)
    measures = {
        "voiced_fraction": voiced,
        "hnr_db": hnr,
        "level_db": _rms_db(clip) - _rms_db(baseline),
    }
    if value == "whispered":
        return judge(measures, WHISPERED)
    if value == "voiced":
        return judge(measures, VOICED)
    raise ParauditError(f"whisper has no value {value!r}")
