"""Emphasis renderings (espeak-ng + PSOLA accent), measured independently of the QC code: the
stressed word holds the utterance's intensity and F0 peaks (numpy frames and autocorrelation
pitch, not Praat)."""

from __future__ import annotations

import numpy as np
import pytest

from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions.base import RenderedClip
from paraudit.dimensions.emphasis import DIMENSION, marked, unmark
from paraudit.errors import ParauditError
from paraudit.render.emphasis import VOICES, render
from tests.render.independent import FRAME_S, HOP_S, f0_track, frame_db

pytestmark = pytest.mark.slow
SLACK_S = 0.04


@pytest.fixture(scope="module")
def clips() -> list[RenderedClip]:
    voices = list(VOICES)
    out = []
    for i, t in enumerate(starter_texts(DIMENSION)[:15]):
        for value in ("stress-a", "stress-b"):
            out.append(render(t.text, value, voice=voices[i % 3], seed=i, focus=t.focus))
    return out


def _in_target(clip: RenderedClip, t: float) -> bool:
    a, b = clip.meta["word_windows"][clip.meta["target"]]
    return bool(a - SLACK_S <= t <= b + SLACK_S)


def test_stressed_word_holds_the_intensity_peak_in_90_percent(clips: list[RenderedClip]) -> None:
    hits = [
        _in_target(c, int(np.argmax(frame_db(c.samples, c.rate))) * HOP_S + FRAME_S / 2)
        for c in clips
    ]
    assert sum(hits) >= 0.9 * len(hits), hits


def test_stressed_word_holds_the_f0_peak_in_90_percent(clips: list[RenderedClip]) -> None:
    hits = []
    for c in clips:
        t, f0 = f0_track(c.samples, c.rate)
        hits.append(_in_target(c, float(t[int(np.argmax(f0))])))
    assert sum(hits) >= 0.9 * len(hits), hits


def test_the_two_stresses_differ_only_around_the_focus_words(clips: list[RenderedClip]) -> None:
    for a, b in zip(clips[::2], clips[1::2], strict=True):
        assert a.meta["text"] == b.meta["text"] and a.meta["target"] != b.meta["target"]
        assert a.meta["word_windows"] == b.meta["word_windows"]
        assert len(a.samples) == len(b.samples)


def test_marked_text_is_the_same_as_focus_indices() -> None:
    t = starter_texts(DIMENSION)[0]
    assert unmark(marked(t.text, t.focus)) == (t.text, t.focus)
    a = render(marked(t.text, t.focus), "stress-b", voice="espeak-f")
    b = render(t.text, "stress-b", voice="espeak-f", focus=t.focus)
    assert np.array_equal(a.samples, b.samples) and a.meta["text"] == t.text
    assert a.meta["focus_words"] == ["she", "took"]


def test_bad_input_is_refused() -> None:
    with pytest.raises(ParauditError, match="two focus words"):
        render("No marks here.", "stress-a", voice="espeak-m")
    with pytest.raises(ParauditError, match="no value"):
        render("*A* *b* c.", "stress-c", voice="espeak-m")
    with pytest.raises(ParauditError, match="unknown emphasis voice"):
        render("*A* *b* c.", "stress-a", voice="joe")


def test_starter_set_names_two_focus_words_per_item() -> None:
    texts = starter_texts(DIMENSION)
    assert len(texts) >= 40 and all(t.focus is not None for t in texts)
