"""The report's side-by-side of one judge audited with its clips separate and joined
(`?clips=joined`; stats.joined computes it)."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from paraudit.report.context import Part, ReportContext

TITLE = "Harness: the same judge with its clips separate and joined"
JSON = "joined.json"


def _pct(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "–"
    return f"{100 * x:+.1f} pp" if signed else f"{100 * x:.1f} %"


def registered_part(ctx: ReportContext) -> Part | None:
    """The section when the runs hold a judge both ways (summary.json's `joined` records,
    stats/paired_units.py), else None; its numbers also go to OUT/joined.json."""
    records = ctx.summary.section("joined")
    if not records:
        return None
    (ctx.out / JSON).write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")
    pairs = len({r["joined"] for r in records})
    return ("joined", TITLE, f"{pairs} judge{'s' * (pairs != 1)} both ways", section(records))


def section(records: list[dict[str, Any]]) -> str:
    rows = []
    for r in records:
        s = r["states"]
        state = (
            "–"
            if s["shift"] is None
            else f"{s['state']} {_pct(s['shift'], True)} ({s['shared_items']} items)"
        )
        for k, t in enumerate(r["j"]):
            rows.append(
                f"<tr><td>{escape(r['separate'])}</td><td>{escape(r['task'])}</td>"
                f"<td>{escape(t['protocol'])}</td><td>{_pct(t['accuracy_a'])}</td>"
                f"<td>{_pct(t['accuracy_b'])}</td><td>{_pct(t['delta'], True)} "
                f"[{_pct(t['ci_low'], True)}, {_pct(t['ci_high'], True)}]</td>"
                f"<td>{t['a_better']} / {t['b_better']}, p = {t['p_value']:.3g}</td>"
                f"<td>{'yes' if t['changes'] else 'no'}</td>"
                + (f"<td rowspan='{len(r['j'])}'>{escape(state)}</td>" if k == 0 else "")
                + "</tr>"
            )
    return (
        "<p class='muted'>One judge audited twice on the same items: its clips sent separately, "
        "and joined into one clip with spoken markers (<code>?clips=joined</code>). J is "
        "scored order-consistently per unit on the items both audits answered; Δ is joined − "
        "separate with a 95 % interval over whole items. Joining is said to change J where "
        "the exact sign test on the items that differ is below 0.05 divided by the number of "
        "cells (a guessing judge, whose coins the new prompt re-draws, trips a bare interval "
        "in one cell of twenty). The state column is the largest shift in (P, O, J) state "
        "mass, a point estimate. The built-in prosody judge cuts the parts out of the joined "
        "clip at the joining record's offsets, so for it a difference would mean joining lost "
        "what it measures; a model must find the parts from the markers itself.</p>"
        "<div class='scroll'><table><thead><tr><th>judge</th><th>task</th><th>protocol</th>"
        "<th>J separate</th><th>J joined</th><th>Δ [95 % CI]</th>"
        "<th>items better separate / joined</th><th>changes</th><th>largest state shift</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


__all__ = ["JSON", "TITLE", "registered_part", "section"]
