"""A corpus of reply shapes: accepted only when they unambiguously name an offered option."""

from __future__ import annotations

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
