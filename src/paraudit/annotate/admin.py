"""The admin page: progress per annotator, catch-item results, agreement, export links.

Server-rendered HTML with every value escaped; reachable only with the admin token.
"""

from __future__ import annotations

import math
import time
from html import escape
from typing import Any

from paraudit.annotate import export as E
from paraudit.annotate.store import AnnotationStore
from paraudit.items.dataset import Dataset
from paraudit.stats.agreement import agreement_summary


def export_jsonl(store: AnnotationStore, ds: Dataset) -> str:
    return E.export_jsonl(E.answer_rows(store, ds))


def export_csv(store: AnnotationStore, ds: Dataset) -> str:
    return E.export_csv(E.answer_rows(store, ds))


def summary(store: AnnotationStore, ds: Dataset) -> dict[str, Any]:
    rows = E.answer_rows(store, ds)
    progress = {
        name: dict(zip(("answered", "total"), store.count(name), strict=True))
        for name, _ in store.annotators()
    }
    return {"progress": progress, **agreement_summary(E.judgments(rows))}


def _pct(rate: Any) -> str:
    if not isinstance(rate, dict) or rate.get("rate") is None:
        return "–"
    return (
        f"{rate['rate']:.0%} ({rate['k']}/{rate['n']}; {rate['ci_low']:.0%}–{rate['ci_high']:.0%})"
    )


def _num(x: Any) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2f}"


def render(store: AnnotationStore, ds: Dataset, token: str) -> str:
    s = summary(store, ds)
    pooled: dict[str, Any] = s["tasks"].get("all", {})
    acc: dict[str, Any] = pooled.get("annotators", {})
    active = store.last_activity()
    rows = []
    for name, _ in store.annotators():
        p = s["progress"][name]
        share = p["answered"] / p["total"] if p["total"] else 0
        last = active.get(name)
        rows.append(
            "<tr>"
            f"<td>{escape(name)}</td>"
            f"<td><progress value='{p['answered']}' max='{p['total']}'></progress> "
            f"{p['answered']}/{p['total']} ({share:.0%})</td>"
            f"<td>{escape(_pct(acc.get(name)))}</td>"
            f"<td>{escape(_pct(s['catch'].get(name)))}</td>"
            f"<td>{escape(_pct(s['intra_rater'].get(name)))}</td>"
            f"<td>{escape(time.strftime('%H:%M:%S', time.localtime(last)) if last else '–')}</td>"
            "</tr>"
        )
    overlap = pooled.get("overlap")
    span = pooled.get("range")
    agreement = (
        "<p>Overlap set: fewer than two annotators have answered it yet.</p>"
        if not overlap
        else (
            f"<p>Overlap set: {overlap['units']} stimuli, {overlap['complete_units']} answered "
            f"by all {len(overlap['annotators'])} annotators. Fleiss κ "
            f"<b>{_num(overlap['fleiss_kappa'])}</b> · Krippendorff α "
            f"<b>{_num(overlap['krippendorff_alpha'])}</b> (0 = chance, 1 = perfect).</p>"
        )
    )
    flagged = [i for i in s["items"] if i["flagged"]]
    item_rows = "".join(
        f"<tr><td>{escape(i['item_id'])}</td><td>{escape(i['task'])}</td>"
        f"<td>{i['correct']}/{i['answers']} ({i['accuracy']:.0%})</td></tr>"
        for i in flagged
    )
    base = f"/admin/{escape(token)}"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>paraudit · listening test admin</title>
<link rel="stylesheet" href="{base}/style.css"></head>
<body class="admin"><main>
<h1>Listening test · admin</h1>
<p class="muted">Dataset <b>{escape(ds.manifest.name)}</b> · store {escape(store.path.name)}.
Accuracy counts first hearings only; catch items and hidden repeats are reported apart.</p>
<h2>Annotators</h2>
<div class="scroll"><table>
<thead><tr><th>annotator</th><th>progress</th><th>accuracy (95 % CI)</th>
<th>catch items passed</th><th>repeats consistent</th><th>last answer</th></tr></thead>
<tbody>{"".join(rows)}</tbody></table></div>
<p>Accuracy range across annotators: <b>{f"{span[0]:.0%}–{span[1]:.0%}" if span else "–"}</b></p>
<h2>Agreement</h2>{agreement}
<h2>Items most listeners get wrong</h2>
{
        "<p>None flagged yet (an item needs two scored answers and accuracy below "
        f"{s['threshold']:.0%}).</p>"
        if not flagged
        else "<table><thead><tr><th>item</th><th>task</th><th>correct</th></tr></thead><tbody>"
        + item_rows
        + "</tbody></table>"
    }
<h2>Export</h2>
<p><a href="{base}/answers.jsonl" download>answers.jsonl</a> ·
<a href="{base}/answers.csv" download>answers.csv</a> ·
<a href="{base}/summary.json">summary.json</a></p>
</main></body></html>
"""
