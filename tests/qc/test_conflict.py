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


def test_a_dimension_lexicon_decides_what_the_words_carry() -> None:
    from paraudit.dimensions.registry import get
    from paraudit.qc.conflict import check_words, lexicon_value

    urgency = get("urgency")
    # 'no hurry' carries calm only: the urgent list holds 'hurry up', not a bare 'hurry'.
    assert lexicon_value("No hurry but the sink is backing up.", urgency.words_carry) == ("calm",)
    assert lexicon_value("I need it RIGHT NOW.", urgency.words_carry) == ("urgent",)
    ok = check_words("No rush at all but the alarm keeps beeping.", "calm", "urgent", urgency)
    want = {"words": "calm", "voice": "urgent", "words_label": "calm", "label_source": "lexicon"}
    assert ok.passed and ok.meta("calm", "urgent") == want
    both = check_words("No rush, but do it right now.", "calm", "urgent", urgency)
    assert not both.passed and "as the 'urgent' voice does: they agree" in both.reasons[-1]
    none = check_words("The sink is backing up again.", "calm", "urgent", urgency)
    assert not none.passed and none.reasons == (
        "the words carry 'none' (the urgency lexicon), not 'calm'",)  # fmt: skip


def test_every_bundled_conflict_text_passes_its_dimension_check() -> None:
    from paraudit.compose.dimension_starters import conflict_texts
    from paraudit.dimensions.registry import get
    from paraudit.qc.conflict import check_words, conflict_refusal

    for name in ("sarcasm", "urgency"):
        dim = get(name)
        assert conflict_refusal(dim) is None
        texts = conflict_texts(dim)
        carried = [t.words for t in texts]
        # As many texts carry each value, alternating: the first N are balanced too.
        assert len(carried) == 8 and set(carried) == {v.name for v in dim.values}
        assert carried[0::2] == [carried[0]] * 4 and carried[1::2] == [carried[1]] * 4
        for t in texts:
            voice = next(v.name for v in dim.values if v.name != t.words)
            assert check_words(t.text, t.words or "", voice, dim).passed, t.id
    for name in ("emphasis", "whisper", "hesitation"):
        assert conflict_refusal(get(name))
    assert conflict_refusal(get("emotion")) is None
