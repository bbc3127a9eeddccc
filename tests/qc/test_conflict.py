"""The word–tone conflict check: VADER's label of the words against the valence of each value."""

from __future__ import annotations

from paraudit.dimensions.emotion import EMOTION
from paraudit.qc.conflict import check_conflict, words_sentiment


def test_good_news_said_sadly_is_a_conflict() -> None:
    label, compound = words_sentiment("Great, they gave me the lead role on the project.")
    assert label == "positive" and compound > 0.3
    c = check_conflict("Great, they gave me the lead role.", "surprised", "sad", EMOTION.valence)
    assert c.passed and c.source == "vader" and not c.reasons
    assert c.meta("surprised", "sad") == {"words": "surprised", "voice": "sad",
                                          "words_label": "positive", "label_source": "vader",
                                          "compound": round(c.compound or 0, 4)}  # fmt: skip


def test_words_that_agree_with_the_voice_are_refused_with_the_reason() -> None:
    c = check_conflict("This is terrible, I hate it.", "surprised", "angry", EMOTION.valence)
    assert not c.passed
    assert any("as the 'angry' voice does: they agree" in r for r in c.reasons)
    assert any("not positive as 'surprised' does" in r for r in c.reasons)


def test_the_composers_own_label_is_recorded_as_such() -> None:
    c = check_conflict("Oh, lovely.", "happy", "angry", EMOTION.valence, composer_label="Negative")
    assert not c.passed and c.source == "composer" and c.compound is None
    ok = check_conflict("Oh, lovely.", "happy", "angry", EMOTION.valence, "positive")
    assert ok.passed and "compound" not in ok.meta("happy", "angry")


def test_a_value_without_valence_asks_for_a_label() -> None:
    c = check_conflict("Fine.", "whispered", "normal", {})
    assert not c.passed and "has no valence" in c.reasons[0]
