"""A corpus of reply shapes: accepted only when they unambiguously name an offered option."""

from __future__ import annotations

import json

import pytest

from paraudit.protocols.parsing import parse_choice, parse_matching, parse_turns

CHOICE = [
    ('{"reasoning": "x", "pred": "R1"}', "R1"),
    ('{"reasoning": "x", "pred": "R2"}', "R2"),
    ('```json\n{"reasoning": "x", "pred": "R2"}\n```', "R2"),
    ('Sure! Here is my answer: {"reasoning": "calm", "pred": "R1"} Hope it helps.', "R1"),
    ('{"reasoning": "x", "pred": "r1"}', "R1"),
    ('{"reasoning": "x", "pred": " R 2 "}', "R2"),
    ('{"reasoning": "x", "pred": "Response R1"}', "R1"),
    ('{"Pred": "R2", "reasoning": "x"}', "R2"),
    ('{"reasoning": "x", "pred": "R2."}', "R2"),
    ('{"reasoning": "the answer {\\"pred\\": \\"R1\\"} is wrong", "pred": "R2"}', "R2"),
    ('{"reasoning": "x", "pred": "R1"} {"reasoning": "y", "pred": "R1"}', "R1"),
    ('{"reasoning": "x", "pred": "R1"}' + " " * 1000, "R1"),
    ('{"reasoning": "\u00e9\u00e8 \ufffd", "pred": "R2"}', "R2"),
    ('{\n  "reasoning": "multi\\nline",\n  "pred": "R1"\n}', "R1"),
]
CHOICE_BAD = [
    "R1",
    "I think R1 is better.",
    '{"reasoning": "x"}',
    '{"reasoning": "x", "pred": "R3"}',
    '{"reasoning": "x", "pred": "R1 or R2"}',
    '{"reasoning": "x", "pred": "both"}',
    '{"reasoning": "x", "pred": ["R1", "R2"]}',
    '{"reasoning": "x", "pred": 1}',
    '{"reasoning": "x", "pred": null}',
    '{"reasoning": "x", "pred": "R1"} {"reasoning": "y", "pred": "R2"}',
    '{"reasoning": "x", "pred": "E1"}',
    '{"reasoning": "x", "pred": "R1"',
    "",
    "\ufffd\ufffd\ufffd",
    '{"pred": "R1"}' + "x" * 300_000,
    '"{\\"pred\\": \\"R1\\"}"',
    '{"reasoning": "x", "pred": "The first response, R1, because R2 is rude"}',
]


@pytest.mark.parametrize(("raw", "want"), CHOICE)
def test_choice_accepted(raw: str, want: str) -> None:
    assert parse_choice(raw).pred == want


@pytest.mark.parametrize("raw", CHOICE_BAD)
def test_choice_unparsed_with_reason(raw: str) -> None:
    p = parse_choice(raw)
    assert p.pred is None and p.reason


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ('{"reasoning": "x", "pred": {"CA": "R1", "CB": "R2"}}', {"CA": "R1", "CB": "R2"}),
        ('{"reasoning": "x", "pred": {"ca": "r2", "cb": "r1"}}', {"CA": "R2", "CB": "R1"}),
        (
            '{"reasoning": "x", "pred": "{\\"CA\\": \\"R2\\", \\"CB\\": \\"R1\\"}"}',
            {"CA": "R2", "CB": "R1"},
        ),
        ('{"reasoning": "x", "pred": {"CA": "R1", "CB": "R1"}}', None),
        ('{"reasoning": "x", "pred": {"CA": "R1"}}', None),
        ('{"reasoning": "x", "pred": {"CA": "R1", "CB": "R2", "CC": "R1"}}', None),
        ('{"reasoning": "x", "pred": "R1"}', None),
    ],
)
def test_matching(raw: str, want: dict[str, str] | None) -> None:
    assert parse_matching(raw).pred == want


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ('{"reasoning": "x", "pred": {"C1": "E1", "C3": "E2"}}', {"C1": "E1", "C3": "E2"}),
        ('{"reasoning": "x", "pred": {"c1": "e1", "C[3]": "E2"}}', {"C1": "E1", "C3": "E2"}),
        ('{"reasoning": "x", "pred": {"C1": "E1"}}', None),
        ('{"reasoning": "x", "pred": {"C1": "E1", "C2": "E1", "C3": "E2"}}', None),
        ('{"reasoning": "x", "pred": {"C1": "E1", "C3": "E3"}}', None),
        ('{"reasoning": "x", "pred": {"turn1": "E1", "C3": "E2"}}', None),
    ],
)
def test_turn_labels(raw: str, want: dict[str, str] | None) -> None:
    assert parse_turns(raw, ("C1", "C3")).pred == want


