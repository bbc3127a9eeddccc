"""The emotion dimension's QC: the Audio Scorer's per-emotion rules (`qc/rules.py`, the paper's
Table 5 with this toolkit's acoustic fallback where no SER model is installed), behind the
dimension contract's `check(clip, value, *, baseline)`.

The baseline is the same words rendered neutral in the same voice and chain; every threshold is
relative to it, as in the builders.
"""

from __future__ import annotations

import math

from paraudit.dimensions.base import QcCheck, RenderedClip
from paraudit.errors import ParauditError
from paraudit.qc.rules import Probs, judge, measure_relative, neutral_baseline


def check(
    clip: RenderedClip, value: str, *, baseline: RenderedClip, ser: Probs | None = None
) -> QcCheck:
    """Accept or reject `clip` as a rendering of emotion `value`; `ser` as in `rules.judge`."""
    text = clip.text or baseline.text
    if not text:
        raise ParauditError("emotion QC needs the words of the clip (RenderedClip.text)")
    base = neutral_baseline([(baseline.samples, baseline.rate)], text)
    m = measure_relative(clip.samples, clip.rate, text, base)
    verdict = judge(value, m, ser)
    measures = {k: float(v) for k, v in verdict.values.items()}
    if not math.isfinite(verdict.fitness):
        measures["fitness"] = verdict.fitness
    return QcCheck(passed=verdict.accepted, measures=measures, reasons=verdict.reasons)
