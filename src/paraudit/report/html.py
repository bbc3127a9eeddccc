"""report.html: self-contained (inline CSS and SVG, no scripts, no network).

The page is laid out for a newcomer: the verdicts first, then one summary figure (the state
distribution), then a table of contents; everything else is a collapsed section whose heading
says how many rows it holds, so the page is a few screens until a reader opens what they need.
It must not scroll sideways on a phone: tables and figures scroll inside their own box, and a
figure is never shrunk below one SVG unit per pixel, so its smallest text (10 units,
figures.py) stays at least 10 px on screen (tests/report/test_report_browser.py measures both).
"""

from __future__ import annotations

import math
import re
from html import escape

from paraudit.report import tables as T
from paraudit.report.delivery import delivery_html
from paraudit.report.guide import how_to_read
from paraudit.stats.summary_model import Summary

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1.2rem auto;
max-width:1200px;color:#222;line-height:1.45;padding:0 1rem;overflow-wrap:anywhere}
h1{margin:0 0 .2rem}h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin:1.4rem 0 .5rem;
font-size:1.3rem}
table{border-collapse:collapse;font-size:.85rem;margin:.4rem 0}
th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;overflow-wrap:normal}
th{background:#f4f4f4}
.scroll{overflow-x:auto;max-width:100%}
.verdict tr:not(.why) td:first-child{font-weight:600}
.badge{display:inline-block;padding:.05rem .45rem;border-radius:.6rem;color:#fff;font-size:.8rem;
white-space:nowrap}
.fig{overflow-x:auto;max-width:100%}.fig svg{display:block;height:auto}
.muted{color:#666;font-size:.85rem}
td.grey{color:#9e9e9e;background:#fafafa}
details{margin:.3rem 0}
tr.why td{border-top:none;color:#333;padding-bottom:.6rem;overflow-wrap:anywhere}
section.part>details>summary{cursor:pointer;padding:.35rem 0;border-bottom:1px solid #ddd}
section.part>details>summary h2{display:inline;border:none;margin:0;padding:0}
nav ol{columns:2 18rem;margin:.3rem 0;padding-left:1.4rem}
/* A phone: each verdict a card (judge, task, items and badge on one line, the why under it)
   instead of a five-column table wider than the screen; the header's labels are gone, so the
   item count says what it is. */
@media (max-width:640px){
 body{padding:0 .6rem}h2{font-size:1.1rem}
 table.verdict,table.verdict tbody,table.verdict tr,table.verdict td{display:block;border:none}
 table.verdict thead{display:none}
 table.verdict tr:not(.why){border-top:1px solid #ccc;padding-top:.4rem}
 table.verdict td{padding:.1rem 0}
 table.verdict tr:not(.why) td{display:inline-block;margin-right:.6rem}
 table.verdict tr:not(.why) td:nth-child(3)::after{content:" items"}
}
"""


def _cell(v: object) -> str:
    cls = ' class="grey"' if isinstance(v, T.Muted) else ""
    return f"<td{cls}>{escape(str(v))}</td>"


def _table(table: T.Table, cls: str = "") -> str:
    cols, rows = table
    head = "".join(f"<th>{escape(str(c))}</th>" for c in cols)
    body = "".join("<tr>" + "".join(_cell(v) for v in r) + "</tr>" for r in rows)
    return (
        f'<div class="scroll"><table class="{cls}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


NATIVE_BADGE = {
    # What the badge certifies: the native step's answer, never a trust rating.
    "reliable": ("native: reliable", "#2e7d32"),
    "usable": ("native: above chance", "#7cb342"),
    "at chance": ("native: at chance", "#9e9e9e"),
    "below chance": ("native: below chance", "#c62828"),
    "not run": ("native: not run", "#757575"),
}


def _verdict_rows(summary: Summary) -> str:
    out = []
    for v in summary.verdicts:
        outcome = v.native.outcome
        label, colour = NATIVE_BADGE.get(outcome, (outcome, "#999"))
        small = " <span class='muted'>(small sample)</span>" if v.small_sample else ""
        out.append(
            f"<tr><td>{escape(v.judge)}</td><td>{escape(v.task)}</td>"
            f"<td>{v.items}{small}</td><td><span class='badge' "
            f"style='background:{colour}'>{escape(label)}</span></td>"
            f"<td><b>{escape(v.diagnosis)}</b></td></tr>"
            f"<tr class='why'><td colspan='5'>{escape(v.headline)}<details><summary>every "
            f"step of the cascade</summary>{escape(v.text)}</details></td></tr>"
        )
    return "".join(out)


_SIZE = re.compile(r'<svg([^>]*?)\swidth="([\d.]+)pt"\s+height="[\d.]+pt"')


def _figure(name: str, svg: str) -> str:
    """A figure as wide as the page allows, but never narrower than one SVG unit per pixel
    (its box scrolls instead) nor wider than its natural size."""
    m = _SIZE.search(svg)
    if m:
        w = float(m.group(2))
        # Rounded up: a pixel less than `w` would draw 10-unit text at 9.99 px.
        style = f"width:100%;min-width:{math.ceil(w)}px;max-width:{w * 4 / 3:.0f}px"
        svg = svg[: m.start()] + f'<svg{m.group(1)} style="{style}"' + svg[m.end() :]
    return f'<div class="fig" id="fig-{name}">{svg}</div>'


FIGURE_TITLES = {
    "heatmaps": "Heatmaps: conditional Potemkin, protocol gap, cue dependence (judge × cell)",
    "accuracy": "J accuracy by judge, Pointwise and Pairwise, per cue",
}


def _part(anchor: str, title: str, note: str, body: str) -> str:
    """A collapsed section: its heading (with `note`, e.g. the row count) is the summary."""
    return (
        f'<section class="part" id="{anchor}"><details><summary><h2>{escape(title)}</h2> '
        f'<span class="muted">{escape(note)}</span></summary>{body}</details></section>'
    )


def _rows_note(name: str, table: T.Table) -> str:
    rows = table[1]
    note = f"{len(rows)} row{'s' * (len(rows) != 1)}"
    if name == "position_bias":
        flagged = sum(1 for r in rows if r[-1])
        note += f", {flagged} flagged (shown first)"
    return note


def render(
    summary: Summary,
    figures: dict[str, str],
    runs: list[str],
    extra: list[tuple[str, str, str, str]] | None = None,
) -> str:
    """The page; `extra` are further collapsed sections (anchor, title, note, body), listed in
    the contents after the tables (e.g. the generator-bias panel)."""
    parts: list[tuple[str, str, str, str]] = [
        ("how", "How to read this", "P, O, J, states, the cascade, each statistic",
         how_to_read()),
    ]  # fmt: skip
    for name, title in FIGURE_TITLES.items():
        if figures.get(name):
            parts.append((f"fig-{name}-part", title, "figure", _figure(name, figures[name])))
    for name, fn in T.TABLES.items():
        if name == "verdicts":
            continue
        table = fn(summary)
        body = _table(table)
        if name == "headline_j_accuracy":
            # The matrix first; the 72-odd rows behind it for whoever needs the intervals.
            body = (
                f'{_table(T.j_matrix(summary), "matrix")}<p class="muted">Grey: not above '
                f"chance. Intervals, Wilson and failed answers per cell:</p><details><summary>"
                f"every cell ({len(table[1])} rows)</summary>{body}</details>"
            )
        parts.append((f"t-{name}", T.TITLES[name], _rows_note(name, table), body))
    parts += extra or []
    toc = "".join(
        f'<li><a href="#{a}">{escape(t)}</a></li>'
        for a, t in [("verdicts", "Verdicts"), ("states-figure", "State distribution")]
        + [(a, t) for a, t, _, _ in parts]
    )
    states = figures.get("states")
    state_fig = (
        '<section id="states-figure"><h2>State distribution (P, O, J), Pointwise</h2>'
        f"{_figure('states', states)}</section>"
        if states
        else ""
    )
    b, n = summary.bootstrap, summary.intervals
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>paraudit diagnostic report</title>
<style>{CSS}</style></head><body>
<h1>paraudit diagnostic report</h1>
<p class="muted">Runs: {escape(", ".join(runs))}. Every number is computed from the stored
results (results.jsonl); summary.json holds them all.</p>
<section id="verdicts"><h2>Verdicts</h2>
<div class="scroll"><table class="verdict"><thead><tr><th>Judge</th><th>Task</th><th>Items</th>
<th>Native use</th><th>Diagnosis</th></tr></thead>
<tbody>{_verdict_rows(summary)}</tbody></table></div>
{delivery_html(summary)}
<p class="muted">This report shows {n} item-level 95 % intervals
({b.replicates} bootstrap replicates of whole items, seed {b.seed}). About 1 in 20
intervals misses its true value by chance alone, so among {n} expect about
{round(n / 20)} to; read single striking intervals with that in mind.</p></section>
{state_fig}
<nav id="contents"><h2>Contents</h2><ol>{toc}</ol></nav>
{"".join(_part(*p) for p in parts)}
</body></html>
"""
