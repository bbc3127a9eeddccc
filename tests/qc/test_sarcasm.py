"""Sarcasm QC on real renderings: right ones pass, deliberately wrong ones are rejected."""

from __future__ import annotations

import pytest

from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions.base import RenderedClip
from paraudit.dimensions.sarcasm import DIMENSION
from paraudit.qc.sarcasm import check
from paraudit.render.offline_chain import render_piper
from paraudit.render.profiles import EmotionProfile
from paraudit.render.sarcasm import render

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def clips() -> list[tuple[str, RenderedClip, RenderedClip]]:
    return [
        (t.text, render(t.text, "sincere"), render(t.text, "sarcastic"))
        for t in starter_texts(DIMENSION)[6:10]
    ]


def test_right_renderings_pass(clips: list[tuple[str, RenderedClip, RenderedClip]]) -> None:
    for _, sincere, sarcastic in clips:
        assert check(sincere, "sincere", baseline=sincere).passed
        qc = check(sarcastic, "sarcastic", baseline=sincere)
        assert qc.passed, qc.reasons


def test_sincere_reading_labelled_sarcastic_is_rejected_on_every_figure(
    clips: list[tuple[str, RenderedClip, RenderedClip]],
) -> None:
    for _, sincere, _ in clips:
        qc = check(sincere, "sarcastic", baseline=sincere)
        assert {r.split(" = ")[0] for r in qc.reasons} == {
            "rate_ratio",
            "f0_shift_st",
            "range_ratio",
        }


def test_lower_but_not_flatter_is_rejected(
    clips: list[tuple[str, RenderedClip, RenderedClip]],
) -> None:
    text, sincere, _ = clips[0]
    s, rate, meta = render_piper(
        text, voice="joe", seed=0, length_scale=1.4, pitch=EmotionProfile("x", pitch_st=-2.5)
    )
    qc = check(RenderedClip(s, rate, {**meta, "text": text}), "sarcastic", baseline=sincere)
    assert [r.split(" = ")[0] for r in qc.reasons] == ["range_ratio"]
