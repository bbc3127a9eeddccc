"""The report's self-consistency table for judges sampled N times per question (`?samples=N`).

Shown only when a run holds a sampled judge; its rows are summary.json's `self_consistency`
(stats/samples.py), also written to tables/self_consistency.csv.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from paraudit.report import tables as T
from paraudit.report.context import ReportContext
from paraudit.stats.summary_model import Summary

TITLE = "Self-consistency of sampled judges"
COLUMNS = ["judge", "task", "probe", "questions", "items",
           "agreement with the majority (item CI)", "unanimous questions"]  # fmt: skip


def table(summary: Summary) -> T.Table:
    rows = [
        [s.judge, s.task, s.probe, s.questions, s.items, T.est(s.agreement),
         T.fmt(s.unanimous, True)]
        for s in summary.self_consistency
    ]  # fmt: skip
    return COLUMNS, rows


def samples_part(summary: Summary, out: Path) -> tuple[str, str, str, str] | None:
    """The collapsed section (anchor, title, note, body) as html.render's `extra` takes it,
    or None when no judge was sampled."""
    cols, rows = table(summary)
    if not rows:
        return None
    T.write_csv(out / "tables" / "self_consistency.csv", (cols, rows))
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in r) + "</tr>"
                   for r in rows)  # fmt: skip
    note = f"{len(rows)} row{'s' * (len(rows) != 1)}"
    return (
        "samples",
        TITLE,
        note,
        "<p class='muted'>Each question was asked N times (<code>?samples=N</code>); the "
        "statistics above use the majority answer. Agreement is the share of a question's "
        "answered draws that give the majority answer, averaged over questions, with a 95 % "
        "interval over whole items. It says how repeatable one answer is, not whether the "
        "judge hears: a judge that always answers R1 is 100 % self-consistent, a coin between "
        "two answers about 69 % over 5 draws.</p>"
        f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>"
        "</table></div>",
    )


__all__ = ["TITLE", "samples_part", "table"]


def registered_part(ctx: ReportContext) -> tuple[str, str, str, str] | None:
    """samples_part as the registry calls it (stats/side_units.py)."""
    return samples_part(ctx.summary, ctx.out)
