"""Whisper QC on real renderings: right ones pass, deliberately wrong ones are rejected."""

from __future__ import annotations

import numpy as np
import pytest

from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions.base import RenderedClip
from paraudit.dimensions.whisper import DIMENSION
from paraudit.qc.whisper import check
from paraudit.render.whisper import VOICES, render

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def clips() -> list[tuple[RenderedClip, RenderedClip]]:
    texts = starter_texts(DIMENSION)[5:10]
    return [
        (render(t.text, "voiced", voice=v, seed=i), render(t.text, "whispered", voice=v, seed=i))
        for i, t in enumerate(texts)
        for v in (VOICES[i % len(VOICES)],)
    ]


def test_right_renderings_pass(clips: list[tuple[RenderedClip, RenderedClip]]) -> None:
    for voiced, whispered in clips:
        assert check(voiced, "voiced", baseline=voiced).passed
        qc = check(whispered, "whispered", baseline=voiced)
        assert qc.passed, qc.reasons
        assert qc.measures["voiced_fraction"] < 0.1


def test_a_quiet_voiced_clip_is_not_a_whisper(
    clips: list[tuple[RenderedClip, RenderedClip]],
) -> None:
    for voiced, _ in clips:
        quiet = RenderedClip(voiced.samples * 10 ** (-10 / 20), voiced.rate, voiced.meta)
        qc = check(quiet, "whispered", baseline=voiced)
        assert not qc.passed
        assert {r.split(" = ")[0] for r in qc.reasons} == {"voiced_fraction", "hnr_db"}


def test_half_whispered_clip_is_rejected(clips: list[tuple[RenderedClip, RenderedClip]]) -> None:
    voiced, whispered = clips[0]
    half = len(voiced.samples) // 2
    mixed = np.concatenate([voiced.samples[:half] * 0.4, whispered.samples[half:]])
    qc = check(RenderedClip(mixed, voiced.rate, voiced.meta), "whispered", baseline=voiced)
    assert not qc.passed and any(r.startswith("voiced_fraction") for r in qc.reasons)


def test_whisper_labelled_voiced_is_rejected(
    clips: list[tuple[RenderedClip, RenderedClip]],
) -> None:
    for voiced, whispered in clips:
        assert not check(whispered, "voiced", baseline=voiced).passed
