"""`paraudit build starter --out DIR`: render and verify the offline starter set."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from paraudit.cli.common import console, fail, user_errors
from paraudit.compose.starter import BuildReport, build_starter
from paraudit.items.validate import validate_dataset

SOURCES = ("starter",)


def run_build(out: Path, limit: int | None, voice: Path | None, cache: Path | None) -> BuildReport:
    with Progress(
        TextColumn("[bold]rendering[/] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("starter clips", total=None)
        report = build_starter(
            out,
            limit=limit,
            voice=voice,
            cache_dir=cache,
            on_progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    written = ", ".join(f"{n} {t}" for t, n in report.items_written.items()) or "none"
    console.print(
        f"clips: {report.clips_accepted_first_try} accepted, {report.clips_retried_accepted} "
        f"accepted after retry, {report.clips_failed} failed · items: {written}; "
        f"dropped {len(report.items_dropped)}"
        + (f" ({', '.join(report.items_dropped)})" if report.items_dropped else "")
    )
    console.print(
        f"renders: {report.fresh_renders} fresh, {report.cache_hits} from cache · "
        f"{report.seconds:.1f} s → {out}"
    )
    return report


@user_errors
def build(
    source: str = typer.Argument(..., help="What to build: 'starter' (the offline starter set)."),
    out: Path = typer.Option(..., "--out", help="Dataset folder to write."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="At most N items per task."),
    voice: Path | None = typer.Option(
        None, "--voice", help="A Piper .onnx voice (default: bundled joe-medium)."
    ),
    cache: Path | None = typer.Option(
        None, "--cache", help="Render cache folder (default ~/.cache/paraudit)."
    ),
) -> None:
    """Build an audit dataset from text sources with the offline renderer."""
    if source not in SOURCES:
        raise fail(f"unknown source '{source}' (available: {', '.join(SOURCES)})")
    run_build(out, limit, voice, cache)
    problems = validate_dataset(out)
    if problems:
        for p in problems:
            console.print(f"[red]✗[/] {escape(str(p))}", highlight=False)
        raise fail(f"the built dataset has {len(problems)} problem(s)")
    console.print("[green]✓[/] dataset validates")
