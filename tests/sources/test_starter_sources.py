from __future__ import annotations

import re
from collections import Counter

from paraudit.sources.starter import positional_sources, single_turn_sources

EMOTION_WORDS = re.compile(
    r"\b(angry|anger|mad|sad|sadness|surprised?|surprising|shocked|neutral|upset|frustrat\w*)\b",
    re.I,
)


def test_single_turn_sources_follow_the_paper_pairs() -> None:
    src = single_turn_sources()
    assert len(src) >= 48
    pairs = Counter(tuple(s.emotions) for s in src)
    assert set(pairs) == {
        ("angry", "sad"),
        ("surprised", "sad"),
        ("surprised", "neutral"),
        ("angry", "surprised"),
    }
    assert pairs[("angry", "surprised")] < pairs[("angry", "sad")]
    assert len({s.id for s in src}) == len(src) and len({s.text for s in src}) == len(src)


def test_responses_never_name_the_emotion() -> None:
    for s in single_turn_sources():
        for r in s.responses:
            assert not EMOTION_WORDS.search(r.text), (s.id, r.text)


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
