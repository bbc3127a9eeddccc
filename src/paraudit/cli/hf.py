"""`paraudit export-hf` / `paraudit import-hf`: Hugging Face `datasets` round-trip."""

from __future__ import annotations

from pathlib import Path

import typer

from paraudit.cli.common import console, fail, user_errors
from paraudit.items.hf import export_hf, import_hf
from paraudit.items.validate import validate_dataset


@user_errors
def export_cmd(
    dataset: Path = typer.Argument(..., help="Dataset folder."),
    out: Path = typer.Argument(..., help="Folder for the saved Hugging Face dataset."),
) -> None:
    """Export a dataset to a Hugging Face `datasets` folder with Audio columns."""
    problems = validate_dataset(dataset)
    if problems:
        raise fail(f"{dataset} does not validate ({problems[0]}); run 'paraudit validate'")
    n = export_hf(dataset, out)
    console.print(f"[green]✓[/] exported {n} items → {out}")


@user_errors
def import_cmd(
    src: Path = typer.Argument(..., help="Folder written by export-hf (save_to_disk)."),
    out: Path = typer.Argument(..., help="Dataset folder to write."),
) -> None:
    """Import a Hugging Face export back into a dataset folder."""
    n = import_hf(src, out)
    console.print(f"[green]✓[/] imported {n} items → {out}")
