"""The report's answer-accounting section: every question in one outcome, per judge × task ×
probe (stats/accounting.py computes it; summary.json holds it under `accounting`)."""

from __future__ import annotations

from html import escape

from paraudit.report import tables as T
from paraudit.report.context import Part, ReportContext
from paraudit.stats.accounting import NAMED_SHARE
from paraudit.stats.summary_model import AccountingCell, Summary

TITLE = "Answer accounting: every question in one outcome"
COLUMNS = ["judge", "task", "probe", "questions", "right", "wrong", "refused", "no audio",
           "unparsed", "error", "given answers right (item CI)",
           "unparsed reply shapes"]  # fmt: skip


def _share(c: AccountingCell, n: int | None) -> str:
    if n is None:
        return "–"
    return f"{n:,} ({n / c.questions:.0%})" if c.questions else str(n)


def table(summary: Summary) -> T.Table:
    """One row per judge × task × probe (protocols and cues pooled)."""
    rows = [
        [c.judge, c.task, c.probe, c.questions, _share(c, c.right), _share(c, c.wrong),
         _share(c, c.refused), _share(c, c.no_audio), _share(c, c.unparsed), _share(c, c.error),
         T.est(c.given_accuracy), "; ".join(c.shapes)]
        for c in summary.accounting
        if c.protocol == "all" and c.cue == "all"
    ]  # fmt: skip
    return COLUMNS, rows


def part(ctx: ReportContext) -> Part | None:
    cols, rows = table(ctx.summary)
    if not rows:
        return None
    T.write_csv(ctx.out / "tables" / "accounting.csv", (cols, rows))
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in r) + "</tr>"
                   for r in rows)  # fmt: skip
    named = sum(
        1
        for c in ctx.summary.accounting
        if c.protocol == "all" and c.cue == "all" and c.questions
        and (c.refused + c.no_audio + c.unparsed + c.error) / c.questions >= NAMED_SHARE
    )  # fmt: skip
    note = (
        "Each question lands in exactly one outcome. The verdict names an outcome that is not "
        f"an answer once it holds {NAMED_SHARE:.0%} of a probe's questions, with the accuracy "
        "of the answers given; it draws no conclusion from answers that were not given."
    )
    html = (
        f"<p class='muted'>{escape(note)}</p><div class='scroll'><table><thead><tr>{head}</tr>"
        f"</thead><tbody>{body}</tbody></table></div>"
    )
    return ("accounting", TITLE, f"{len(rows)} rows, {named} with answers not given", html)


__all__ = ["TITLE", "part", "table"]
