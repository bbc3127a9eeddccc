"""`paraudit validate DATASET`: list every broken invariant, exit 1 if any error."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from paraudit.cli.annotate_checks import check_fraction
from paraudit.cli.common import console, fail, user_errors
from paraudit.items.validate import Problem, errors_of, validate_dataset


def print_problems(problems: list[Problem]) -> None:
    """Errors as ✗ lines, warnings as ! lines (warnings never fail a command)."""
    for p in problems:
        mark = "[red]✗[/]" if p.is_error else "[yellow]![/] warning:"
        console.print(f"{mark} {escape(str(p))}", highlight=False, soft_wrap=True)


@user_errors
def validate(
    dataset: Path = typer.Argument(..., help="Dataset folder."),
    humans: Path | None = typer.Option(
        None, "--humans", metavar="STORE", help="Annotation store: list hard items."
    ),
    human_threshold: float = typer.Option(
        0.5, "--human-threshold", metavar="X", help="With --humans: flag items below this accuracy."
    ),
    mixed_formats: bool | None = typer.Option(
        None,
        "--mixed-formats/--one-format",
        help="Allow several sample rates/formats across the dataset (imported sets), warning "
        "only where an item's branches differ; default: dataset.json's mixed_audio_formats.",
        show_default=False,
    ),
) -> None:
    """Check every invariant of an audit dataset."""
    if humans is not None:
        check_fraction(human_threshold, "--human-threshold")
    problems = validate_dataset(dataset, mixed_formats=mixed_formats)
    if humans is not None:  # items listeners get wrong: printed, never an error
        from paraudit.cli.annotate import human_check

        human_check(humans, dataset, human_threshold)
    print_problems(problems)
    errors = errors_of(problems)
    warned = len(problems) - len(errors)
    note = f" ({warned} warning(s))" if warned else ""
    if errors:
        raise fail(f"{dataset}: {len(errors)} problem(s){note}; fix them and validate again")
    console.print(
        f"[green]✓[/] {escape(str(dataset))} is a valid dataset{note}",
        highlight=False,
        soft_wrap=True,
    )
