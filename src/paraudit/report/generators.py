"""The generator-bias panel of the HTML report (paper §5.3, Fig. 5): shown when the report is
given two runs on sets composed by two generators (stats.generator_bias.check_runs).

Per task × protocol × cue: each judge's J accuracy on each set as two bars with their
intervals, the ranking agreement (Kendall τ, Spearman ρ) and one interaction line per judge
family. Plain HTML and CSS, so the panel needs no plotting library.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from paraudit.report.context import Part, ReportContext
from paraudit.stats.generator_bias import points, ranking_line

COLOURS = ("#4e79a7", "#f28e2b")  # set A, set B
CSS = (
    ".genbias .bar{height:.8em;display:inline-block;vertical-align:middle}"
    ".genbias td.bars{white-space:nowrap;min-width:19em}.genbias td{vertical-align:middle}"
    ".genbias .lines{margin:.3em 0 1.2em}"
)


def _bar(e: dict[str, float | None], colour: str) -> str:
    v, lo, hi = e["value"], e["ci_low"], e["ci_high"]
    if v is None or lo is None or hi is None:
        return "–"
    return (
        f"<div><span class='bar' style='width:{v * 10:.2f}em;background:{colour}'></span> "
        f"{v:.0%} [{lo * 100:.0f}, {hi * 100:.0f}]</div>"
    )


def _cell(cell: dict[str, Any], g: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td>{escape(j['judge'])}</td><td>{escape(j['family'] or '–')}</td>"
        f"<td class='bars'>{_bar(j['accuracy_a'], COLOURS[0])}"
        f"{_bar(j['accuracy_b'], COLOURS[1])}</td><td>{points(j['difference'])}</td></tr>"
        for j in cell["judges"]
    )
    lines = [
        ranking_line(cell["ranking"]),
        *(i["line"] for i in cell["interaction"]),
    ]
    return (
        f"<h3>{escape(cell['task'])} · {escape(cell['protocol'])} · cue "
        f"{escape(cell['cue'])} ({cell['shared_sources']} of {cell['sources_a']} / "
        f"{cell['sources_b']} sources in both sets)</h3>"
        "<table><thead><tr><th>judge</th><th>family</th><th>J accuracy: "
        f"<span style='color:{COLOURS[0]}'>A ({escape(g['a']['family'])})</span>, "
        f"<span style='color:{COLOURS[1]}'>B ({escape(g['b']['family'])})</span></th>"
        "<th>B − A (points)</th></tr>"
        f"</thead><tbody>{rows}</tbody></table>"
        "<div class='lines'>" + "<br>".join(escape(x) for x in lines) + "</div>"
    )


def panel(result: dict[str, Any]) -> str:
    """The panel's HTML for a generator_check result (the body of its report section)."""
    g = result["generators"]
    head = (
        f"A = {escape(g['a']['spec'])} ({escape(g['a']['family'])}), B = "
        f"{escape(g['b']['spec'])} ({escape(g['b']['family'])}); "
        f"{result['shared_sources']} source records in both sets; intervals: "
        f"{result['replicates']} bootstrap replicates of source records, shared records drawn "
        "once for both sets."
    )
    # Its own scroll box: the bars' cells keep a minimum width, wider than a phone.
    return (
        f"<style>{CSS}</style><div class='genbias scroll'><p>{head}</p>"
        + "".join(_cell(c, g) for c in result["cells"])
        + "</div>"
    )


def registered_part(ctx: ReportContext) -> Part | None:
    """The generator-bias section when the runs call for one (summary.json's `generator_bias`
    record, stats/paired_units.py), else None; its numbers also go to OUT/generators.json (the
    result `compare --generators --out` writes)."""
    records = ctx.summary.section("generator_bias")
    if not records:
        return None
    result = records[0]
    (ctx.out / "generators.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    cells = len(result["cells"])
    note = f"{cells} task × protocol × cue cell{'s' * (cells != 1)}"
    return ("generator-bias", "Generator bias", note, panel(result))
