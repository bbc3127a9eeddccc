"""Sarcasm QC: the differences the deadpan rendering claims, against the sincere reading of the
same words — slower, lower, flatter; the sincere reading keeps a natural pitch range."""

from __future__ import annotations

import math

from paraudit.dimensions.base import QcCheck, RenderedClip
from paraudit.errors import ParauditError
from paraudit.qc.dimension_measures import Bound, clip_text, features, judge

SARCASTIC = (
    Bound("rate_ratio", high=0.88, why="syllable rate against the sincere reading"),
    Bound("f0_shift_st", high=-1.5, why="median pitch against the sincere reading"),
    Bound("range_ratio", high=0.7, why="pitch range (10th-90th percentile) against sincere"),
)
SINCERE = (Bound("f0_range_st", low=2.5, why="a sincere reading keeps its melody"),)


def check(clip: RenderedClip, value: str, *, baseline: RenderedClip) -> QcCheck:
    text = clip_text(clip)
    f, b = features(clip, text), features(baseline, text)
    measures = {
        "rate_ratio": f.syllable_rate / b.syllable_rate if b.syllable_rate else 0.0,
        "f0_shift_st": (
            12 * math.log2(f.f0_median_hz / b.f0_median_hz)
            if f.f0_median_hz > 0 and b.f0_median_hz > 0
            else 0.0
        ),
        "range_ratio": f.f0_range_st / b.f0_range_st if b.f0_range_st > 0 else 1.0,
        "f0_range_st": f.f0_range_st,
    }
    if value == "sarcastic":
        return judge(measures, SARCASTIC)
    if value == "sincere":
        return judge(measures, SINCERE)
    raise ParauditError(f"sarcasm has no value {value!r}")
