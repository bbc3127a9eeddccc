"""The report's null-audio section: probe N's figures per judge × task × question × null kind
(stats/null_audio.py computes them; summary.json holds them under `null_audio`)."""

from __future__ import annotations

from html import escape
from pathlib import Path

from paraudit.report import tables as T
from paraudit.report.context import ReportContext
from paraudit.stats.null_audio import AGREEMENT_BAR
from paraudit.stats.summary_model import Summary

TITLE = "Null audio N: answers with nothing to hear"
NOTE = (
    "The context clips replaced by digital silence or by speech-shaped noise (same length and "
    "format; R1/R2 stay real). A judge that hears answers 'no audio' or guesses: its null "
    "answers agree with its real-audio answers ½ of the time, whatever its skill. Flagged "
    f"'answers without audio' when agreement's item-level lower bound is above "
    f"{AGREEMENT_BAR:.0%}."
)


def null_table(summary: Summary) -> T.Table:
    cols = ["judge", "task", "asked", "null audio", "items", "confident answers (item CI)",
            "no-audio replies (item CI)", "agreement with real audio (item CI)",
            "answers without audio", "unparsed", "errors"]  # fmt: skip
    rows = [
        [
            c.judge,
            c.task,
            c.asks,
            c.null,
            c.agreement.items or c.confident.items,
            T.est(c.confident),
            T.est(c.no_audio),
            T.est(c.agreement),
            "yes" if c.answers_without_audio else "",
            c.unparsed,
            c.errors,
        ]  # fmt: skip
        for c in summary.null_audio
    ]
    return cols, rows


def null_audio_line(summary: Summary) -> str | None:
    """One line for the terminal (the demo): which judges answer without audio, and with what
    agreement at most; None when the runs did not ask probe N."""
    if not summary.null_audio:
        return None
    top: dict[str, float] = {}
    flagged: set[str] = set()
    for c in summary.null_audio:
        top[c.judge] = max(top.get(c.judge, 0.0), c.agreement.rate or 0.0)
        if c.answers_without_audio:
            flagged.add(c.judge)
    shown = [f"{j} (agreement up to {top[j]:.0%})" for j in sorted(flagged)]
    rest = sorted(set(top) - flagged)
    head = "null audio (probe N): "
    said = f"answers without audio: {', '.join(shown)}" if shown else "no judge answers "
    said += "without audio" if not shown else ""
    return head + said + (f"; not flagged: {', '.join(rest)}" if rest else "") + "."


def null_audio_part(summary: Summary, out: Path) -> tuple[str, str, str, str] | None:
    """The collapsed section (as html.render's `extra` takes it) when the runs asked probe N,
    else None; its table also goes to OUT/tables/null_audio.csv."""
    if not summary.null_audio:
        return None
    cols, rows = table = null_table(summary)
    T.write_csv(out / "tables" / "null_audio.csv", table)
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in r) + "</tr>"
                   for r in rows)  # fmt: skip
    flagged = sum(1 for c in summary.null_audio if c.answers_without_audio)
    html = (
        f'<p class="muted">{escape(NOTE)}</p><div class="scroll"><table><thead><tr>{head}</tr>'
        f"</thead><tbody>{body}</tbody></table></div>"
    )
    return ("null-audio", TITLE, f"{len(rows)} rows, {flagged} flagged", html)


__all__ = ["TITLE", "null_audio_line", "null_audio_part", "null_table"]


def registered_part(ctx: ReportContext) -> tuple[str, str, str, str] | None:
    """null_audio_part as the registry calls it (stats/side_units.py)."""
    return null_audio_part(ctx.summary, ctx.out)
