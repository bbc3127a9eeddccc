"""The espeak-ng renderer through the espeakng-loader wheel: word events, voices, and the
missing-extra message."""

from __future__ import annotations

import sys

import pytest

from paraudit.errors import MissingExtraError, ParauditError
from paraudit.render import espeak


def test_word_events_give_one_start_per_word_in_order() -> None:
    sp = espeak.speak_once("Send the report to Maria by Thursday.", "en-us+m3")
    assert len(sp.word_starts) == 7 and list(sp.word_starts) == sorted(sp.word_starts)
    assert sp.word_positions == (0, 5, 9, 16, 19, 25, 28)
    assert sp.rate == 22050 and abs(sp.samples).max() <= 1.0


def test_speak_once_serves_one_rendering_per_words_and_voice() -> None:
    a = espeak.speak_once("The old bridge is closed today.", "en-us+f3")
    assert espeak.speak_once("The old bridge is closed today.", "en-us+f3") is a


def test_unknown_espeak_voice_is_refused() -> None:
    # espeak-ng refuses an unknown language, but an unknown variant ("en-us+nobody") falls
    # back to the plain voice silently; paraudit only passes variants from fixed tables.
    with pytest.raises(ParauditError, match="no voice 'zz-nothing'"):
        espeak.speak("<speak>Hello.</speak>", "zz-nothing")


def test_missing_wheel_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "espeakng_loader", None)
    with pytest.raises(MissingExtraError, match=r"paraudit\[espeak\]"):
        espeak._Engine()
