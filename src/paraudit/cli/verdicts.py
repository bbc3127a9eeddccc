"""How `run --report` and `demo` end: one line per judge × task (its verdict), then the report.

The verdicts are what a newcomer acts on; the per-cell table (`--table`) is for digging in.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

from rich.markup import escape

from paraudit.cli.common import console
from paraudit.report.invariance import invariance_line
from paraudit.report.null_audio import null_audio_line
from paraudit.stats.delivery import DeliveryCell, delivery_note
from paraudit.stats.summary_model import SCHEMA, Summary
from paraudit.stats.verdict_order import by_attention

_ITEMS = re.compile(r"^\[\d+ items\]\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def verdict_headlines(summary: Summary) -> list[str]:
    """One line per judge × task: "judge · task: headline", what needs attention first (judges
    under audit before the controls), in the order of the report and summary.md
    (`stats.verdict_order.by_attention`, shared with them).

    The one place that reads a verdict for the terminal: the typed verdict's own headline
    (`stats.model.Verdict.headline`, made in `stats/verdict_text.py`).
    """
    return [f"{v.judge} · {v.task}: {v.headline}" for v in by_attention(summary.verdicts)]


def stored_headlines(raw: dict[str, Any]) -> list[str]:
    """verdict_headlines of a summary.json's contents. A summary of an older schema
    (paraudit.summary/2, before verdicts had a headline) gives each text's first sentence, in
    its stored order (its verdicts lack the fields the order reads): reports written then are
    still read, not rejected."""
    if raw.get("schema") == SCHEMA:
        return verdict_headlines(Summary.of(raw))
    out = []
    for v in raw["verdicts"]:
        text = _ITEMS.sub("", v["text"])
        first = _SENTENCE_END.split(text, maxsplit=1)[0]
        out.append(f"{v['judge']} · {v['task']}: {first}")
    return out


def wrap(line: str, width: int) -> list[str]:
    """Lines of at most `width` columns, broken at spaces only (a path or spec stays whole even
    if longer), continuation lines indented so each verdict reads as one entry."""
    return textwrap.wrap(
        line,
        width,
        subsequent_indent="    ",
        break_long_words=False,
        break_on_hyphens=False,
    ) or [""]


def print_verdicts(report_dir: Path) -> None:
    """The verdicts of the report in `report_dir` (its summary.json), one entry each."""
    raw = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))
    lines = stored_headlines(raw)
    # The audio-delivery check first: a judge whose audio never arrived answered blind.
    if raw.get("delivery"):
        note = delivery_note(DeliveryCell.model_validate(c) for c in raw["delivery"])
        for part in wrap(note, console.width):
            console.print(escape(part), highlight=False, soft_wrap=True)
    # An invariance run's own audit leads: its verdict lines name the flips only in passing.
    inv = invariance_line(Summary.of(raw)) if raw.get("invariance") else None
    for part in wrap(inv, console.width) if inv else []:
        console.print(escape(part), highlight=False, soft_wrap=True)
    console.print(
        f"[bold]verdicts[/] ({len(lines)}, one per judge × task; the report explains each):",
        highlight=False,
    )
    for line in lines:
        for part in wrap(line, console.width):
            console.print(escape(part), highlight=False, soft_wrap=True)


def print_first_verdicts(summary: Summary, others: int) -> None:
    """The first judge's verdicts, before the other judges are asked (the demo): the same
    lines the closing block prints for it, computed the same way (report.build.summary_of)."""
    lines = verdict_headlines(summary)
    console.print(
        f"[bold]first verdicts[/] ({len(lines)}; all verdicts and the report once the "
        f"{others} other judges are asked):",
        highlight=False,
    )
    for line in lines:
        for part in wrap(line, console.width):
            console.print(escape(part), highlight=False, soft_wrap=True)


def print_null_audio(report_dir: Path) -> None:
    """Probe N's one line (report/null_audio.py), when the report's runs asked it."""
    line = null_audio_line(Summary.read(report_dir / "summary.json"))
    for part in wrap(line, console.width) if line else []:
        console.print(escape(part), highlight=False, soft_wrap=True)


def print_report_path(path: Path) -> None:
    console.print(
        f"[green]✓[/] diagnostic report → {escape(str(path))}", highlight=False, soft_wrap=True
    )
