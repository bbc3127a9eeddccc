"""The audio-delivery check in the report: one line per judge × task under the verdicts.

Flagged judges come first and in bold (a judge whose audio did not arrive answered blind, so
every figure about it rests on guesses); judges whose usage holds no audio count are listed
as not checked, never as delivered.
"""

from __future__ import annotations

from html import escape

from paraudit.stats.delivery import DeliveryCell, delivery_note
from paraudit.stats.summary_model import Summary


def _ordered(summary: Summary) -> list[DeliveryCell]:
    return sorted(summary.delivery, key=lambda c: (not c.flagged, c.judge, c.task))


def delivery_lines(summary: Summary) -> list[str]:
    """summary.md's lines (Markdown bullets)."""
    if not summary.delivery:
        return ["No call sent audio (or the runs predate the check)."]
    out = []
    for c in _ordered(summary):
        mark = "**" if c.flagged else ""
        out.append(f"- {mark}{c.judge}{mark} · {c.task}: {c.text}")
    rates = sorted({(c.unit, c.rate_per_s, c.rate_source) for c in summary.delivery if c.unit})
    for unit, per_s, source in rates:
        per = f"{per_s:g} {unit} per second" if per_s is not None else f"{unit}"
        out.append(f"- expected {per}: {source}")
    return out


def delivery_html(summary: Summary) -> str:
    """A short block under the verdict table: one line, the flagged cells, and every cell with
    the rates' sources collapsed (the page must stay a few screens: html.py)."""
    if not summary.delivery:
        return ""

    def item(c: DeliveryCell) -> str:
        line = f"{escape(c.judge)} · {escape(c.task)}: {escape(c.text)}"
        return f"<li><b>{line}</b></li>" if c.flagged else f"<li>{line}</li>"

    flagged = "".join(item(c) for c in _ordered(summary) if c.flagged)
    every = "".join(item(c) for c in _ordered(summary))
    sources = sorted({c.rate_source for c in summary.delivery if c.rate_source})
    note = f"<p class='muted'>Rates: {escape('; '.join(sources))}.</p>" if sources else ""
    return (
        f"<section id='delivery'><p><b>Audio delivery</b> — "
        f"{escape(delivery_note(summary.delivery).removeprefix('audio delivery: '))}</p>"
        + (f"<ul>{flagged}</ul>" if flagged else "")
        + f"<details><summary>every judge × task, and the rates</summary><ul>{every}</ul>"
        f"{note}</details></section>"
    )
