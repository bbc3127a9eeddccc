"""report.html: self-contained (inline CSS and SVG, no scripts, no network)."""

from __future__ import annotations

from html import escape
from typing import Any

from paraudit.report import tables as T
from paraudit.stats.states import GROUP_COLOURS, STATE_MEANING

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;
max-width:1200px;color:#222;line-height:1.45;padding:0 1rem}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
table{border-collapse:collapse;font-size:.85rem;margin:.6rem 0}
th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left}th{background:#f4f4f4}
.verdict td:first-child{font-weight:600;white-space:nowrap}
.badge{display:inline-block;padding:.05rem .45rem;border-radius:.6rem;color:#fff;font-size:.8rem}
.fig svg{max-width:100%;height:auto}.muted{color:#666;font-size:.85rem}
details{margin:.5rem 0}
"""


def _table(table: T.Table, cls: str = "") -> str:
    cols, rows = table
    head = "".join(f"<th>{escape(str(c))}</th>" for c in cols)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in r) + "</tr>" for r in rows
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _dominant(summary: dict[str, Any], judge: str) -> tuple[str, float]:
    pooled: dict[str, float] = {}
    n_total = 0
    for s in summary["states"]:
        if s["judge"] == judge and s["cue"] == "all":
            n_total += s["n"]
            for g, v in s["groups"].items():
                pooled[g] = pooled.get(g, 0.0) + v * s["n"]
    if not n_total:
        return "no states", 0.0
    g = max(pooled, key=lambda k: pooled[k])
    return g, pooled[g] / n_total


def render(summary: dict[str, Any], figures: dict[str, str], runs: list[str]) -> str:
    verdict_rows = []
    for j in summary["judges"]:
        g, share = _dominant(summary, j)
        colour = GROUP_COLOURS.get(g, "#999")
        acc = summary["pointwise_j_overall"].get(j)
        acc_txt = (
            "–"
            if acc is None
            else f"{acc['accuracy']:.1%} ({acc['ci_low']:.1%}–{acc['ci_high']:.1%})"
        )
        verdict_rows.append(
            f"<tr><td>{escape(j)}</td><td><span class='badge' style='background:{colour}'>"
            f"{escape(g)} {share:.0%}</span></td><td>{escape(acc_txt)}</td>"
            f"<td>{escape(summary['verdicts'][j])}</td></tr>"
        )
    how = "".join(f"<li><b>{s}</b> — {escape(m)}</li>" for s, m in STATE_MEANING.items())
    figs = "".join(f'<div class="fig" id="fig-{k}">{v}</div>' for k, v in figures.items() if v)
    sections = "".join(
        f"<h3>{escape(name.replace('_', ' '))}</h3>{_table(fn(summary))}"
        for name, fn in T.TABLES.items()
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>paraudit diagnostic report</title>
<style>{CSS}</style></head><body>
<h1>paraudit diagnostic report</h1>
<p class="muted">Runs: {escape(", ".join(runs))}. Every figure below is computed from the stored
results (results.jsonl); see summary.json for all numbers.</p>
<h2>Verdicts</h2>
<table class="verdict"><thead><tr><th>judge</th><th>dominant state group</th>
<th>pointwise J accuracy (95% CI)</th><th>verdict</th></tr></thead>
<tbody>{"".join(verdict_rows)}</tbody></table>
<h2>How to read this</h2>
<p>Each pointwise question is asked three ways: <b>P</b> (perception: which emotion did the user
sound like?), <b>O</b> (oracle: told the emotion in text, which response fits?) and <b>J</b>
(native judgment: hearing the audio, which response fits?). The triple (P, O, J) of right/wrong
gives each instance a state:</p><ul>{how}</ul>
<p>Accuracy is <b>strict</b>: an unparsed reply counts as wrong (parsed-only accuracy and the
unparsed rate are shown beside it). The <b>protocol gap</b> is pairwise minus pointwise
accuracy: a large positive gap means the judge can tell the two audio worlds apart when both
are shown but does not use the cue when judging one conversation. <b>Cue dependence</b> is the
gain from telling the judge to listen to tone (hard cue) or to the mood transition. <b>Audio
sensitivity</b> is how often the choice changes when only the audio changes; a judge that
ignores audio scores 0. The <b>transcript control</b> (T) sees only words and must sit near
50 % on a valid item set. Intervals are 95 % (Wilson for proportions, paired bootstrap over
items for differences).</p>
<h2>Figures</h2>{figs}
<h2>Tables</h2>{sections}
</body></html>
"""
