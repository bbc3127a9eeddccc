"""`paraudit validate DATASET`: list every broken invariant, exit 1 if any."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from paraudit.cli.common import console, fail, user_errors
from paraudit.items.validate import validate_dataset


@user_errors
def validate(
    dataset: Path = typer.Argument(..., help="Dataset folder."),
    humans: Path | None = typer.Option(None, "--humans", help="Annotation store: list hard items."),
    human_threshold: float = typer.Option(0.5, "--human-threshold"),
) -> None:
    """Check every invariant of an audit dataset."""
    problems = validate_dataset(dataset)
    if humans is not None:  # items listeners get wrong: printed, never an error
        from paraudit.cli.annotate import human_check

        human_check(humans, dataset, human_threshold)
    for p in problems:
        console.print(f"[red]✗[/] {escape(str(p))}", highlight=False, soft_wrap=True)
    if problems:
        raise fail(f"{dataset}: {len(problems)} problem(s)")
    console.print(f"[green]✓[/] {dataset} is a valid dataset")
