"""The one order verdicts are shown in, wherever they are shown (the report's matrix and
groups, summary.md, the terminal): what needs attention first. The summary keeps its own
(judge, task) order; readers sort with `by_attention`, so the page and the terminal cannot drift
apart (the terminal once listed the at-chance controls first while the report listed them last).
"""

from __future__ import annotations

from collections.abc import Iterable

from paraudit.stats.model import Verdict

CONTROLS = ("builtin:random", "builtin:first", "builtin:transcript", "builtin:abstain")
"""Judges whose verdict is known before the run (a guess, a position habit, the words only,
always abstaining): checks of the audit itself, listed after the judges under audit."""

_RANK = {"below chance": 1, "at chance": 2, "usable": 3, "reliable": 4, "not run": 5}
_UNANSWERED = ("answers not given", "no answers")


def is_control(judge: str) -> bool:
    spec = judge.split(" [", 1)[0].split("?", 1)[0]
    return spec in CONTROLS


def attention(v: Verdict) -> tuple[int, int, int, str, str]:
    """Sort key, what needs attention first: judges under audit before the controls; then
    unanswered, below chance, at chance, above chance but not reliable, reliable; then more
    named behaviours first."""
    rank = 0 if v.diagnosis in _UNANSWERED else _RANK.get(v.native.outcome, 5)
    return (is_control(v.judge), rank, -len(v.behaviours), v.judge, v.task)


def by_attention(verdicts: Iterable[Verdict]) -> list[Verdict]:
    """The verdicts in the order every view shows them (see the module's docstring)."""
    return sorted(verdicts, key=attention)
