"""Hesitation QC: the hesitant reading is slower than the fluent one, stops at least twice
(once in a short sentence) for ≥ 0.3 s and rises at the end; the fluent one does not stop."""

from __future__ import annotations

from paraudit.dimensions.base import QcCheck, RenderedClip
from paraudit.errors import ParauditError
from paraudit.qc.dimension_measures import (
    Bound,
    clip_text,
    features,
    judge,
    long_pauses,
    pause_share,
)

LONG_PAUSE_S = 0.3
# The end rise has two witnesses (acoustics.py): the end level against the fluent reading's,
# and the slope over the last 0.6 s of voicing read as semitones over 0.3 s. Either can miss on
# a sparse last syllable, so the larger counts.
SLOPE_SPAN_S = 0.3


def _bounds(words: int) -> tuple[Bound, ...]:
    return (
        Bound("rate_ratio", high=0.8, why="syllable rate against the fluent reading"),
        Bound("long_pauses", low=2 if words >= 6 else 1, why=f"silent pauses ≥ {LONG_PAUSE_S} s"),
        Bound("pause_share", low=0.22, why="share of the speech span that is silent"),
        Bound("end_rise_st", low=1.0, why="rise at the end against the fluent reading"),
    )


FLUENT = (
    Bound("long_pauses", high=0, why=f"a fluent reading has no pause ≥ {LONG_PAUSE_S} s"),
    Bound("pause_share", high=0.2, why="share of the speech span that is silent"),
)


def check(clip: RenderedClip, value: str, *, baseline: RenderedClip) -> QcCheck:
    text = clip_text(clip)
    f, b = features(clip, text), features(baseline, text)
    measures = {
        "rate_ratio": f.syllable_rate / b.syllable_rate if b.syllable_rate > 0 else 0.0,
        "long_pauses": float(long_pauses(clip, LONG_PAUSE_S)),
        "pause_share": pause_share(clip),
        "end_rise_st": max(f.end_level_st - b.end_level_st, f.end_slope_st_s * SLOPE_SPAN_S),
    }
    if value == "hesitant":
        return judge(measures, _bounds(len(text.split())))
    if value == "fluent":
        return judge(measures, FLUENT)
    raise ParauditError(f"hesitation has no value {value!r}")
