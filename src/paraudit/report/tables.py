"""Tables of the summary as CSV, LaTeX and Markdown (and the rows the HTML shows)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from paraudit.stats.model import Estimate
from paraudit.stats.summary_model import AccuracyCell, Summary

Table = tuple[list[str], list[list[Any]]]


def _flat(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def flat_table(rows: list[dict[str, Any]]) -> Table:
    flat = [_flat(r) for r in rows]
    cols: list[str] = []
    for f in flat:
        cols += [c for c in f if c not in cols]
    return cols, [[f.get(c) for c in cols] for f in flat]


def write_csv(path: Path, table: Table) -> None:
    cols, rows = table
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(cols)
        w.writerows(rows)


class Muted(str):
    """A cell the HTML report greys out (shown, but not to be read as evidence)."""


def fmt(v: Any, pct: bool = False) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.1%}" if pct else f"{v:.3f}"
    return str(v)


def est(e: Estimate | None, signed: bool = False) -> str:
    """'x % (low–high)' for a rate with its item-level interval; '–' when undefined."""
    if e is None or e.rate is None:
        return "–"
    f = "{:+.1%}" if signed else "{:.1%}"
    if e.ci_low is None or e.ci_high is None:
        return f.format(e.rate)
    sep = " to " if signed else "–"
    return f"{f.format(e.rate)} ({f.format(e.ci_low)}{sep}{f.format(e.ci_high)})"


def _accuracy(a: AccuracyCell) -> str:
    """A cell's accuracy; a cell whose every call failed has no answers (never 0 %)."""
    if a.accuracy is None:
        return f"no answers ({a.errors} errors)" if a.errors else "no answers"
    return est(a.estimate)


def _wilson(a: AccuracyCell) -> str:
    if a.wilson_low is None or a.wilson_high is None:
        return "–"
    return f"{a.wilson_low:.1%}–{a.wilson_high:.1%}"


def _failures(a: AccuracyCell) -> list[Any]:
    return [a.unparsed, a.refused, a.errors]


def verdicts(summary: Summary) -> Table:
    cols = ["judge", "task", "items", "diagnosis", "headline", "every step"]
    rows = [[v.judge, v.task, v.items, v.diagnosis, v.headline, v.text] for v in summary.verdicts]
    return cols, rows


def headline(summary: Summary) -> Table:
    """J accuracy per judge, task, protocol and cue: per instance with its item-level interval
    (the paper's Wilson interval beside it), order-consistent, and the failed answers."""
    cols = ["judge", "task", "protocol", "cue", "items", "answers", "accuracy (item CI)",
            "Wilson (per instance)", "order-consistent (item CI)", "unparsed", "refused",
            "errors"]  # fmt: skip
    rows = [
        [
            a.judge,
            a.task,
            a.protocol,
            a.cue,
            a.items,
            a.n,
            _accuracy(a),
            _wilson(a),
            est(a.consistent),
            *_failures(a),
        ]  # fmt: skip
        for a in summary.accuracy
        if a.probe == "J"
    ]
    return cols, rows


def j_matrix(summary: Summary) -> Table:
    """J accuracy as a judge × cell matrix (one row per judge and task, one column per protocol
    and cue): the headline table's 72-odd rows at a glance. A cell not above chance is greyed,
    as everywhere in the report."""
    order = {c: i for i, c in enumerate(("none", "soft", "hard", "transition"))}
    cells = [a for a in summary.accuracy if a.probe == "J" and a.cue != "all"]
    conds = sorted({(a.protocol, a.cue) for a in cells},
                   key=lambda pc: (pc[0] != "pointwise", order.get(pc[1], 9), pc[1]))  # fmt: skip
    by = {(a.judge, a.task, a.protocol, a.cue): a for a in cells}
    cols = ["judge", "task", "items", *(f"{p.capitalize()} · {c}" for p, c in conds)]
    items: dict[tuple[str, str], int] = {}
    for a in cells:
        items[(a.judge, a.task)] = max(items.get((a.judge, a.task), 0), a.items)
    rows: list[list[Any]] = []
    for (judge, task), n in sorted(items.items()):
        row: list[Any] = [judge, task, n]
        for p, c in conds:
            cell = by.get((judge, task, p, c))
            text = "–" if cell is None or cell.accuracy is None else f"{cell.accuracy:.0%}"
            row.append(text if cell is not None and cell.above_chance else Muted(text))
        rows.append(row)
    return cols, rows


