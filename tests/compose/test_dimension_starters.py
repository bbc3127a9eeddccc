"""The new dimensions' starter texts: each set loads against its dimension, and a bad line is
refused with one sentence naming the file, the line and the problem."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from paraudit.compose import dimension_starters
from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions.base import Dimension
from paraudit.errors import ParauditError

NAMES = ("urgency", "hesitation", "whisper", "emphasis", "sarcasm")


def _dim(name: str) -> Dimension:
    return importlib.import_module(f"paraudit.dimensions.{name}").DIMENSION  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", NAMES)
def test_every_set_has_forty_distinct_texts_and_responses_per_value(name: str) -> None:
    dim = _dim(name)
    texts = starter_texts(dim)
    assert len(texts) >= 40 and len({t.text for t in texts}) == len(texts)
    assert len({t.id for t in texts}) == len(texts)
    for t in texts:
        assert list(t.responses) == [v.name for v in dim.values] or set(t.responses) == {
            v.name for v in dim.values
        }
        assert t.text not in t.responses.values()


def _with_lines(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, lines: list[object]) -> None:
    (tmp_path / "urgency.jsonl").write_text(
        "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    )
    monkeypatch.setattr(dimension_starters, "files", lambda _pkg: tmp_path)


GOOD = {"id": "u1", "text": "The sink is leaking.", "responses": {"calm": "a", "urgent": "b"}}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not a starter text"),
        ({**GOOD, "responses": {"calm": "a"}}, "line 2: responses for ['calm'], needs"),
        ({**GOOD, "responses": {"calm": "a", "urgent": "a"}}, "two values share one response"),
        ({**GOOD, "text": "The sink is, um, leaking."}, "filler"),
        ({**GOOD, "focus": [1, 9]}, "focus (1, 9) is not two words"),
    ],
)
def test_a_bad_line_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, line: object, message: str
) -> None:
    _with_lines(monkeypatch, tmp_path, [GOOD, line])
    with pytest.raises(ParauditError, match="urgency.jsonl") as e:
        starter_texts(_dim("urgency"))
    assert message in str(e.value)


def test_a_dimension_without_a_set_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(dimension_starters, "files", lambda _pkg: tmp_path)
    with pytest.raises(ParauditError, match="no offline starter texts for dimension 'urgency'"):
        starter_texts(_dim("urgency"))


@pytest.mark.parametrize("name", NAMES)
def test_positional_conversations_exist_where_the_dimension_has_the_kind(name: str) -> None:
    dim = _dim(name)
    convs = dimension_starters.positional_texts(dim)
    assert ("positional" in dim.item_kinds) == bool(convs)
    if not convs:
        assert dim.no_positional  # says why instead
        return
    assert len(convs) >= 6 and len({c.id for c in convs}) == len(convs)
    for c in convs:
        humans = [c.turns[i].text for i in c.human_turns()]
        # The reply of each branch takes up its own changed turn more than the other's.
        for b, other in (c.branches, c.branches[::-1]):
            own = _content(humans[b.shift]) & _content(b.response)
            theirs = _content(humans[other.shift]) & _content(b.response)
            assert len(own) > len(theirs), (c.id, b.shift, own, theirs)


def _content(text: str) -> set[str]:
    return {w[:5] for w in text.lower().replace(",", " ").replace(".", " ").split() if len(w) >= 4}


H, A = "human", "assistant"
CONV = {
    "id": "p1",
    "turns": [
        {"speaker": H, "text": "Help me with the house."},
        {"speaker": A, "text": "Sure."},
        {"speaker": H, "text": "The sink is leaking."},
        {"speaker": A, "text": "Noted."},
        {"speaker": H, "text": "And the alarm is beeping."},
    ],
    "branches": [
        {"shift": 1, "response": "Fix the sink."},
        {"shift": 2, "response": "Check the alarm."},
    ],
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"branches": [{"shift": 1, "response": "a"}, {"shift": 1, "response": "b"}]},
            "shifts [1, 1]",
        ),
        (
            {"branches": [{"shift": 0, "response": "a"}, {"shift": 2, "response": "b"}]},
            "shifts [0, 2]",
        ),
        ({"branches": [{"shift": 1, "response": "a"}, {"shift": 2, "response": "a"}]}, "share one"),
        ({"turns": CONV["turns"][:4]}, "must alternate, human first and last"),  # type: ignore[index]
        ({"turns": [{"speaker": H, "text": "Um, help."}, *CONV["turns"][1:]]}, "filler"),  # type: ignore[index]
    ],
)
def test_a_bad_conversation_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, change: dict[str, object], message: str
) -> None:
    (tmp_path / "urgency-positional.jsonl").write_text(
        json.dumps(CONV) + "\n" + json.dumps({**CONV, **change}) + "\n"
    )
    monkeypatch.setattr(dimension_starters, "files", lambda _pkg: tmp_path)
    with pytest.raises(ParauditError, match="urgency-positional.jsonl line 2") as e:
        dimension_starters.positional_texts(_dim("urgency"))
    assert message in str(e.value)