# --- one test per rule of issue 8 -----------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        '{"reasoning": "x", "pred": "R1", "pred": "R2"}',
        '{"reasoning": "x", "pred": "R1", "PRED": "R1"}',  # even when they agree
        '{"reasoning": "x", "Reasoning": "y", "pred": "R1"}',
    ],
)
def test_duplicate_keys_are_unparsed(raw: str) -> None:
    p = parse_choice(raw)
    assert p.pred is None and "twice" in p.reason


def test_duplicate_keys_inside_a_matching_or_turn_labels_are_unparsed() -> None:
    assert parse_matching('{"pred": {"CA": "R1", "ca": "R2", "CB": "R2"}}').pred is None
    assert parse_matching('{"pred": "{\\"CA\\": \\"R1\\", \\"CA\\": \\"R2\\"}"}').pred is None
    assert (
        parse_turns('{"pred": {"C1": "E1", "C[1]": "E2", "C3": "E2"}}', ("C1", "C3")).pred is None
    )


def test_control_characters_inside_strings_are_accepted() -> None:
    raw = '{"reasoning": "first line\nsecond\tline", "pred": "R2"}'
    assert parse_choice(raw).pred == "R2"


def test_an_option_meaning_maps_through_the_options() -> None:
    options = {"R1": "angry", "R2": "sad"}
    assert parse_choice('{"reasoning": "x", "pred": "angry"}', options).pred == "R1"
    assert parse_choice('{"reasoning": "x", "pred": "Sad."}', options).pred == "R2"
    assert parse_choice('{"reasoning": "x", "pred": "happy"}', options).pred is None
    # Without meanings (or with two equal ones) a name cannot be mapped.
    assert parse_choice('{"reasoning": "x", "pred": "angry"}').pred is None
    same = {"R1": "angry", "R2": "angry"}
    assert parse_choice('{"reasoning": "x", "pred": "angry"}', same).pred is None
    turns = parse_turns(
        '{"pred": {"C1": "neutral", "C3": "frazzled"}}',
        ("C1", "C3"),
        {"E1": "neutral", "E2": "frazzled"},
    )
    assert turns.pred == {"C1": "E1", "C3": "E2"}


@pytest.mark.parametrize(
    ("pred", "want"),
    [
        ("R1 (angry)", "R1"),
        ("R2 (sad)", "R2"),
        ("R1 (the calmer reply)", "R1"),
        ("**R1**", "R1"),
        ("`R2`", "R2"),
        ("**R2 (sad)**", "R2"),
        ("R1 (sad)", None),  # the note names the other option: ambiguous
        ("R1 (not R2)", None),
        ("**R1** or R2", None),
    ],
)
def test_annotated_labels_are_accepted_when_unambiguous(pred: str, want: str | None) -> None:
    raw = json.dumps({"reasoning": "x", "pred": pred})
    assert parse_choice(raw, {"R1": "angry", "R2": "sad"}).pred == want


def test_parse_answer_dispatches_on_the_question() -> None:
    from paraudit.protocols.parsing import parse_answer
    from paraudit.protocols.questions import Question

    q = Question(
        "positional-emotion",
        "P",
        "pointwise",
        "none",
        "turns",
        {"E1": "neutral", "E2": "angry"},
        human_keys=("C1", "C3"),
    )
    assert parse_answer(q, '{"pred": {"C1": "E1", "C3": "angry"}}').pred == {
        "C1": "E1",
        "C3": "E2",
    }
    m = Question("x", "J", "pairwise", "none", "matching", {"R1": "", "R2": ""})
    assert parse_answer(m, '{"pred": {"CA": "**R2**", "CB": "R1"}}').pred == {
        "CA": "R2",
        "CB": "R1",
    }
