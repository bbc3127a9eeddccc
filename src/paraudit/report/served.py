"""Which model answered, in the report: per judge × task the models the replies named, their
shares (and accuracy when several answered), and accuracy by call order with the drift test.

A collapsed section (the page stays a few screens: html.py); judges answered by another model
or drifting come first, in bold, and the summary's Markdown gets one line per judge × task.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from paraudit.report import tables as T
from paraudit.report.context import ReportContext
from paraudit.stats.served import ServedModels, served_text
from paraudit.stats.summary_model import Summary

TITLE = "Which model answered"
COLUMNS = ["judge", "task", "model", "answers", "share", "requested", "versions", "accuracy"]


def _flagged(s: ServedModels) -> bool:
    return s.other_model or s.changed or (s.stationarity is not None and s.stationarity.drift)


def _ordered(summary: Summary) -> list[ServedModels]:
    return sorted(summary.served, key=lambda s: (not _flagged(s), s.judge, s.task))


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.0%}"


def drift_text(s: ServedModels) -> str:
    st = s.stationarity
    if st is None:
        return "no drift test (fewer than 20 items with scored answers)"
    verdict = "drifts" if st.drift else "no drift"
    p = "–" if st.p_value is None else f"{st.p_value:.3g}"
    quarters = " · ".join(_pct(q.accuracy) for q in st.quarters)
    return (
        f"{verdict}: early half {_pct(st.early.accuracy)}, late half {_pct(st.late.accuracy)} "
        f"({st.items} items in {st.order}; p = {p}); by quarter {quarters}"
    )


def served_lines(summary: Summary) -> list[str]:
    """summary.md's lines (Markdown bullets)."""
    if not summary.served:
        return ["The runs predate the record of which model answered."]
    out = []
    for s in _ordered(summary):
        mark = "**" if _flagged(s) else ""
        out.append(f"- {mark}{s.judge}{mark} · {s.task}: {served_text(s)}; {drift_text(s)}")
    return out


def table(summary: Summary) -> tuple[list[str], list[list[str]]]:
    rows = [
        [
            s.judge,
            s.task,
            m.model or "not said",
            str(m.answers),
            _pct(m.share),
            "yes" if m.matches_requested else "–" if m.matches_requested is None else "no",
            ", ".join(m.versions[:3]) + (" …" if len(m.versions) > 3 else ""),
            _pct(m.accuracy),
        ]
        for s in _ordered(summary)
        for m in s.models
    ]
    return COLUMNS, rows


def served_part(summary: Summary, out: Path) -> tuple[str, str, str, str] | None:
    """The collapsed section (anchor, title, note, body) as html.render's `extra` takes it,
    or None when no run recorded who answered."""
    if not summary.served:
        return None
    cols, rows = table(summary)
    T.write_csv(out / "tables" / "served.csv", (cols, rows))
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{escape(v)}</td>" for v in r) + "</tr>" for r in rows)
    flagged = [s for s in summary.served if _flagged(s)]
    note = f"{len(flagged)} flagged" if flagged else "one model each, no drift"
    drifts = "".join(
        f"<li>{'<b>' if _flagged(s) else ''}{escape(s.judge)} · {escape(s.task)}: "
        f"{escape(drift_text(s))}{'</b>' if _flagged(s) else ''}</li>"
        for s in _ordered(summary)
    )
    return (
        "served",
        TITLE,
        note,
        "<p class='muted'>The model each reply says answered (a chat completion's "
        "<code>model</code>, Gemini's <code>modelVersion</code>, a local checkpoint; built-in "
        "judges name themselves), with fingerprints or versions where given. A dated snapshot "
        "of the requested alias counts as the requested model.</p>"
        f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>"
        "</table></div>"
        "<p class='muted'>Drift: items in call order, split in halves; late − early accuracy "
        "with a two-sided permutation test over whole items, named at p &lt; 0.01.</p>"
        f"<ul>{drifts}</ul>",
    )


def registered_served_part(ctx: ReportContext) -> tuple[str, str, str, str] | None:
    """served_part as the registry calls it (stats/analyses.py)."""
    return served_part(ctx.summary, ctx.out)