def probes(summary: Summary) -> Table:
    cols = ["judge", "task", "probe", "protocol", "items", "answers", "accuracy (item CI)",
            "order-consistent (item CI)", "chance", "unparsed", "refused", "errors"]  # fmt: skip
    rows = [
        [
            a.judge,
            a.task,
            a.probe,
            a.protocol,
            a.items,
            a.n,
            _accuracy(a),
            est(a.consistent),
            fmt(a.chance, True),
            *_failures(a),
        ]  # fmt: skip
        for a in summary.accuracy
        if a.cue == "all"
    ]
    return cols, rows


def states(summary: Summary) -> Table:
    """Order-consistent state groups per cue (and all cues pooled, labelled so: verdicts never
    read the pooled row), with conditional Potemkin beside its independence baseline; greyed
    where P, O or J is not above chance."""
    cols = ["judge", "task", "cue", "items", "units", "reliable 111", "Potemkin 110",
            "perception 010", "mapping 100", "shortcut 001/011/101", "failure 000",
            "cond. Potemkin", "baseline 1 − acc(J)",
            "over-represented (permutation test)"]  # fmt: skip
    rows = []
    for s in summary.states:
        g, m = s.groups, s.masses
        over = s.over_represented
        pot = est(s.potemkin)
        if not s.interpretable:
            pot = Muted(f"{pot} — not interpretable: {', '.join(s.not_above_chance)} "
                        "not above chance")  # fmt: skip
        rows.append(
            [s.judge, s.task, "all (pooled)" if s.cue == "all" else s.cue, s.items, s.units,
             est(g.get("reliable")), est(g.get("Potemkin")), est(m.get("010")),
             est(m.get("100")), est(g.get("shortcut-like success")),
             est(g.get("full-stack failure")), pot, est(s.potemkin_baseline),
             "–" if over is None else ", ".join(over) or "none (failures look independent)"]
        )  # fmt: skip
    return cols, rows


def gaps(summary: Summary) -> Table:
    cols = ["judge", "task", "cue", "items", "Δ Pairwise − Pointwise (item CI)"]
    rows = [
        [g.judge, g.task, g.cue, g.items, est(g.estimate, signed=True)]
        for g in summary.protocol_gap
    ]
    return cols, rows


def cue_dependence(summary: Summary) -> Table:
    cols = ["judge", "task", "protocol", "cue", "items", "Δ cue − none (item CI)"]
    rows = [
        [c.judge, c.task, c.protocol, c.cue, c.items, est(c.estimate, signed=True)]
        for c in summary.cue_dependence
    ]
    return cols, rows


def staging(summary: Summary) -> Table:
    cols = ["judge", "task", "protocol", "items", "Δ staging − oracle (item CI)"]
    rows = [
        [s.judge, s.task, s.protocol, s.items, est(s.estimate, signed=True)]
        for s in summary.staging_minus_oracle
    ]
    return cols, rows


def position(summary: Summary) -> Table:
    """First-option shares, flagged cells first: they are what a reader looks for among
    hundreds of unremarkable ones."""
    cols = ["judge", "task", "probe", "protocol", "cue", "items",
            "first-option share (not an accuracy; item CI)", "flag"]  # fmt: skip
    ranked = sorted(summary.position_bias, key=lambda p: p.direction is None)  # stable
    rows = [
        [p.judge, p.task, p.probe, p.protocol, p.cue, p.items, est(p),
         f"biased to the {p.direction} option" if p.direction else ""]
        for p in ranked
    ]  # fmt: skip
    return cols, rows


def behaviour(summary: Summary) -> Table:
    cols = ["judge", "task", "items", "audio sensitivity (all cues pooled)", "pair accuracy",
            "J choice order consistency"]  # fmt: skip
    rows = []
    for b in summary.behaviour:
        rates = (b.audio_sensitivity, b.pair_accuracy, b.order_consistency)
        items = max(r.items for r in rates)
        rows.append([b.judge, b.task, items, *(est(r) for r in rates)])
    return cols, rows


