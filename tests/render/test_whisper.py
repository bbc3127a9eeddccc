"""Whisper renderings (Piper noise-vocoded and espeak-ng's whisper variants), measured with a
numpy autocorrelation voicing detector that shares nothing with Praat's."""

from __future__ import annotations

import numpy as np
import pytest

from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions.base import RenderedClip
from paraudit.dimensions.whisper import DIMENSION
from paraudit.errors import ParauditError
from paraudit.render.whisper import VOICES, render
from tests.render.independent import frame_db, sounding, sounding_span_s, voiced_share

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pairs() -> list[tuple[str, RenderedClip, RenderedClip]]:
    texts = starter_texts(DIMENSION)
    return [
        (v, render(t.text, "voiced", voice=v, seed=i), render(t.text, "whispered", voice=v, seed=i))
        for i, t in enumerate(texts[:5])
        for v in VOICES
    ]


def test_whispered_turns_have_under_ten_percent_voiced_frames(
    pairs: list[tuple[str, RenderedClip, RenderedClip]],
) -> None:
    for voice, voiced, whispered in pairs:
        assert voiced_share(whispered.samples, whispered.rate) < 0.10, voice
        # This detector is strict (it counts unvoiced consonants as sounding): voiced readings
        # score 0.33-0.48 on it.
        assert voiced_share(voiced.samples, voiced.rate) > 0.25, voice


def test_whisper_keeps_the_timing_and_envelope_of_the_piper_reading(
    pairs: list[tuple[str, RenderedClip, RenderedClip]],
) -> None:
    for voice, voiced, whispered in pairs:
        if voice.startswith("espeak"):
            continue
        a, b = voiced.samples, whispered.samples
        assert len(a) == len(b)
        assert abs(sounding_span_s(a, voiced.rate) - sounding_span_s(b, whispered.rate)) < 0.15
        both = sounding(a, voiced.rate)
        r = np.corrcoef(frame_db(a, voiced.rate)[both], frame_db(b, voiced.rate)[both])[0, 1]
        assert r > 0.8, (voice, r)


def test_five_voices_and_reproducible_noise() -> None:
    assert len(VOICES) >= 5
    text = starter_texts(DIMENSION)[0].text
    a = render(text, "whispered", voice="joe", seed=3)
    assert np.array_equal(a.samples, render(text, "whispered", voice="joe", seed=3).samples)
    assert not np.array_equal(a.samples, render(text, "whispered", voice="joe", seed=4).samples)


def test_unknown_value_refused() -> None:
    with pytest.raises(ParauditError, match="no value 'shouted'"):
        render("Hello.", "shouted", voice="joe")
