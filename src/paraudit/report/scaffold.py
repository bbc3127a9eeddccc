"""The report's side-by-side of a judge and its `scaffold:` (stats.scaffold computes it)."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from paraudit.report.context import Part, ReportContext
from paraudit.stats.states import GROUP_COLOURS, GROUPS

TITLE = "Mitigation: judge and scaffold side by side"

SHOWN_STATES = ("111", "110", "010", "100", "000")
"""The states the mitigation moves between; the rest are summed under 'other'."""


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f} %"


def _states(shares: dict[str, float]) -> str:
    shown = [f"{s} {_pct(shares.get(s, 0.0))}" for s in SHOWN_STATES]
    other = sum(v for s, v in shares.items() if s not in SHOWN_STATES)
    return " · ".join([*shown, f"other {_pct(other)}"])


def _bar(shares: dict[str, float]) -> str:
    """One stacked bar of the state groups, in the colours every figure uses."""
    x, parts = 0.0, []
    for group, states in GROUPS.items():
        w = 200 * sum(shares.get(s, 0.0) for s in states)
        if w > 0:
            parts.append(
                f'<rect x="{x:.1f}" y="0" width="{w:.1f}" height="12" '
                f'fill="{GROUP_COLOURS[group]}"><title>{escape(group)}</title></rect>'
            )
        x += w
    return f'<svg width="200" height="12" role="img">{"".join(parts)}</svg>'


def _j(acc: dict[str, float | None]) -> str:
    return ", ".join(f"{cue} {_pct(v)}" for cue, v in acc.items())


def _calls(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def registered_part(ctx: ReportContext) -> Part | None:
    """The mitigation section when the runs hold a judge and its scaffold (summary.json's
    `scaffold` records, stats/paired_units.py), else None; its numbers also go to
    OUT/scaffold.json."""
    records = ctx.summary.section("scaffold")
    if not records:
        return None
    (ctx.out / "scaffold.json").write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")
    note = f"{len(records)} judge × task pair{'s' * (len(records) != 1)}"
    return ("scaffold", TITLE, note, section(records))


def section(records: list[dict[str, Any]]) -> str:
    """The section's body (empty when the runs hold no judge together with its scaffold)."""
    if not records:
        return ""
    rows = []
    for r in records:
        m = r["movement"]
        moved = (
            "no 110 units"
            if m["rate"] is None
            else f"{_pct(m['rate'])} [{_pct(m['low'])}, {_pct(m['high'])}] of {m['units']} units"
            f" ({m['items']} items)"
        )
        for side in (0, 1):
            name = r["judge"] if side == 0 else r["scaffold"]
            rows.append(
                f"<tr><td>{escape(name)}</td><td>{escape(r['task'])}</td>"
                f"<td>{_bar(r['states'][side])}<br><span class='muted'>"
                f"{escape(_states(r['states'][side]))}</span></td>"
                f"<td>{escape(_j(r['j_accuracy'][side]))}</td>"
                f"<td>{_calls(r['calls_per_answer'][side])}</td>"
                + (f"<td rowspan='2'>{escape(moved)}</td>" if side == 0 else "")
                + "</tr>"
            )
    return (
        "<p class='muted'>The scaffold "
        "asks the same judge to perceive (P), states its perceived emotions in text, and asks it "
        "to map them (Staging). Units in state 110 (perceives and maps, fails to compose) "
        "should move to 111; a perception bottleneck (010) cannot. The movement is paired by "
        "item, branch and cue, with a 95 % interval over whole items.</p>"
        "<div class='scroll'><table><thead><tr><th>judge</th><th>task</th>"
        "<th>states (pointwise units)</th>"
        "<th>J accuracy per cue</th><th>calls per answer</th><th>110 → 111</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


__all__ = ["TITLE", "registered_part", "section"]
