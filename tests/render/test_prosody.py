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


def test_assistant_voice_is_a_function_of_its_input() -> None:
    """Praat's "Change gender" draws random numbers: unseeded, two calls on the same clip gave
    different bytes, so fresh builds of a set differed. It is seeded now, and Praat's generator
    is left unpredictable for others."""
    import numpy as np
    import parselmouth

    from paraudit.render.prosody import change_voice

    rate = 22050
    t = np.arange(rate) / rate
    noise = np.random.default_rng(0).standard_normal(rate)
    # Voiced for half a second, then noise: the unvoiced stretch is where randomness entered.
    clip = 0.3 * np.sin(2 * np.pi * 120 * t) * (t < 0.5) + 0.05 * noise
    outs = [change_voice(clip, rate) for _ in range(3)]
    assert all(np.array_equal(outs[0], o) for o in outs[1:])
    assert not np.array_equal(outs[0], change_voice(clip * 0.9, rate))
    # Other Praat randomness is not pinned by the seed.
    draws = [
        parselmouth.praat.run("x = randomUniform (0, 1)", return_variables=True)[1]["x"]
        for _ in range(2)
    ]
    assert draws[0] != draws[1]
