"""The report's subgroup table (summary.json's `strata`, stats/strata.py), collapsed.

One row per judge × task × attribute × stratum: items, J / P / O pointwise accuracy with the
item-level 95 % interval, and the order-consistent (P, O, J) group shares. The named splits
(Holm over every split of the group) are listed first, in the verdict's words; the P confusion
matrix and every split tested (with p and Holm-adjusted p) are in tables/strata*.csv.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from paraudit.report import tables as T
from paraudit.report.context import ReportContext
from paraudit.stats.model import Estimate
from paraudit.stats.strata import ALPHA, MIN_EFFECT, MIN_ITEMS, finding_text
from paraudit.stats.summary_model import Summary

TITLE = "Subgroups (item strata)"
COLUMNS = ["judge", "task", "attribute", "stratum", "items", "J (item CI)", "P (item CI)",
           "O (item CI)", "reliable", "units"]  # fmt: skip
SPLIT_COLUMNS = ["judge", "task", "probe", "attribute", "stratum", "versus", "items in",
                 "items out", "delta", "p", "p (Holm)", "tests", "named"]  # fmt: skip


def _est(cell: dict[str, Any] | None) -> str:
    if not cell:
        return "–"
    keys = ("rate", "ci_low", "ci_high", "items")
    return T.est(Estimate(**{k: cell.get(k) for k in keys if cell.get(k) is not None}))


def table(summary: Summary) -> T.Table:
    rows = []
    for r in summary.strata:
        if r.get("kind") != "stratum":
            continue
        states = r.get("states") or {}
        share = (states.get("shares") or {}).get("reliable", 0.0) if states.get("units") else None
        rows.append([r["judge"], r["task"], r["attribute"], r["stratum"], r["items"],
                     _est(r.get("J")), _est(r.get("P")), _est(r.get("O")),
                     T.fmt(share, True), states.get("units", 0)])  # fmt: skip
    return COLUMNS, rows


def splits(summary: Summary) -> T.Table:
    rows = [
        [r["judge"], r["task"], r["probe"], r["attribute"], r["stratum"], r["versus"],
         r["items_in"], r["items_out"], T.fmt(r["delta"]), f"{r['p_value']:.2g}",
         f"{r['p_holm']:.2g}", r["tests"], r["named"]]
        for r in summary.strata
        if r.get("kind") == "split"
    ]  # fmt: skip
    return SPLIT_COLUMNS, rows


def confusion(summary: Summary) -> T.Table:
    rows = [
        [r["judge"], r["task"], gold, answered, n]
        for r in summary.strata
        if r.get("kind") == "confusion"
        for gold, row in r["confusion"].items()
        for answered, n in row.items()
    ]
    return ["judge", "task", "label", "P answered", "answers"], rows


def strata_part(summary: Summary, out: Path) -> tuple[str, str, str, str] | None:
    """The collapsed section (anchor, title, note, body) as html.render's `extra` takes it,
    or None when no run's dataset was readable (no attributes, no strata)."""
    cols, rows = table(summary)
    if not rows:
        return None
    (out / "tables").mkdir(parents=True, exist_ok=True)
    T.write_csv(out / "tables" / "strata.csv", (cols, rows))
    T.write_csv(out / "tables" / "strata_splits.csv", splits(summary))
    T.write_csv(out / "tables" / "strata_confusion.csv", confusion(summary))
    named = [r for r in summary.strata if r.get("kind") == "split" and r.get("named")]
    found = "".join(
        f"<li><b>{escape(r['judge'])}</b> · {escape(r['task'])}: {escape(finding_text(r))}</li>"
        for r in named
    )
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in r) + "</tr>"
                   for r in rows)  # fmt: skip
    note = f"{len(rows)} strata, {len(named)} named"
    return (
        "strata",
        TITLE,
        note,
        (f"<ul>{found}</ul>" if found else "<p>No stratum differs beyond the test.</p>")
        + "<p class='muted'>Accuracy per instance over every cue and order, 95 % intervals "
        "over whole items; reliable: the share of order-consistent (P, O, J) units right on "
        "all three. A stratum is named when its split (a value against the rest, or below "
        "against above a cut in seconds) passes a cluster-robust z test with Holm control "
        f"over every split of the judge × task (family-wise {ALPHA:.0%}), differs by at "
        f"least {MIN_EFFECT:.0%} points and rests on at least {MIN_ITEMS} items a side. "
        "Every split tested: tables/strata_splits.csv; P's confusion matrix: "
        "tables/strata_confusion.csv.</p>"
        f"<details><summary>every stratum ({len(rows)} rows)</summary><div class='scroll'>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div></details>",
    )


__all__ = ["TITLE", "confusion", "registered_strata_part", "splits", "strata_part", "table"]


def registered_strata_part(ctx: ReportContext) -> tuple[str, str, str, str] | None:
    """strata_part as the registry calls it (stats/analyses.py)."""
    return strata_part(ctx.summary, ctx.out)
