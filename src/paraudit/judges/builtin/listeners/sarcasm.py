"""builtin:sarcasm — hears the deadpan reading: lower, flatter and slower than the speaker's mean.

Perception: the median pitch (st), the pitch range (st) and the syllable rate of the clip,
each against its mean over the dataset's human clips (found in `calibrate`, no label read):
the sarcasm QC's figures (qc/sarcasm.py) with the speaker's mean standing in for the sincere
reading of the same words, which a single clip does not come with. Mapping: a sarcastic
"thanks" asks for the problem to be owned and fixed; a sincere one is accepted.
"""

from __future__ import annotations

import math

from paraudit.dimensions.base import RenderedClip
from paraudit.judges.builtin.listeners.base import (
    Listener,
    Measures,
    count,
    log_ratio,
    words_of,
)
from paraudit.qc.dimension_measures import features

FIX = frozenset(
    "sorry missed instead again fix wrong mistake doesn't isn't wasn't didn't apologies another "
    "else actually change different suit better".split()
)
GLAD = frozenset("glad welcome enjoy happy great pleasure anytime good lovely".split())


class SarcasmListener(Listener):
    dimension = "sarcasm"

    def measure(self, clip: RenderedClip, text: str) -> Measures:
        f = features(clip, text)
        st = 12 * math.log2(f.f0_median_hz) if f.f0_median_hz > 0 else 0.0
        return {"f0_st": st, "f0_range_st": f.f0_range_st, "syllable_rate": f.syllable_rate}

    def lean(self, m: Measures, mean: Measures) -> float:
        if not mean:  # not calibrated: no speaker to compare with
            return 0.0
        lower = (mean["f0_st"] - m["f0_st"]) / 1.25
        flatter = (mean["f0_range_st"] - m["f0_range_st"]) / 1.5
        slower = -log_ratio(m["syllable_rate"], mean["syllable_rate"]) / 0.06
        return lower + flatter + slower

    def fit(self, response: str, value: str, heard: str) -> float:
        w = words_of(response)
        owned = count(w, FIX) - count(w, GLAD)
        return owned if value == "sarcastic" else -owned