def transcript(summary: Summary) -> Table:
    cols = ["judge", "task", "items", "T same response in both orders",
            "T picks branch 0's response", "J–T agreement (½ if J follows the audio)",
            "T answers", "unparsed", "refused", "errors"]  # fmt: skip
    rows = []
    for t in summary.transcript_control:
        rates = (t.order_consistency, t.prefers_branch_0, t.j_t_agreement)
        items = max((r.items for r in rates if r is not None), default=0)
        rows.append([t.judge, t.task, items, *(est(r) for r in rates), t.answers, t.unparsed,
                     t.refused, t.errors])  # fmt: skip
    return cols, rows


def order_dependence(summary: Summary) -> Table:
    cols = ["judge", "task", "cue", "items", "J in order ab", "J in order ba",
            "Δ ab − ba (item CI)"]  # fmt: skip
    rows = [
        [d.judge, d.task, d.cue, d.items, est(d.ab), est(d.ba), est(d.estimate, signed=True)]
        for d in summary.order_dependence
    ]
    return cols, rows


def perception_positions(summary: Summary) -> Table:
    cols = ["judge", "task", "cue", "human turn", "items", "P accuracy (item CI)",
            "deaf guesser"]  # fmt: skip
    rows = [
        [p.judge, p.task, p.cue, p.position, p.items, est(p), fmt(p.chance, True)]
        for p in summary.perception_positions
    ]
    return cols, rows


def perception_turns(summary: Summary) -> Table:
    cols = ["judge", "task", "cue", "items", "P per-turn accuracy (item CI)"]
    rows = [[p.judge, p.task, p.cue, p.items, est(p)] for p in summary.perception_turns]
    return cols, rows


TABLES = {
    "verdicts": verdicts,
    "headline_j_accuracy": headline,
    "probe_accuracy": probes,
    "states": states,
    "protocol_gap": gaps,
    "cue_dependence": cue_dependence,
    "staging_minus_oracle": staging,
    "position_bias": position,
    "behaviour": behaviour,
    "transcript_control": transcript,
    "perception_per_turn": perception_turns,
    "perception_by_turn_position": perception_positions,
    "order_dependence": order_dependence,
}
"""Table name (its CSV file's name) → its rows."""

TITLES = {
    "verdicts": "Verdicts: every step of the cascade",
    "headline_j_accuracy": "J accuracy (native judgment) by protocol and cue",
    "probe_accuracy": "P, O, J, S accuracy (all cues pooled)",
    "states": "States (P, O, J) and conditional Potemkin",
    "protocol_gap": "Protocol gap: Pairwise − Pointwise J",
    "cue_dependence": "Cue dependence: J under a cue − no cue",
    "staging_minus_oracle": "Staging − oracle (S − O)",
    "position_bias": "Position bias: first-option shares",
    "behaviour": "Audio sensitivity, pair accuracy and order consistency of J",
    "transcript_control": "Transcript control T (words only)",
    "perception_per_turn": "P per human turn (positional)",
    "perception_by_turn_position": "P by human-turn position (first, middle, last)",
    "order_dependence": "Order dependence: Pointwise J by response order",
}
"""Sentence-case headings with the paper's names (Pointwise, Pairwise, J, P, O), for the HTML,
Markdown and LaTeX outputs alike."""


def _tex(s: Any) -> str:
    text = str(s)
    for a, b in (
        ("\\", r"\textbackslash{}"),
        ("&", r"\&"),
        ("%", r"\%"),
        ("_", r"\_"),
        ("#", r"\#"),
        ("–", "--"),
        ("Δ", r"$\Delta$"),
        ("−", "-"),
        ("½", r"$\tfrac{1}{2}$"),
    ):
        text = text.replace(a, b)
    return text


def latex(table: Table, caption: str) -> str:
    cols, rows = table
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        r"\begin{tabular}{" + "l" * len(cols) + "}",
        r"\toprule",
        " & ".join(_tex(c) for c in cols) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(_tex(v) for v in r) + r" \\" for r in rows]
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{_tex(caption)}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _md(v: Any) -> str:
    text = str(v).replace("|", "\\|")
    return f"_{text}_" if isinstance(v, Muted) else text


def markdown(table: Table) -> str:
    cols, rows = table
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(_md(v) for v in r) + " |" for r in rows]
    return "\n".join(out) + "\n"
