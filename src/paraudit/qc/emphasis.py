"""Emphasis QC: the F0 peak and the intensity peak fall inside the target word's window (from
the renderer's alignment), the target word's F0 top stands ≥ 3 st above the rest of the
sentence, and the words that are neither focus word nor next to one are unchanged against the
baseline (the other stress).
Words without a window of their own (espeak ran them into a neighbour) are skipped."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from paraudit.dimensions.base import QcCheck, RenderedClip
from paraudit.errors import ParauditError
from paraudit.qc.acoustics import clean_pitch
from paraudit.qc.dimension_measures import Bound, judge

VALUES = ("stress-a", "stress-b")
# A peak counts as inside when within 40 ms of the window: espeak's word events mark a word's
# start to about a frame, and Praat's intensity smooths over ~30 ms.
SLACK_S = 0.04
EDGE_S = 0.04

BOUNDS = (
    Bound("f0_peak_in_target", low=1.0, why="the highest pitch falls on the stressed word"),
    Bound("intensity_peak_in_target", low=1.0, why="the loudest moment is the stressed word"),
    Bound("accent_st", low=3.0, why="stressed word's F0 top above the other words' median"),
    Bound("others_level_change_db", high=3.0, why="non-focus words' level against baseline"),
    Bound("others_f0_change_st", high=2.0, why="non-focus words' pitch against baseline"),
)


def _inside(t: float, w: Sequence[float]) -> float:
    return 1.0 if w[0] - SLACK_S <= t <= w[1] + SLACK_S else 0.0


def _per_word(clip: RenderedClip) -> tuple[list[float], list[float], float, float]:
    """Per word: mean intensity (dB) and median F0 (st, nan if unvoiced); and the times of the
    clip's F0 and intensity peaks."""
    import parselmouth

    x = np.asarray(clip.samples, dtype=np.float64)
    intensity = parselmouth.Sound(x, clip.rate).to_intensity(75.0)
    it, iv = intensity.xs(), intensity.values[0]
    pt, f0 = clean_pitch(x, clip.rate)
    st = 12 * np.log2(f0) if f0.size else np.zeros(0)
    levels, pitches = [], []
    for w in clip.meta["word_windows"]:
        if w is None:
            levels.append(float("nan"))
            pitches.append(float("nan"))
            continue
        a, b = w
        # The inner part of the word only: Praat's intensity smooths over ~40 ms, and word
        # events can sit a frame or two off, so a neighbour's accent spilled into the edges
        # (up to 7 dB on a short word after the stressed one).
        trim = min(EDGE_S, (b - a) / 4)
        m = (it >= a + trim) & (it < b - trim)
        levels.append(float(np.median(iv[m])) if m.any() else float("nan"))
        p = (pt >= a) & (pt < b)
        pitches.append(float(np.median(st[p])) if p.any() else float("nan"))
    f0_peak = float(pt[int(np.argmax(f0))]) if f0.size else -1.0
    return levels, pitches, f0_peak, float(it[int(np.argmax(iv))])


def _peak_st(clip: RenderedClip, window: Sequence[float]) -> float:
    """The highest F0 (st) inside `window`: the accent's top, not its median (the bump is a
    raised cosine, so the word's median sits below it)."""
    pt, f0 = clean_pitch(np.asarray(clip.samples, dtype=np.float64), clip.rate)
    m = (pt >= window[0]) & (pt < window[1])
    return float(np.max(12 * np.log2(f0[m]))) if m.any() else float("-inf")


def _max_abs(a: list[float], b: list[float], idx: list[int]) -> float:
    d = [abs(a[i] - b[i]) for i in idx if np.isfinite(a[i]) and np.isfinite(b[i])]
    return max(d) if d else 0.0


def check(clip: RenderedClip, value: str, *, baseline: RenderedClip) -> QcCheck:
    if value not in VALUES:
        raise ParauditError(f"emphasis has no value {value!r}")
    focus = list(clip.meta["focus"])
    target = focus[VALUES.index(value)]
    windows = clip.meta["word_windows"]
    levels, pitches, f0_peak, int_peak = _per_word(clip)
    b_levels, b_pitches, _, _ = _per_word(baseline)
    # Words next to a focus word are left out: a short neighbour ("the") still moved 3-4 dB
    # with the accent beside it (co-articulation and ~40 ms analysis windows), as it would in
    # natural speech; the rule is about the rest of the sentence.
    near = {j for i in focus for j in (i - 1, i, i + 1)}
    others = [i for i in range(len(windows)) if i not in near]
    rest = [p for i, p in enumerate(pitches) if i != target and np.isfinite(p)]
    accent = _peak_st(clip, windows[target]) - float(np.median(rest)) if rest else 0.0
    measures = {
        "f0_peak_in_target": _inside(f0_peak, windows[target]),
        "intensity_peak_in_target": _inside(int_peak, windows[target]),
        "accent_st": accent,
        "others_level_change_db": _max_abs(levels, b_levels, others),
        "others_f0_change_st": _max_abs(pitches, b_pitches, others),
        # How many words the two "unchanged" figures rest on (0 in a sentence made only of
        # focus words and their neighbours: then they say nothing).
        "others_words": float(len(others)),
    }
    return judge(measures, BOUNDS)
