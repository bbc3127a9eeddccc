"""Sarcasm (deadpan) renderings, measured independently of the QC code: slower, lower, flatter."""

from __future__ import annotations

import numpy as np
import pytest

from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions.base import RenderedClip
from paraudit.dimensions.sarcasm import DIMENSION
from paraudit.errors import ParauditError
from paraudit.render.offline_chain import PIPER_TIMBRES
from paraudit.render.sarcasm import render
from tests.render.independent import f0_track, sounding_span_s

pytestmark = pytest.mark.slow
VOICES = tuple(PIPER_TIMBRES)


@pytest.fixture(scope="module")
def pairs() -> list[tuple[RenderedClip, RenderedClip]]:
    return [
        (
            render(t.text, "sincere", voice=VOICES[i % 3], seed=i),
            render(t.text, "sarcastic", voice=VOICES[i % 3], seed=i),
        )
        for i, t in enumerate(starter_texts(DIMENSION)[:6])
    ]


def _st(clip: RenderedClip) -> np.ndarray:
    return 12 * np.log2(f0_track(clip.samples, clip.rate)[1])


def test_sarcastic_reading_is_slower_lower_and_flatter(
    pairs: list[tuple[RenderedClip, RenderedClip]],
) -> None:
    for sincere, sarcastic in pairs:
        a, b = _st(sincere), _st(sarcastic)
        assert sounding_span_s(sarcastic.samples, sarcastic.rate) > 1.12 * sounding_span_s(
            sincere.samples, sincere.rate
        )
        assert np.median(b) < np.median(a) - 1.5
        spread = np.percentile(b, 90) - np.percentile(b, 10)
        assert spread < 0.8 * (np.percentile(a, 90) - np.percentile(a, 10))


def test_unknown_value_refused() -> None:
    with pytest.raises(ParauditError, match="no value 'ironic'"):
        render("Thanks.", "ironic", voice="joe")
