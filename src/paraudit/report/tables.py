"""Tables of the summary as CSV, LaTeX and Markdown (and the rows the HTML shows)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

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


def fmt(v: Any, pct: bool = False) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.1%}" if pct else f"{v:.3f}"
    return str(v)


def headline(summary: dict[str, Any]) -> Table:
    """J accuracy per judge, task, protocol and cue (strict), with interval and unparsed rate."""
    cols = [
        "judge",
        "task",
        "protocol",
        "cue",
        "n",
        "accuracy",
        "95% CI",
        "unparsed",
        "parsed-only",
    ]
    rows = []
    for a in summary["accuracy"]:
        if a["probe"] == "J":
            rows.append(
                [
                    a["judge"],
                    a["task"],
                    a["protocol"],
                    a["cue"],
                    a["n"],
                    fmt(a["accuracy"], True),
                    f"{a['ci_low']:.1%}–{a['ci_high']:.1%}",
                    fmt(a["unparsed_rate"], True),
                    fmt(a["parsed_accuracy"], True),
                ]
            )
    return cols, rows


def probes(summary: dict[str, Any]) -> Table:
    cols = ["judge", "task", "probe", "protocol", "n", "accuracy", "95% CI", "unparsed"]
    rows = [
        [
            a["judge"],
            a["task"],
            a["probe"],
            a["protocol"],
            a["n"],
            fmt(a["accuracy"], True),
            f"{a['ci_low']:.1%}–{a['ci_high']:.1%}",
            fmt(a["unparsed_rate"], True),
        ]
        for a in summary["accuracy"]
        if a["cue"] == "all"
    ]
    return cols, rows


def states(summary: dict[str, Any]) -> Table:
    cols = [
        "judge",
        "task",
        "n",
        "reliable 111",
        "Potemkin 110",
        "bottleneck 010/100",
        "shortcut 001/011/101",
        "failure 000",
        "cond. Potemkin (95% CI)",
    ]
    rows = []
    for s in summary["states"]:
        if s["cue"] != "all":
            continue
        g, m = s["groups"], s["masses"]
        pot = (
            "–"
            if s["potemkin_rate"] is None
            else f"{s['potemkin_rate']:.1%} "
            f"({s['potemkin_ci_low']:.1%}–{s['potemkin_ci_high']:.1%})"
        )
        rows.append(
            [
                s["judge"],
                s["task"],
                s["n"],
                fmt(g["reliable"], True),
                fmt(g["Potemkin"], True),
                f"{fmt(m['010'], True)} / {fmt(m['100'], True)}",
                fmt(g["shortcut-like success"], True),
                fmt(g["full-stack failure"], True),
                pot,
            ]
        )
    return cols, rows


def gaps(summary: dict[str, Any]) -> Table:
    cols = ["judge", "task", "cue", "pairwise", "pointwise", "Δ (pair − point)", "95% CI", "items"]
    rows = [
        [
            g["judge"],
            g["task"],
            g["cue"],
            fmt(g["pairwise"], True),
            fmt(g["pointwise"], True),
            f"{g['delta']:+.1%}",
            f"{g['ci_low']:+.1%} to {g['ci_high']:+.1%}",
            g["items"],
        ]
        for g in summary["protocol_gap"]
    ]
    return cols, rows


def cue_dependence(summary: dict[str, Any]) -> Table:
    cols = ["judge", "task", "protocol", "cue", "Δ (cue − none)", "95% CI", "items"]
    rows = [
        [
            c["judge"],
            c["task"],
            c["protocol"],
            c["cue"],
            f"{c['delta']:+.1%}",
            f"{c['ci_low']:+.1%} to {c['ci_high']:+.1%}",
            c["items"],
        ]
        for c in summary["cue_dependence"]
    ]
    return cols, rows


def behaviour(summary: dict[str, Any]) -> Table:
    cols = [
        "judge",
        "task",
        "audio sensitivity",
        "pair accuracy",
        "R1 picks",
        "order consistency",
        "transcript control (T)",
        "staging − oracle",
    ]
    rows = []
    for b in summary["behaviour"]:
        so = ", ".join(f"{k} {v:+.1%}" for k, v in b["staging_minus_oracle"].items()) or "–"
        rows.append(
            [b["judge"], b["task"]]
            + [
                fmt(b[k]["rate"], True)
                for k in (
                    "audio_sensitivity",
                    "pair_accuracy",
                    "position_bias",
                    "order_consistency",
                    "transcript_control",
                )
            ]
            + [so]
        )
    return cols, rows


TABLES = {
    "headline_j_accuracy": headline,
    "probe_accuracy": probes,
    "states": states,
    "protocol_gap": gaps,
    "cue_dependence": cue_dependence,
    "behaviour": behaviour,
}


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


def markdown(table: Table) -> str:
    cols, rows = table
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(str(v) for v in r) + " |" for r in rows]
    return "\n".join(out) + "\n"
