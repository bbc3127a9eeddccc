"""Real Piper + Praat renders: every profile moves the measured prosody its own way."""

from __future__ import annotations

from pathlib import Path

import pytest

from paraudit.qc.verify import delta
from paraudit.render.profiles import ASSISTANT_PROFILES, HUMAN_PROFILES, profile_for
from paraudit.render.renderer import Renderer

TEXT = "I just got the letter from the school, and they want to see me again next week."


@pytest.fixture(scope="module")
def renderer(render_cache: Path) -> Renderer:
    return Renderer(cache_dir=render_cache)


@pytest.mark.parametrize("emotion", [e for e in HUMAN_PROFILES if e != "neutral"])
def test_human_profile_goes_its_way(renderer: Renderer, emotion: str) -> None:
    v = renderer.render_verified(TEXT, "human", emotion)
    assert v.accepted, v.failures
    assert v.delta is not None


@pytest.mark.parametrize("emotion", [e for e in ASSISTANT_PROFILES if e != "neutral"])
def test_assistant_profile_goes_its_way(renderer: Renderer, emotion: str) -> None:
    v = renderer.render_verified(TEXT, "assistant", emotion)
    assert v.accepted, v.failures


def test_angry_is_faster_louder_higher_than_sad(renderer: Renderer) -> None:
    angry = renderer.measure(renderer.render(TEXT, "human", profile_for("human", "angry")), TEXT)
    sad = renderer.measure(renderer.render(TEXT, "human", profile_for("human", "sad")), TEXT)
    d = delta(angry, sad)
    assert d.f0_shift_st > 5
    assert d.rate_ratio > 1.3
    assert d.rms_db > 6
    assert sad.longest_pause_s > angry.longest_pause_s


def test_assistant_voice_is_distinct_from_human(renderer: Renderer) -> None:
    h = renderer.measure(renderer.render(TEXT, "human", profile_for("human", "neutral")), TEXT)
    a = renderer.measure(
        renderer.render(TEXT, "assistant", profile_for("assistant", "neutral")), TEXT
    )
    assert 12 * __import__("math").log2(a.f0_median_hz / h.f0_median_hz) > 5


def test_fresh_renders_are_byte_identical(tmp_path: Path) -> None:
    # Two renderers with separate caches: the second cannot reuse the first's file.
    a = Renderer(cache_dir=tmp_path / "a").render(TEXT, "human", profile_for("human", "surprised"))
    b = Renderer(cache_dir=tmp_path / "b").render(TEXT, "human", profile_for("human", "surprised"))
    assert a.key == b.key
    assert a.path.read_bytes() == b.path.read_bytes()


def test_fresh_assistant_renders_are_byte_identical(tmp_path: Path) -> None:
    # The assistant voice goes through Praat's "Change gender", which is seeded (see
    # render/prosody.change_voice): two fresh builds give the same clips and file names.
    a = Renderer(cache_dir=tmp_path / "a").render(
        TEXT, "assistant", profile_for("assistant", "empathetic")
    )
    b = Renderer(cache_dir=tmp_path / "b").render(
        TEXT, "assistant", profile_for("assistant", "empathetic")
    )
    assert a.path.read_bytes() == b.path.read_bytes()


def test_cache_reuses_renders(tmp_path: Path) -> None:
    r = Renderer(cache_dir=tmp_path)
    first = r.render(TEXT, "human", profile_for("human", "sad"))
    again = r.render(TEXT, "human", profile_for("human", "sad"))
    assert (r.fresh_renders, r.cache_hits) == (1, 1)
    assert first == again
