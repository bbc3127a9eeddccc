"""report.html: self-contained (inline CSS and SVG, no scripts, no network)."""

from __future__ import annotations

from html import escape

from paraudit.report import tables as T
from paraudit.stats.states import STATE_MEANING
from paraudit.stats.summary_model import Summary

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
tr.why td{border-top:none;color:#333;padding-bottom:.6rem}
"""


def _cell(v: object) -> str:
    cls = ' class="grey"' if isinstance(v, T.Muted) else ""
    return f"<td{cls}>{escape(str(v))}</td>"


def _table(table: T.Table, cls: str = "") -> str:
    cols, rows = table
    head = "".join(f"<th>{escape(str(c))}</th>" for c in cols)
    body = "".join("<tr>" + "".join(_cell(v) for v in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


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


def render(summary: Summary, figures: dict[str, str], runs: list[str]) -> str:
    how = "".join(f"<li><b>{s}</b> — {escape(m)}</li>" for s, m in STATE_MEANING.items())
    figs = "".join(f'<div class="fig" id="fig-{k}">{v}</div>' for k, v in figures.items() if v)
    sections = "".join(
        f"<h3>{escape(name.replace('_', ' '))}</h3>{_table(fn(summary))}"
        for name, fn in T.TABLES.items()
        if name != "verdicts"
    )
    b, n = summary.bootstrap, summary.intervals
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>paraudit diagnostic report</title>
<style>{CSS}</style></head><body>
<h1>paraudit diagnostic report</h1>
<p class="muted">Runs: {escape(", ".join(runs))}. Every figure below is computed from the stored
results (results.jsonl); see summary.json for all numbers.</p>
<h2>Verdicts</h2>
<table class="verdict"><thead><tr><th>judge</th><th>task</th><th>items</th>
<th>native use</th><th>diagnosis</th></tr></thead>
<tbody>{_verdict_rows(summary)}</tbody></table>
<p class="muted">This report shows {n} item-level 95 % intervals
({b.replicates} bootstrap replicates of whole items, seed {b.seed}). About 1 in 20
intervals misses its true value by chance alone, so among {n} expect about
{round(n / 20)} to; read single striking intervals with that in mind.</p>
<h2>How to read this</h2>
<p>Each pointwise question is asked three ways: <b>P</b> (perception: which emotion did the user
sound like?), <b>O</b> (oracle: told the emotion in text, which response fits?) and <b>J</b>
(native judgment: hearing the audio, which response fits?). Each (item, branch, cue) unit gets
a state (P, O, J) of right/wrong, where a probe counts as right only when it is right in
<b>every order that ran</b> (both response orders; for pairwise also both context orders), so a
fixed habit such as always answering R1 is never right by the luck of one order:</p>
<ul>{how}</ul>
<p><b>Verdicts</b>, one per judge × task, follow the paper's <b>diagnostic cascade</b>, each
step read at one cue (never pooled over cues). "Above chance" means the item-level interval's
lower end is above what the best <i>deaf</i> guesser scores given the options offered (½ for
every whole answer: both branches put the same words to the judge, with different right
answers). (1) <b>Native</b> — pointwise J without a cue: <i>reliable</i> when its 95 % lower
bound is at least 80 %, <i>above chance</i>, <i>at chance</i> or <i>below chance</i>; the badge
certifies this step only. (2) <b>Recoverable</b> — pairwise J above chance with a protocol gap
whose interval excludes 0: the contrast is heard when both worlds are shown but not deployed
natively. (3) <b>Cue dependence</b> — J under a cue above chance, with a gain over no cue whose
interval excludes 0, while native J is not. (4) <b>Components</b>, per cue — which of P, O and
J are above chance (Potemkin: P and O work, J does not; perception or response-mapping
bottleneck; shortcut-like success), and, where all three work, whether failures co-occur more
than independent components would give (a permutation test over items with a family-wise 5 %
level across the five groups): if not, "no systematic failure mode", never the largest bar.
(5) <b>Behaviours</b> — position bias (first-option share ≥ 90 % or ≤ 10 %, interval excluding
50 %), order dependence (right in one response order only), ignoring the audio, repeating the
text-only choice, hearing only some human turns. The conditional Potemkin rate π110 / (π110 +
π111) is shown beside its independence baseline 1 − acc(J) and greyed where P, O or J is not
above chance. Below 30 items a task's verdict says the sample is small.</p>
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
