"""The models that answered a run, counted as its rows are written: the end-of-run terminal
line, and what the store's completion record keeps to print it again."""

from __future__ import annotations

from collections import Counter

from paraudit.runfolder import ResultRow
from paraudit.stats.served import requested_model, same_model

NOT_SAID = "(not said)"
"""Answers whose reply named no model."""


class ServedCounts:
    """judge → served model → answered rows (failed calls answered nothing)."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter[str]] = {}

    def add(self, row: ResultRow) -> None:
        if row.status == "error":
            return
        model = (row.served or {}).get("model") or NOT_SAID
        self.counts.setdefault(row.judge, Counter())[model] += 1

    def as_dict(self) -> dict[str, dict[str, int]]:
        return {judge: dict(c.most_common()) for judge, c in self.counts.items()}


def served_lines(served: dict[str, dict[str, int]], keys: dict[str, str]) -> list[str]:
    """One line per judge: the models that answered, with a warning when one is not the model
    asked for or several answered. `keys` names judges as the terminal table does (J1 …)."""
    out = []
    for judge, models in served.items():
        named = [m for m in models if m != NOT_SAID]
        if not named or named == [judge.split("?", 1)[0]]:
            continue  # never said, or a built-in judge naming itself: nothing to tell
        requested = requested_model(judge)
        others = [m for m in named if not same_model(requested, m, judge)]
        total = sum(models.values())
        parts = ", ".join(f"{m} {n:,}" for m, n in models.items())
        line = f"{keys.get(judge, judge)} answered by: {parts} (of {total:,} answers)"
        if others:
            line += f" — not the requested {requested}: the figures are partly another model's"
        elif len(named) > 1:
            line += " — the model changed within the run"
        out.append(line)
    return out
