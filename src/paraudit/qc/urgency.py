"""Urgency QC: the urgent reading is ≥ 1.3× the calm one's syllable rate with almost no pause;
the calm reading keeps a calm absolute rate and a real pause."""

from __future__ import annotations

from paraudit.dimensions.base import QcCheck, RenderedClip
from paraudit.errors import ParauditError
from paraudit.qc.dimension_measures import Bound, clip_text, features, judge, pause_share

URGENT = (
    Bound("rate_ratio", low=1.3, why="syllable rate against the calm reading of the same words"),
    Bound("pause_share", high=0.08, why="an urgent reading does not stop"),
)
# 2.5–5.6 syllables/s brackets the calm readings measured (4.4–5.0) with room on both sides;
# pause share counts stop closures ≥ 0.1 s too, so even a fluent reading has a little.
CALM = (
    Bound("syllable_rate", low=2.5, high=5.6, why="a calm conversational pace"),
    Bound("pause_share", low=0.1, high=0.4, why="one clear pause at a phrase boundary"),
)


def check(clip: RenderedClip, value: str, *, baseline: RenderedClip) -> QcCheck:
    text = clip_text(clip)
    rate = features(clip, text).syllable_rate
    base = features(baseline, text).syllable_rate
    measures = {
        "syllable_rate": rate,
        "rate_ratio": rate / base if base > 0 else 0.0,
        "pause_share": pause_share(clip),
    }
    if value == "urgent":
        return judge(measures, URGENT)
    if value == "calm":
        return judge(measures, CALM)
    raise ParauditError(f"urgency has no value {value!r}")
