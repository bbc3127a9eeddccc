"""Urgency renderings, measured independently of the QC code (tests/render/independent.py)."""

from __future__ import annotations

import numpy as np
import pytest

from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions.base import RenderedClip
from paraudit.dimensions.urgency import DIMENSION
from paraudit.errors import ParauditError
from paraudit.render.offline_chain import PIPER_TIMBRES
from paraudit.render.urgency import render
from tests.render.independent import interior_gaps_s, sounding_span_s

pytestmark = pytest.mark.slow
VOICES = tuple(PIPER_TIMBRES)


@pytest.fixture(scope="module")
def pairs() -> list[tuple[RenderedClip, RenderedClip]]:
    texts = starter_texts(DIMENSION)[:6]
    return [
        (
            render(t.text, "calm", voice=VOICES[i % 3], seed=i),
            render(t.text, "urgent", voice=VOICES[i % 3], seed=i),
        )
        for i, t in enumerate(texts)
    ]


def test_urgent_speech_is_much_shorter_in_every_voice(
    pairs: list[tuple[RenderedClip, RenderedClip]],
) -> None:
    ratios = [
        sounding_span_s(c.samples, c.rate) / sounding_span_s(u.samples, u.rate) for c, u in pairs
    ]
    assert min(ratios) >= 1.3, ratios


def test_calm_pauses_and_urgent_does_not(pairs: list[tuple[RenderedClip, RenderedClip]]) -> None:
    for calm, urgent in pairs:
        assert max(interior_gaps_s(calm.samples, calm.rate, 0.15), default=0) >= 0.2
        assert interior_gaps_s(urgent.samples, urgent.rate, 0.15) == []


def test_clip_records_its_words_and_is_reproducible(
    pairs: list[tuple[RenderedClip, RenderedClip]],
) -> None:
    text = starter_texts(DIMENSION)[0].text
    again = render(text, "urgent", voice="joe", seed=0)
    assert np.array_equal(again.samples, pairs[0][1].samples)
    assert again.meta["text"] == text and again.meta["value"] == "urgent"
    assert again.samples.dtype == np.float32 and np.abs(again.samples).max() <= 1.0


def test_unknown_value_and_voice_are_refused() -> None:
    with pytest.raises(ParauditError, match="no value 'panicked'"):
        render("Help me.", "panicked", voice="joe")
    with pytest.raises(ParauditError, match="unknown offline voice 'bob'"):
        render("Help me.", "urgent", voice="bob")


def test_starter_set_has_forty_items_with_a_response_per_value() -> None:
    texts = starter_texts(DIMENSION)
    assert len(texts) >= 40
    assert len({t.text for t in texts}) == len(texts)
    assert all(set(t.responses) == {"calm", "urgent"} for t in texts)
