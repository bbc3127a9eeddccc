"""The valid answers of each question kind, and the token trie that forces one of them."""

from __future__ import annotations

import json

from paraudit.judges.constrain import Trie, answer_strings
from paraudit.protocols.parsing import parse_answer
from paraudit.protocols.questions import Question


def _q(answer: str, options: dict[str, str], keys: tuple[str, ...] = ()) -> Question:
    return Question("t", "J", "pointwise", "none", answer, options, human_keys=keys)  # type: ignore[arg-type]


def test_every_answer_string_parses_to_an_offered_answer() -> None:
    qs = [
        _q("choice", {"R1": "", "R2": ""}),
        _q("matching", {"R1": "", "R2": ""}),
        _q("turns", {"E1": "angry", "E2": "neutral"}, ("C1", "C3", "C5")),
    ]
    counts = []
    for q in qs:
        strings = answer_strings(q)
        preds = [parse_answer(q, s).pred for s in strings]
        assert None not in preds and len({json.dumps(p, sort_keys=True) for p in preds}) == len(
            preds
        )
        counts.append(len(strings))
    assert counts == [2, 2, 8]


def test_the_trie_allows_only_continuations_and_the_end_after_a_whole_answer() -> None:
    t = Trie([[1, 2, 3], [1, 4]], end=0)
    assert t.allowed([]) == [1] and t.allowed([1]) == [2, 4]
    assert t.allowed([1, 4]) == [0] and t.allowed([1, 2, 3]) == [0]
    assert t.allowed([9]) == [0] and t.longest == 4
