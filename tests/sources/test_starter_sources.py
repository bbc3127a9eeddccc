from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

import pytest

from paraudit.sources.starter import (
    SingleTurnSource,
    extended_single_turn_sources,
    positional_sources,
    single_turn_sources,
)

EMOTION_WORDS = re.compile(
    r"\b(angry|anger|mad|sad|sadness|surprised?|surprising|shocked|neutral|upset|frustrat\w*)\b",
    re.I,
)


@pytest.mark.parametrize(
    ("sources", "least"),
    [(single_turn_sources, 48), (extended_single_turn_sources, 112)],
    ids=["starter", "extension"],
)
def test_single_turn_sources_follow_the_paper_pairs(
    sources: Callable[[], list[SingleTurnSource]], least: int
) -> None:
    src = sources()
    assert len(src) >= least
    pairs = Counter(tuple(s.emotions) for s in src)
    assert set(pairs) == {
        ("angry", "sad"),
        ("surprised", "sad"),
        ("surprised", "neutral"),
        ("angry", "surprised"),
    }
    assert pairs[("angry", "surprised")] < pairs[("angry", "sad")]
    assert len({s.id for s in src}) == len(src) and len({s.text for s in src}) == len(src)
    # Each pair's responses in the tones the starter gives them (the extension as the 48).
    tones = {
        ("angry", "sad"): ("empathetic", "empathetic"),
        ("surprised", "sad"): ("happy", "empathetic"),
        ("surprised", "neutral"): ("happy", "neutral"),
        ("angry", "surprised"): ("empathetic", "happy"),
    }
    for s in src:
        assert tuple(r.emotion for r in s.responses) == tones[s.emotions], s.id


def test_the_extension_repeats_no_sentence_or_id_of_the_starter() -> None:
    both = single_turn_sources() + extended_single_turn_sources()
    assert len({s.id for s in both}) == len({s.text.lower() for s in both}) == len(both)
    # Interleaved: the first quarter of the extension already holds every pair.
    quarter = extended_single_turn_sources()[: len(extended_single_turn_sources()) // 4]
    assert len({tuple(s.emotions) for s in quarter}) == 4


@pytest.mark.parametrize(
    "sources", [single_turn_sources, extended_single_turn_sources], ids=["starter", "extension"]
)
def test_responses_never_name_the_emotion(sources: Callable[[], list[SingleTurnSource]]) -> None:
    for s in sources():
        for r in s.responses:
            assert not EMOTION_WORDS.search(r.text), (s.id, r.text)
        assert not EMOTION_WORDS.search(s.text), (s.id, s.text)


def test_positional_sources_shift_at_different_turns() -> None:
    src = positional_sources()
    assert len(src) >= 32
    assert len({p.id for p in src}) == len(src)
    for p in src:
        humans = [t for t in p.turns if t.speaker == "human"]
        assert 3 <= len(humans) <= 4 and p.turns[-1].speaker == "human"
        assert [t.speaker for t in p.turns] == ["human", "assistant"] * (len(humans) - 1) + [
            "human"
        ]
        shifts = [b.shift_human_turn for b in p.branches]
        # The sources list the earlier shift first; the builder decides which becomes branch 0.
        assert 1 <= shifts[0] < shifts[1] < len(humans), p.id
        assert p.branches[0].response != p.branches[1].response
        assert p.branches[0].cause != p.branches[1].cause


def test_positional_sources_vary_domains_and_emotion_pairs() -> None:
    src = positional_sources()
    pairs = Counter((p.before, p.after) for p in src)
    assert set(pairs) == {
        (x, y) for x in ("neutral", "happy") for y in ("sad", "angry", "frazzled", "hesitant")
    }
    assert min(pairs.values()) >= 3
    assert len({p.domain for p in src}) >= 25
    assert len({len([t for t in p.turns if t.speaker == "human"]) for p in src}) == 2


def test_positional_responses_never_name_the_emotion() -> None:
    names = re.compile(
        r"\b(happy|happiness|frazzled|hesitant|hesitat\w*|stress\w*|calm\w*|annoy\w*)\b", re.I
    )
    for p in positional_sources():
        for b in p.branches:
            assert not EMOTION_WORDS.search(b.response), (p.id, b.response)
            assert not names.search(b.response), (p.id, b.response)
