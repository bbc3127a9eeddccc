from __future__ import annotations

import pytest

from paraudit.compose.parse import (
    Rejection,
    check_positional,
    final_answer,
    parse_pair,
    parse_responses,
)
from paraudit.compose.prompts import (
    ASSISTANT_EMOTIONS,
    FINAL_ANSWER_LINE,
    POSITIONAL_X,
    POSITIONAL_Y,
)

HUMAN = ("neutral", "happy", "sad", "angry", "hesitant", "frazzled")
A = """HUMAN(neutral): "Book a table for two."
VA(neutral): "Booked for four."
HUMAN(angry): "Get me a taxi."
VA(neutral): "Taxi to the airport."
HUMAN(angry): "Thanks."
VA(apologetic/empathetic/reassuring): "Sorry about the table size."
"""
B = """HUMAN(neutral): "Book a table for two."
VA(neutral): "Booked for four."
HUMAN(neutral): "Get me a taxi."
VA(neutral): "Taxi to the airport."
HUMAN(hesistant): "Thanks."
VA(empathetic): "Sorry about the taxi."
"""


def reply(a: str = A, b: str = B) -> str:
    return f"Some reasoning with HUMAN(x) words.\n{FINAL_ANSWER_LINE}\nConversation A:\n{a}===\n{b}"


def test_a_valid_pair_is_read_with_canonical_emotions() -> None:
    pair = parse_pair(reply(), HUMAN)
    assert [t.emotion for t in pair.b.context][-1] == "hesitant"
    assert pair.a.response.emotion == "empathetic"
    assert pair.a.context[0].text == "Book a table for two."
    assert check_positional(pair, POSITIONAL_X, ("angry", "hesitant")) == (1, 2)


@pytest.mark.parametrize(
    ("text", "code", "words"),
    [
        (f"reasons\n{FINAL_ANSWER_LINE}\nimpossible", "impossible", "impossible"),
        ("I cannot do it: impossible.", "impossible", "impossible"),
        ("HUMAN(neutral): hi", "malformed", "FINAL ANSWER"),
        (f"{FINAL_ANSWER_LINE}\n{A}", "malformed", "found 1"),
        (reply(b=B.replace('HUMAN(neutral): "Get', "HUMAN neutral: Get")), "malformed", "line"),
        (reply(b=B.replace("hesistant", "bored")), "vocabulary", "'bored'"),
        (reply(b=B.replace("Get me a taxi.", "Get me a cab.")), "mismatch", "words differ"),
        (reply(b=A), "no-contrast", "no human turn"),
        (reply(b=B.replace('VA(empathetic): "Sorry about the taxi."', "")), "malformed", "VA"),
    ],
)
def test_rejections_name_their_reason(text: str, code: str, words: str) -> None:
    with pytest.raises(Rejection) as e:
        parse_pair(text, HUMAN, ASSISTANT_EMOTIONS)
    assert e.value.code == code and words in e.value.reason


def test_the_last_marker_wins() -> None:
    body = final_answer(f"{FINAL_ANSWER_LINE}\ndraft\n==== FINAL ANSWER ====\nfinal")
    assert body.strip() == "final"


def test_positional_rules() -> None:
    pair = parse_pair(reply(), HUMAN)
    with pytest.raises(Rejection, match="never shifts"):
        check_positional(pair, POSITIONAL_X, ("sad",))
    same = parse_pair(
        reply(
            b=A.replace("Sorry about the table size.", "Other.").replace(
                'HUMAN(angry): "Get', 'HUMAN(sad): "Get'
            )
        ),
        HUMAN,
    )
    with pytest.raises(Rejection, match="same human turn"):
        check_positional(same, POSITIONAL_X, POSITIONAL_Y)
    back = parse_pair(
        reply(a=A.replace('HUMAN(angry): "Thanks."', 'HUMAN(happy): "Thanks."')), HUMAN
    )
    with pytest.raises(Rejection, match="one shift for good"):
        check_positional(back, POSITIONAL_X, POSITIONAL_Y)


def test_single_turn_responses() -> None:
    ok = '{"A_response": "I will fix it now.", "B_response": "Take your time."}'
    assert parse_responses(ok, ("angry", "sad")) == ("I will fix it now.", "Take your time.")
    assert parse_responses(f"```json\n{ok}\n```", ("angry", "sad"))[1] == "Take your time."
    for text, code in (
        ("impossible", "impossible"),
        ('{"A_response": "x"', "malformed"),
        ('{"A_response": "x"}', "malformed"),
        ('{"A_response": "x", "B_response": "x"}', "no-contrast"),
        ('{"A_response": "You sound angry.", "B_response": "Oh."}', "names-emotion"),
    ):
        with pytest.raises(Rejection) as e:
            parse_responses(text, ("angry", "sad"))
        assert e.value.code == code
