"""`paraudit export-hf` / `paraudit import-hf`: Hugging Face `datasets` round-trip."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from paraudit.cli.common import console, prepare_output, user_errors, warn
from paraudit.cli.outputs import locked
from paraudit.items.dataset import MANIFEST
from paraudit.items.hf import HF_STATE, export_hf, import_hf
from paraudit.items.validate import Problem

FORCE_HELP = "Replace an earlier output of the same kind at OUT."


def _warn(p: Problem) -> None:
    warn(str(p))


@user_errors
def export_cmd(
    dataset: Path = typer.Argument(..., help="Dataset folder."),
    out: Path = typer.Argument(..., help="Folder for the saved Hugging Face dataset."),
    force: bool = typer.Option(False, "--force", help=FORCE_HELP),
) -> None:
    """Export a dataset to a Hugging Face `datasets` folder with Audio columns."""
    prepare_output(out, force=force, what="export folder", marker=HF_STATE, inputs=[dataset])
    with locked(("OUT", out)):
        n = export_hf(dataset, out, overwrite=force, on_warning=_warn)
    console.print(
        f"[green]✓[/] exported {n} items → {escape(str(out))}", highlight=False, soft_wrap=True
    )


@user_errors
def import_cmd(
    src: Path = typer.Argument(..., help="Folder written by export-hf (save_to_disk)."),
    out: Path = typer.Argument(..., help="Dataset folder to write."),
    force: bool = typer.Option(False, "--force", help=FORCE_HELP),
) -> None:
    """Import a Hugging Face export back into a dataset folder (validated before it is kept)."""
    # Guarded against its source only once that is an export (else import_hf says so).
    given = [src] if (src / HF_STATE).is_file() else []
    prepare_output(out, force=force, what="dataset folder", marker=MANIFEST, inputs=given)
    with locked(("OUT", out)):
        n = import_hf(src, out, overwrite=force, on_warning=_warn)
    console.print(
        f"[green]✓[/] imported {n} items → {escape(str(out))} (validated)",
        highlight=False,
        soft_wrap=True,
    )
