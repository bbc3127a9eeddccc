"""Builds that lose (nearly) everything to audio QC say why, in numbers (issue 19, item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paraudit.builders.card import card_data, card_markdown
from paraudit.errors import ParauditError
from paraudit.qc.rules import Miss
from tests.builders.fakes import ChatServer, QuickVoicer, quick_build


def slope(i: int) -> tuple[Miss, ...]:
    return (Miss("end_slope", 1.0 + i % 4, "≥", 6.0, " st/s"),)


def test_nothing_survives_names_the_rules_with_measured_values(
    chat: ChatServer, tmp_path: Path
) -> None:
    (tmp_path / "clips").mkdir()
    voicer = QuickVoicer(tmp_path / "clips", drop_all=True, misses=slope)
    with pytest.raises(ParauditError) as e:
        quick_build(chat, tmp_path, voicer)
    lines = str(e.value).splitlines()
    assert lines[0].startswith("every composed pair (5) was dropped by audio QC")
    assert "audio QC dropped" in lines[1]
    # Per target and rule: turns, the measured range and the threshold.
    assert any(
        "(human): end_slope ≥ 6 st/s missed by" in x and "measured 1 … 4 st/s" in x for x in lines
    ), lines
    assert not (tmp_path / "ds").exists()


def test_worded_failures_are_counted_with_their_numbers_masked(
    chat: ChatServer, tmp_path: Path
) -> None:
    (tmp_path / "clips").mkdir()
    with pytest.raises(ParauditError) as e:
        quick_build(chat, tmp_path, QuickVoicer(tmp_path / "clips", drop_all=True))
    assert "pitch moved # st, expected about # missed by" in str(e.value)


def test_the_card_lists_every_rule(chat: ChatServer, tmp_path: Path) -> None:
    # One response clip fails QC: the pairs that use it are dropped, the others kept.
    (tmp_path / "clips").mkdir()

    class SomeFail(QuickVoicer):
        def voice_all(self, jobs, on_done=None):  # type: ignore[no-untyped-def]
            out = super().voice_all(jobs, on_done)
            first = next(j for j in jobs if j.role == "assistant")
            v = out[first]
            out[first] = type(v)(None, False, 10, ("try 10: x",), {}, 0.0, slope(2))
            return out

    r = quick_build(chat, tmp_path, SomeFail(tmp_path / "clips"))
    d = card_data(r)
    assert d["qc"]["dropped_turns"] == 1
    assert d["qc"]["misses"][0]["rule"] == "end_slope ≥ 6 st/s"
    md = card_markdown(d)
    assert "Why QC dropped turns (1 turns), by rule:" in md
    assert "neutral (assistant): end_slope ≥ 6 st/s missed by 1 turn (measured 3 st/s)" in md
