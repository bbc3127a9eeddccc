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
    renderings: bool = typer.Option(
        False,
        "--renderings",
        help="Dataset-level: the same items in two renderings (e.g. TTS vs source recordings);"
        " Spearman rho of each judge's (P,O,J) state profile.",
    ),
) -> None:
    """McNemar exact test on shared instances, state shifts and state correlations."""
    if renderings:
        _renderings(run_a, run_b, out)
        return
    result = compare_runs(load_runs([run_a]), load_runs([run_b]))
    if not result["mcnemar"]:
        raise fail("no judge to compare: the runs share no judge name and hold several judges")
    table = Table(title="paired McNemar exact test on shared instances")
    for col in ("judge A", "judge B", "shared", "acc A", "acc B", "A✓B✗", "B✓A✗", "p"):
        table.add_column(col)
    for m in result["mcnemar"]:
        acc_a = "–" if m["accuracy_a"] is None else f"{m['accuracy_a']:.1%}"
        acc_b = "–" if m["accuracy_b"] is None else f"{m['accuracy_b']:.1%}"
        table.add_row(
            m["judge_a"],
            m["judge_b"],
            str(m["shared"]),
            acc_a,
            acc_b,
            str(m["a_right_b_wrong"]),
            str(m["b_right_a_wrong"]),
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


def fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def _renderings(run_a: Path, run_b: Path, out: Path | None) -> None:
    from paraudit.stats.dataset_compare import compare_renderings

    result = compare_renderings(load_runs([run_a]), load_runs([run_b]))
    if not result["shared_items"]:
        raise fail("the runs share no item: compare runs on two renderings of the same items")
    if not result["judges"]:
        raise fail("no judge has (P,O,J) states in both runs (run probes J, P and O)")
    table = Table(
        title=f"state profiles, same {result['shared_items']} items in two renderings "
        f"(A has {result['items_a']}, B has {result['items_b']})"
    )
    for col in ("judge", "instances A", "instances B", "Spearman ρ", "Pearson r", "slope", "TV"):
        table.add_column(col)
    for j in result["judges"]:
        table.add_row(
            j["judge"],
            str(j["instances_a"]),
            str(j["instances_b"]),
            fmt(j["spearman"]),
            fmt(j["pearson"]),
            fmt(j["slope"]),
            fmt(j["tv_distance"]),
        )
    console.print(table)
    p = result["pooled"]
    console.print(
        f"pooled over judges: Spearman {fmt(p.get('spearman'))}, Pearson {fmt(p.get('pearson'))}"
        f" ({p['points']} points)"
    )
    if out:
        out.write_text(json.dumps(result, indent=2) + "\n")
