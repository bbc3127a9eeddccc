"""`paraudit build invariance --from DATASET --out INV`: twins of a dataset's items that change
one irrelevant property each (builders/invariance.py)."""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from paraudit.audio.changes import KNOWN, parse_changes
from paraudit.builders.invariance import CARD_MD, build_invariance
from paraudit.cli.common import console
from paraudit.errors import ParauditError


def run_invariance(
    source: Path | None, out: Path, changes: str, limit: int | None, given_source: Path | None
) -> None:
    if given_source is not None:
        raise ParauditError("build invariance reads a dataset: give it as --from DATASET")
    if source is None:
        raise ParauditError("build invariance needs --from DATASET (a built audit dataset)")
    try:
        names = parse_changes(changes)
    except ValueError as e:
        raise ParauditError(f"--changes: {e} (known: {', '.join(KNOWN)})") from None
    with Progress(
        TextColumn("[bold]making twins"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("twins", total=None)
        r = build_invariance(
            source,
            out,
            names,
            limit=limit,
            on_progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    dropped = sum(sum(c.values()) for c in r.dropped.values())
    console.print(
        escape(
            f"{r.originals} originals + {sum(r.written.values())} twins → {out} · dropped "
            f"{dropped} (QC or clipping; per variant in {out / CARD_MD})"
        )
    )
