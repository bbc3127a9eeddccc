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
    assert len(src) >= 8
    for p in src:
        humans = [t for t in p.turns if t.speaker == "human"]
        assert 3 <= len(humans) <= 7 and p.turns[-1].speaker == "human"
        assert p.before in {"neutral", "happy"} and p.after in {
            "sad",
            "angry",
            "frazzled",
            "hesitant",
        }
        shifts = [b.shift_human_turn for b in p.branches]
        assert shifts[0] != shifts[1] and max(shifts) < len(humans)
        assert p.branches[0].response != p.branches[1].response
