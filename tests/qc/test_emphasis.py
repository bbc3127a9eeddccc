"""Emphasis QC on real renderings: right ones pass, deliberately wrong ones are rejected."""

from __future__ import annotations

import pytest

from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions.base import RenderedClip
from paraudit.dimensions.emphasis import DIMENSION
from paraudit.qc.emphasis import check
from paraudit.render.emphasis import VOICES, render
from paraudit.render.espeak import speak_once

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pairs() -> list[tuple[RenderedClip, RenderedClip]]:
    voices = list(VOICES)
    out = []
    for i, t in enumerate(starter_texts(DIMENSION)[15:25]):
        v = voices[i % 3]
        out.append(
            (
                render(t.text, "stress-a", voice=v, focus=t.focus),
                render(t.text, "stress-b", voice=v, focus=t.focus),
            )
        )
    return out


def test_right_renderings_pass_in_90_percent(
    pairs: list[tuple[RenderedClip, RenderedClip]],
) -> None:
    results = [check(a, "stress-a", baseline=a) for a, _ in pairs]
    results += [check(b, "stress-b", baseline=a) for a, b in pairs]
    assert sum(r.passed for r in results) >= 0.9 * len(results), [r.reasons for r in results]


def test_stress_on_the_other_word_is_rejected(
    pairs: list[tuple[RenderedClip, RenderedClip]],
) -> None:
    for a, b in pairs:
        qc = check(a, "stress-b", baseline=a)
        assert not qc.passed and any("peak_in_target" in r for r in qc.reasons)
        assert not check(b, "stress-a", baseline=a).passed


def test_one_unaccented_rendering_cannot_pass_for_both_stresses(
    pairs: list[tuple[RenderedClip, RenderedClip]],
) -> None:
    """espeak's own intonation sometimes already peaks on one focus word (then that clip is a
    fair rendering of that stress), but never on both: the unmanipulated clip fails for at
    least one value of every item, on a peak or accent criterion."""
    for a, b in pairs:
        sp = speak_once(a.meta["text"], VOICES[a.meta["voice"]])
        results = [
            check(RenderedClip(sp.samples * 0.5, sp.rate, clip.meta), value, baseline=a)
            for clip, value in ((a, "stress-a"), (b, "stress-b"))
        ]
        assert not all(r.passed for r in results)
        for r in results:
            assert {x.split(" = ")[0] for x in r.reasons} <= {
                "f0_peak_in_target",
                "intensity_peak_in_target",
                "accent_st",
            }


def test_a_change_beyond_the_focus_words_is_rejected(
    pairs: list[tuple[RenderedClip, RenderedClip]],
) -> None:
    tested = 0
    for a, b in pairs:
        louder = RenderedClip(b.samples * 2.0, b.rate, b.meta)
        qc = check(louder, "stress-b", baseline=a)
        if qc.measures["others_words"] == 0:
            continue
        tested += 1
        assert not qc.passed and any(r.startswith("others_level") for r in qc.reasons)
    assert tested >= 7
