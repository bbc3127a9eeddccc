"""`paraudit validate DATASET`: list every broken invariant, exit 1 if any."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from paraudit.cli.common import console, fail, user_errors
from paraudit.items.validate import validate_dataset


@user_errors
def validate(dataset: Path = typer.Argument(..., help="Dataset folder.")) -> None:
    """Check every invariant of an audit dataset."""
    problems = validate_dataset(dataset)
    for p in problems:
        console.print(f"[red]✗[/] {escape(str(p))}", highlight=False, soft_wrap=True)
    if problems:
        raise fail(f"{dataset}: {len(problems)} problem(s)")
    console.print(f"[green]✓[/] {dataset} is a valid dataset")
