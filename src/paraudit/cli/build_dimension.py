"""`paraudit build starter --dimension NAME`: a new dimension's offline starter set.

Everything a user can get wrong is refused before `--out` is touched: an unknown name (with the
closest one), a renderer or QC rule that is not installed (naming the extra), and `--dimension`
given to a builder other than `starter` (only the bundled texts are written for a dimension's
renderer; the source builders compose emotion items).
"""

from __future__ import annotations

from pathlib import Path

from paraudit.cli.common import console
from paraudit.dimensions import registry
from paraudit.dimensions.base import Dimension
from paraudit.items.records import DEFAULT_DIMENSION


def wanted_dimension(what: str, name: str | None) -> Dimension | None:
    """The dimension to build, checked and with its renderer importable; None for emotion (and
    no flag), which is today's build unchanged."""
    if name is None or name == DEFAULT_DIMENSION:
        return None
    dim = registry.get(name)  # unknown: one line naming the closest, exit 2
    if what != "starter":
        raise registry.DimensionError(
            f"--dimension {name} builds only its bundled starter texts: use `build starter "
            f"--dimension {name}` (build {what} composes emotion items)"
        )
    registry.renderer(dim)
    registry.qc_rule(dim)
    return dim


def run_dimension_build(
    dim: Dimension,
    out: Path,
    limit: int | None,
    voice: Path | None,
    cache: Path | None,
    seed: int,
    *,
    ids: list[str] | None = None,
) -> None:
    """`ids`: only those texts (the demo's quick subset)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from paraudit.builders.dimension_starter import build_dimension_starter

    # The columns of cli/build.py's bar (importing it from there would be an import cycle).
    with Progress(
        TextColumn(f"[bold]rendering[/] {dim.name} " + "{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("items", total=None)
        report = build_dimension_starter(
            dim,
            out,
            limit=limit,
            cache_dir=cache,
            seed=seed,
            voice=None if voice is None else str(voice),
            on_progress=lambda done, total: bar.update(task, completed=done, total=total),
            ids=ids,
        )
    console.print(
        f"{dim.name}: {report.items_written} items written, {len(report.dropped)} dropped by QC "
        f"· {report.renders} renders ({report.rerenders} re-rendered) · "
        f"{report.seconds:.1f} s → {out}"
    )
    for d in report.dropped:
        console.print(f"  dropped {d.item_id}: {d.reason}", highlight=False, markup=False)
