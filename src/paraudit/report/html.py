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
td.grey{color:#9e9e9e;background:#fafafa}
details{margin:.5rem 0}
"""


def _cell(v: object) -> str:
    cls = ' class="grey"' if isinstance(v, T.Muted) else ""
    return f"<td{cls}>{escape(str(v))}</td>"


def _table(table: T.Table, cls: str = "") -> str:
    cols, rows = table
    head = "".join(f"<th>{escape(str(c))}</th>" for c in cols)
    body = "".join("<tr>" + "".join(_cell(v) for v in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


KIND_COLOURS = {"at chance": "#9e9e9e", "no answers": "#9e9e9e", "no states": "#757575"}


def _verdict_rows(summary: dict[str, Any]) -> str:
    out = []
    for v in summary["verdicts"]:
        label = v["group"] or v["kind"]
        colour = GROUP_COLOURS.get(v["group"] or "", KIND_COLOURS.get(v["kind"], "#999"))
        j = v["j_accuracy"]
        acc = (
            "no answers"
            if j is None or j["accuracy"] is None
            else T.est({"rate": j["accuracy"], "ci_low": j["ci_low"], "ci_high": j["ci_high"]})
        )
        small = " <span class='muted'>(small sample)</span>" if v["small_sample"] else ""
        out.append(
            f"<tr><td>{escape(v['judge'])}</td><td>{escape(v['task'])}</td>"
            f"<td>{v['items']}{small}</td><td><span class='badge' "
            f"style='background:{colour}'>{escape(label)}</span></td><td>{escape(acc)}</td>"
            f"<td>{escape(v['text'])}</td></tr>"
        )
    return "".join(out)


def render(summary: dict[str, Any], figures: dict[str, str], runs: list[str]) -> str:
    how = "".join(f"<li><b>{s}</b> — {escape(m)}</li>" for s, m in STATE_MEANING.items())
    figs = "".join(f'<div class="fig" id="fig-{k}">{v}</div>' for k, v in figures.items() if v)
    sections = "".join(
        f"<h3>{escape(name.replace('_', ' '))}</h3>{_table(fn(summary))}"
        for name, fn in T.TABLES.items()
        if name != "verdicts"
    )
    b = summary["bootstrap"]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>paraudit diagnostic report</title>
<style>{CSS}</style></head><body>
<h1>paraudit diagnostic report</h1>
<p class="muted">Runs: {escape(", ".join(runs))}. Every figure below is computed from the stored
results (results.jsonl); see summary.json for all numbers.</p>
<h2>Verdicts</h2>
<table class="verdict"><thead><tr><th>judge</th><th>task</th><th>items</th><th>verdict</th>
<th>pointwise J accuracy (95% item CI)</th><th>why</th></tr></thead>
<tbody>{_verdict_rows(summary)}</tbody></table>
<p class="muted">This report shows {summary["intervals"]} item-level 95 % intervals
({b["replicates"]} bootstrap replicates of whole items, seed {b["seed"]}). About 1 in 20
intervals misses its true value by chance alone, so among {summary["intervals"]} expect about
{round(summary["intervals"] / 20)} to; read single striking intervals with that in mind.</p>
<h2>How to read this</h2>
<p>Each pointwise question is asked three ways: <b>P</b> (perception: which emotion did the user
sound like?), <b>O</b> (oracle: told the emotion in text, which response fits?) and <b>J</b>
(native judgment: hearing the audio, which response fits?). Each (item, branch, cue) unit gets
a state (P, O, J) of right/wrong, where a probe counts as right only when it is right in
<b>every order that ran</b> (both response orders; for pairwise also both context orders), so a
fixed habit such as always answering R1 is never right by the luck of one order:</p>
<ul>{how}</ul>
<p><b>Verdicts</b>, one per judge × task, follow a fixed precedence: if J's interval covers 50 %
the judge is <b>at chance</b> and its state breakdown is not interpretable (a guessing judge
lands 3 of 8 states in "shortcut" by construction), so the behaviour that explains it is named
instead: position bias (first-option share ≥ 90 % or ≤ 10 % with an interval excluding 50 %, per
probe × protocol × cue), ignoring the audio (its choice almost never changes when only the audio
changes), or repeating its text-only choice. Otherwise the verdict names the state group whose
mass most exceeds what <b>independent</b> P, O and J with the same accuracies would give (a
perfect judge: 100 % reliable, which independence also predicts). The <b>conditional Potemkin
rate</b> π110 / (π110 + π111) is shown beside its independence baseline 1 − acc(J) and greyed
where P, O or J is not above chance. Below 30 items a task's verdict says the sample is small.</p>
<p>Accuracy is per instance (the paper's tables) and <b>strict</b>: an unparsed or refused reply
counts as wrong and is counted in its own column; a failed call (error) is no answer and is left
out — a cell with only failed calls says "no answers", never 0 %. Order-consistent accuracy is
shown beside it. Every interval resamples whole <b>items</b> (instances of one item are not
independent); the paper's per-instance Wilson interval is shown beside J accuracy. The
<b>protocol gap</b> is pairwise minus pointwise accuracy; <b>cue dependence</b> the gain from
the hard (single-turn) or transition (positional) cue over none; <b>audio sensitivity</b> how
often the pointwise choice changes when only the audio changes (a judge deaf to audio scores 0).
The <b>transcript control T</b> sees only the words, which are the same for both branches, so it
has no right answer; it measures the text-only <b>preference</b> — how often T picks the same
response in both orders, and how often that is branch 0's response (far from 50 % means the
responses are not balanced) — and <b>J–T agreement</b>: how often the native answer equals the
text-only answer (50 % for a judge that follows the audio, near 100 % for one that repeats its
text-only preference).</p>
<h2>Figures</h2>{figs}
<h2>Tables</h2>{sections}
</body></html>
"""
