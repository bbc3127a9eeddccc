"""report.html: self-contained (inline CSS and SVG, no scripts, no network).

The page is laid out for a newcomer: a judges × tasks matrix of verdict badges first
(report/overview.py), an invariance run's own audit next, the verdicts by dimension, then one
summary figure (the state distribution), then a table of contents; everything else is a
collapsed section whose heading says how many rows it holds (none is shown with none), so the
page is a few screens until a reader opens what they need.
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
from paraudit.report.overview import Page, matrix_html, verdicts_html
from paraudit.stats.states import GROUP_COLOURS, GROUPS
from paraudit.stats.summary_model import Summary
from paraudit.stats.verdict_text import GROUP_WORDS

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
h3.dim{margin:1rem 0 .2rem;font-size:1.05rem}
table.matrix-v th[scope=row]{font-weight:600;white-space:nowrap}
table.matrix-v td{text-align:center;min-width:6.5rem}
table.matrix-v .dx{font-size:.75rem;color:#444;margin-top:.1rem}
a.badge{text-decoration:none}
.jl{border-bottom:1px dotted #999;cursor:help}
ul.labels,ul.gloss{margin:.3rem 0;padding-left:1.2rem;font-size:.85rem}
ul.labels code{overflow-wrap:anywhere}
ul.gloss{color:#444;list-style:none;padding-left:0}ul.gloss dfn{font-style:normal;font-weight:600}
ul.legend{list-style:none;padding:0;margin:.3rem 0;display:flex;flex-wrap:wrap;gap:.2rem 1rem;
font-size:.85rem}
ul.legend .sw{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;
vertical-align:-.1rem}
section.lead{border:1px solid #ddd;border-radius:.4rem;padding:0 .8rem .6rem;margin:1rem 0}
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
 table.matrix-v{font-size:.78rem}
 table.matrix-v th[scope=row]{white-space:normal;overflow-wrap:break-word;max-width:8rem}
 table.matrix-v td{min-width:0;padding:.2rem .25rem}
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


def _state_legend() -> str:
    """The state figure's colours as HTML under it: it wraps to the page's width, where the
    figure's own legend sat right of the last panel, off a phone's screen."""
    items = "".join(
        f'<li><span class="sw" style="background:{GROUP_COLOURS[g]}"></span>'
        f"{escape(GROUP_WORDS.get(g, g))}</li>"
        for g in GROUPS
    )
    return f'<ul class="legend" id="states-legend">{items}</ul>'


def _intervals_note(summary: Summary) -> str:
    b, n = summary.bootstrap, summary.intervals
    misses = round(n / 20)
    return (
        f'<p class="muted">This report shows {n} item-level 95 % intervals ({b.replicates} '
        f"bootstrap replicates of whole items, seed {b.seed}). About 1 in 20 intervals misses "
        f"its true value by chance alone: among {n}, about {misses} "
        f"{'is' if misses == 1 else 'are'} expected to, so read a single striking interval "
        "with that in mind.</p>"
    )


def render(
    summary: Summary,
    figures: dict[str, str],
    runs: list[str],
    extra: list[tuple[str, str, str, str]] | None = None,
    lead: tuple[str, str, str, str] | None = None,
) -> str:
    """The page; `extra` are further collapsed sections (anchor, title, note, body), listed in
    the contents after the tables (e.g. the generator-bias panel); `lead`, a section that
    leads, open, after the verdict matrix (an invariance run's own audit). A table or section
    with no rows is left out."""
    parts: list[tuple[str, str, str, str]] = [
        ("how", "How to read this", "P, O, J, states, the cascade, each statistic",
         how_to_read(summary)),
    ]  # fmt: skip
    for name, title in FIGURE_TITLES.items():
        if figures.get(name):
            parts.append((f"fig-{name}-part", title, "figure", _figure(name, figures[name])))
    for name, fn in T.TABLES.items():
        if name == "verdicts":
            continue
        table = fn(summary)
        if not table[1]:
            continue  # nothing measured: a "0 rows" heading is noise before what matters
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
    lead_html = ""
    if lead is not None:
        a, title, note, body = lead
        lead_html = (
            f'<section class="lead" id="{a}"><h2>{escape(title)}</h2>'
            f'<p class="muted">{escape(note)}</p>{body}</section>'
        )
    toc = "".join(
        f'<li><a href="#{a}">{escape(t)}</a></li>'
        for a, t in [("verdicts", "Verdicts at a glance")]
        + ([(lead[0], lead[1])] if lead else [])
        + [("states-figure", "State distribution"), ("verdict-list", "Verdicts by dimension")]
        + [(a, t) for a, t, _, _ in parts]
    )
    states = figures.get("states")
    verdicts = summary.verdicts
    page = Page.of(verdicts, summary.judges)
    matrix = matrix_html(verdicts, page)
    listed = verdicts_html(verdicts, page)
    state_fig = (
        '<section id="states-figure"><h2>State distribution (P, O, J), Pointwise</h2>'
        f"{_state_legend()}{page.glossary.lines(*GROUP_WORDS)}{_figure('states', states)}</section>"
        if states
        else ""
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>paraudit diagnostic report</title>
<style>{CSS}</style></head><body>
<h1>paraudit diagnostic report</h1>
<p class="muted">Runs: {escape(", ".join(runs))}. Every number is computed from the stored
results (results.jsonl); summary.json holds them all.</p>
<section id="verdicts"><h2>Verdicts at a glance</h2>
<p class="muted">One badge per judge × task: can the judge be used as it is (native)? Most
pressing first; a badge links to its verdict below.</p>{matrix}
{delivery_html(summary)}</section>
{lead_html}
{state_fig}
<section id="verdict-list"><h2>Verdicts by dimension</h2>
{listed}
{_intervals_note(summary)}</section>
<nav id="contents"><h2>Contents</h2><ol>{toc}</ol></nav>
{"".join(_part(*p) for p in parts)}
</body></html>
"""
