"""Hesitation QC on real renderings: right ones pass, deliberately wrong ones are rejected."""

from __future__ import annotations

import pytest

from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions.base import RenderedClip
from paraudit.dimensions.hesitation import DIMENSION
from paraudit.qc.hesitation import check
from paraudit.render.hesitation import render
from paraudit.render.offline_chain import PIPER_TIMBRES, render_piper

pytestmark = pytest.mark.slow
VOICES = tuple(PIPER_TIMBRES)


@pytest.fixture(scope="module")
def clips() -> list[tuple[str, RenderedClip, RenderedClip]]:
    out = []
    for i, t in enumerate(starter_texts(DIMENSION)[6:11]):
        v = VOICES[i % 3]
        out.append((t.text, render(t.text, "fluent", voice=v), render(t.text, "hesitant", voice=v)))
    return out


def _clip(text: str, **kw: object) -> RenderedClip:
    samples, rate, meta = render_piper(text, voice="joe", seed=0, **kw)  # type: ignore[arg-type]
    return RenderedClip(samples, rate, {**meta, "text": text})


def test_right_renderings_pass(clips: list[tuple[str, RenderedClip, RenderedClip]]) -> None:
    # As the starter build does (builders/dimension_starter.py): a rejected clip gets one more
    # render with the next seed. One fresh-clone run saw a hesitant clip's final rise measured
    # at -3.7 st (a pitch-track slip at the end; 1 in 80 clips fails in benchmarks/dimensions.py)
    # where the other runs measured a rise; the second render must then pass.
    for i, (text, fluent, hesitant) in enumerate(clips):
        assert check(fluent, "fluent", baseline=fluent).passed
        qc = check(hesitant, "hesitant", baseline=fluent)
        if not qc.passed:
            again = render(text, "hesitant", voice=VOICES[i % 3], seed=1)
            qc = check(again, "hesitant", baseline=fluent)
        assert qc.passed, qc.reasons


def test_pauses_without_a_rise_are_rejected(
    clips: list[tuple[str, RenderedClip, RenderedClip]],
) -> None:
    text, fluent, _ = clips[0]
    qc = check(_clip(text, pauses=2, pause_s=0.5), "hesitant", baseline=fluent)
    assert not qc.passed
    # Pauses alone slow the syllable rate (it counts them in), so the missing rise decides.
    assert [r.split(" = ")[0] for r in qc.reasons] == ["end_rise_st"]


def test_fluent_reading_labelled_hesitant_is_rejected(
    clips: list[tuple[str, RenderedClip, RenderedClip]],
) -> None:
    for _, fluent, _ in clips:
        qc = check(fluent, "hesitant", baseline=fluent)
        assert not qc.passed and any(r.startswith("long_pauses") for r in qc.reasons)


def test_a_pause_in_the_fluent_reading_is_rejected(
    clips: list[tuple[str, RenderedClip, RenderedClip]],
) -> None:
    text, fluent, hesitant = clips[1]
    assert not check(hesitant, "fluent", baseline=fluent).passed
    qc = check(_clip(text, pauses=1, pause_s=0.4), "fluent", baseline=fluent)
    assert not qc.passed and any("long_pauses" in r for r in qc.reasons)
