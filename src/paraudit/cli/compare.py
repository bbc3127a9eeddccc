"""`paraudit compare RUN_A RUN_B`: regression test of a judge across versions or datasets."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from paraudit.cli.common import console, fail, user_errors
from paraudit.report.build import load_runs
from paraudit.stats.compare import compare_runs


@user_errors
def compare(
    run_a: Path = typer.Argument(..., help="Baseline run folder."),
    run_b: Path = typer.Argument(..., help="Candidate run folder."),
    out: Path | None = typer.Option(None, "--out", help="Also write the comparison as JSON."),
    replicates: int = typer.Option(10_000, min=100, help="Bootstrap replicates."),
    seed: int = typer.Option(0, help="Bootstrap seed."),
) -> None:
    """Per probe, at item level: paired bootstrap of the change and an exact McNemar test on
    per-item order-consistent outcomes; state shifts and state correlations."""
    result = compare_runs(load_runs([run_a]), load_runs([run_b]), replicates=replicates, seed=seed)
    if not result["probes"]:
        raise fail("no judge to compare: the runs share no judge name and hold several judges")
    table = Table(
        title="per probe, item level: order-consistent accuracy, B − A with a paired item "
        "bootstrap 95 % CI, exact McNemar test on items"
    )
    for col in ("judge A", "judge B", "probe", "items", "acc A", "acc B", "B − A (95% CI)",
                "A better", "B better", "p"):  # fmt: skip
        table.add_column(col)
    for m in result["probes"]:

        def pct(x: float | None) -> str:
            return "–" if x is None else f"{x:.1%}"

        diff = (
            "–"
            if m["delta"] is None
            else f"{m['delta']:+.1%} ({m['ci_low']:+.1%} to {m['ci_high']:+.1%})"
        )
        table.add_row(
            m["judge_a"],
            m["judge_b"],
            f"{m['probe']} {m['protocol']}",
            str(m["items"]),
            pct(m["accuracy_a"]),
            pct(m["accuracy_b"]),
            diff,
            str(m["a_better"]),
            str(m["b_better"]),
            f"{m['p_value']:.3g}",
        )
    console.print(table)
    for name, shift in result["state_shift"].items():
        moved = ", ".join(f"{s} {v:+.1%}" for s, v in shift.items() if abs(v) >= 0.005) or "none"
        console.print(f"state shifts {name}: {moved}")
    c = result["state_correlation"]
    if c["spearman"] is not None:
        console.print(
            f"state proportions: Spearman {c['spearman']:.3f}, Pearson {c['pearson']:.3f} "
            f"({c['points']} points)"
        )
    if out:
        out.write_text(json.dumps(result, indent=2) + "\n")
