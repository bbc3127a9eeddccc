"""The report's self-consistency table for judges sampled N times per question (`?samples=N`).

Shown only when a run holds a sampled judge; its rows are summary.json's `self_consistency`
(stats/samples.py), also written to tables/self_consistency.csv.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from paraudit.report import tables as T
from paraudit.report.context import ReportContext
from paraudit.stats.model import Estimate
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


def registered_part(ctx: ReportContext) -> tuple[str, str, str, str] | None:
    """samples_part as the registry calls it (stats/side_units.py)."""
    return samples_part(ctx.summary, ctx.out)


REASK_TITLE = "Re-ask noise of sampled judges"
REASK_COLUMNS = ["judge", "task", "probe", "cue", "items", "draws", "one draw (item CI)",
                 "majority (item CI)", "two asks differ (item CI)",
                 "J sensitivity − re-ask (item CI)"]  # fmt: skip


def _share(cell: object) -> str:
    if not isinstance(cell, dict):
        return "–"
    keys = ("rate", "ci_low", "ci_high", "items")
    return T.est(Estimate(**{k: cell[k] for k in keys if cell.get(k) is not None}))


def reask_table(summary: Summary) -> T.Table:
    rows = [
        [r["judge"], r["task"], r["probe"], r["cue"], r["items"], r["draws"],
         _share(r.get("single")), _share(r.get("majority")), _share(r.get("reask")),
         _share(r.get("sensitivity_minus_reask"))]
        for r in summary.reask
    ]  # fmt: skip
    return REASK_COLUMNS, rows


def reask_part(summary: Summary, out: Path) -> tuple[str, str, str, str] | None:
    """The collapsed re-ask section (stats/reask.py), or None when no judge was sampled."""
    cols, rows = reask_table(summary)
    if not rows:
        return None
    (out / "tables").mkdir(parents=True, exist_ok=True)
    T.write_csv(out / "tables" / "reask.csv", (cols, rows))
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in r) + "</tr>"
                   for r in rows)  # fmt: skip
    return (
        "reask",
        REASK_TITLE,
        f"{len(rows)} row{'s' * (len(rows) != 1)}",
        "<p class='muted'>One draw's accuracy beside the majority every other table uses, "
        "and how often two asks of the identical question differ: the flips pure noise "
        "gives. Invariance flags fire only beyond it; a J choice that differs between the "
        "branches no more often than two asks of one branch follows the draw, not the audio. "
        "A fixed judge never differs from itself, so a low rate is not skill.</p>"
        f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>"
        "</table></div>",
    )


__all__ = [
    "REASK_TITLE",
    "TITLE",
    "reask_part",
    "reask_table",
    "registered_part",
    "samples_part",
    "table",
]


def registered_reask_part(ctx: ReportContext) -> tuple[str, str, str, str] | None:
    """reask_part as the registry calls it (stats/analyses.py)."""
    return reask_part(ctx.summary, ctx.out)
