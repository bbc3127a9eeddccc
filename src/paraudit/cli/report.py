"""`paraudit report RUN_DIR [RUN_DIR …] --out DIR`."""

from __future__ import annotations

from pathlib import Path

import typer

from paraudit.cli.common import console, user_errors
from paraudit.report.build import write_report


@user_errors
def report(
    runs: list[Path] = typer.Argument(..., help="Run folders (written by 'paraudit run')."),
    out: Path = typer.Option(..., "--out", help="Report folder."),
    replicates: int = typer.Option(10_000, min=100, help="Bootstrap replicates."),
    seed: int = typer.Option(0, help="Bootstrap seed."),
) -> None:
    """Write the diagnostic report (HTML, Markdown, JSON, CSV, LaTeX, figures)."""
    path = write_report(list(runs), out, replicates=replicates, seed=seed)
    console.print(f"[green]✓[/] report → {path}")
