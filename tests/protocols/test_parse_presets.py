"""The parse presets (protocols/parsing.py PARSE_PRESETS): strict stays the paper's JSON, lenient
also reads a reply that is nothing but one offered label, and nothing ambiguous."""

from __future__ import annotations

import pytest

from paraudit.protocols.parsing import bare_label, parse_choice, reply_shape

OPTIONS = {"R1": "the first response", "R2": "the second response"}


@pytest.mark.parametrize("raw", ["R1", " r1 ", "**R1**", "Response R1.", "`R1`", '"R1"'])
def test_lenient_reads_a_bare_label_strict_does_not(raw: str) -> None:
    assert parse_choice(raw, OPTIONS).pred is None  # strict: no JSON with 'pred'
    assert bare_label(raw, OPTIONS) == "R1"


@pytest.mark.parametrize(
    "raw",
    ["R1 or R2", "R3", "E1", "I pick R1 because the speaker sounds upset", '{"pred": "R9"}', ""],
)
def test_lenient_refuses_what_is_not_one_offered_label(raw: str) -> None:
    assert bare_label(raw, OPTIONS) is None
    assert bare_label(raw, {"E1": "angry", "E2": "sad"}) in (None, "E1")


def test_the_shape_of_a_reply_is_short_and_one_line() -> None:
    assert reply_shape('{"pred":\n  "R1"}') == '{"pred": "R1"}'
    long = reply_shape("I cannot " * 20)
    assert len(long) == 40 and long.endswith("…")
    assert reply_shape(None) == ""
