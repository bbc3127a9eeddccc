from __future__ import annotations

from paraudit.render.profiles import profile_for
from paraudit.render.prosody import split_phrases


def test_pauses_go_at_phrase_boundaries() -> None:
    assert split_phrases("I went to the shop, and it was closed.", 1) == [
        "I went to the shop,",
        "and it was closed.",
    ]


def test_every_phrase_keeps_two_words() -> None:
    parts = split_phrases("Okay, so we should probably go and see it.", 2)
    assert 1 < len(parts) <= 3 and all(len(p.split()) >= 2 for p in parts)


def test_short_text_gets_no_pause() -> None:
    assert split_phrases("Okay, thanks.", 2) == ["Okay, thanks."]


def test_scaled_profile_moves_further() -> None:
    p = profile_for("human", "sad")
    s = p.scaled(1.5)
    assert (
        s.pitch_st < p.pitch_st
        and s.length_scale > p.length_scale
        and s.range_factor < p.range_factor
    )
