"""Urgency QC on real renderings: right ones pass, deliberately wrong ones are rejected."""

from __future__ import annotations

import pytest

from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions.base import RenderedClip
from paraudit.dimensions.urgency import DIMENSION
from paraudit.qc.urgency import check
from paraudit.render.offline_chain import PIPER_TIMBRES, render_piper
from paraudit.render.urgency import render

pytestmark = pytest.mark.slow
VOICES = tuple(PIPER_TIMBRES)


@pytest.fixture(scope="module")
def clips() -> list[tuple[str, RenderedClip, RenderedClip]]:
    out = []
    for i, t in enumerate(starter_texts(DIMENSION)[6:12]):
        v = VOICES[i % 3]
        out.append((t.text, render(t.text, "calm", voice=v), render(t.text, "urgent", voice=v)))
    return out


def _clip(text: str, **kw: object) -> RenderedClip:
    samples, rate, meta = render_piper(text, voice="joe", seed=0, **kw)  # type: ignore[arg-type]
    return RenderedClip(samples, rate, {**meta, "text": text})


def test_right_renderings_pass(clips: list[tuple[str, RenderedClip, RenderedClip]]) -> None:
    for _, calm, urgent in clips:
        assert check(calm, "calm", baseline=calm).passed
        qc = check(urgent, "urgent", baseline=calm)
        assert qc.passed, qc.reasons
        assert qc.measures["rate_ratio"] >= 1.3


def test_calm_reading_labelled_urgent_is_rejected(
    clips: list[tuple[str, RenderedClip, RenderedClip]],
) -> None:
    for _, calm, _ in clips:
        qc = check(calm, "urgent", baseline=calm)
        assert not qc.passed
        assert any(r.startswith("rate_ratio") for r in qc.reasons)
        assert any(r.startswith("pause_share") for r in qc.reasons)


def test_barely_faster_reading_is_rejected(
    clips: list[tuple[str, RenderedClip, RenderedClip]],
) -> None:
    text, calm, _ = clips[0]
    qc = check(_clip(text, length_scale=1.0), "urgent", baseline=calm)
    assert not qc.passed and any("rate_ratio" in r and "≥ 1.3" in r for r in qc.reasons)


def test_hurried_reading_labelled_calm_is_rejected(
    clips: list[tuple[str, RenderedClip, RenderedClip]],
) -> None:
    for _, calm, urgent in clips:
        qc = check(urgent, "calm", baseline=calm)
        assert not qc.passed and qc.reasons
