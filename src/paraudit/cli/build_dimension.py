"""`paraudit build starter --dimension NAME`: a new dimension's offline starter set.

Everything a user can get wrong is refused before `--out` is touched: an unknown name (with the
closest one), a renderer or QC rule that is not installed (naming the extra), and `--dimension`
given to a builder other than `starter` (only the bundled texts are written for a dimension's
renderer; the source builders compose emotion items).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paraudit.cli.common import console
from paraudit.dimensions import registry
from paraudit.dimensions.base import Dimension
from paraudit.errors import ParauditError
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


def starter_variants(
    what: str, dim: Dimension | None, voices: str | None, conditions: str | None, voice: Any
) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    """`--voices` and `--conditions`, checked before `--out` is touched: (voices or None, the
    recording conditions). Only `build starter` renders voices and adds conditions itself
    (`build invariance --changes telephone,reverb` adds conditions to any built set)."""
    from paraudit.audio.changes import CONDITIONS

    if voices is None and conditions is None:
        return None, ()
    if what != "starter":
        raise registry.DimensionError(
            f"--voices and --conditions belong to build starter; for a {what} set use "
            "`build invariance --from SET --changes telephone,reverb`"
        )
    if voices is not None and voice is not None:
        raise registry.DimensionError("give --voice or --voices, not both")
    named: tuple[str, ...] = ()
    if conditions is not None:
        named = tuple(dict.fromkeys(c.strip() for c in conditions.split(",") if c.strip()))
        bad = [c for c in named if c not in CONDITIONS] or ([] if named else ["(none)"])
        if bad:
            raise registry.DimensionError(
                f"--conditions: unknown condition '{bad[0]}' (known: {', '.join(CONDITIONS)})"
            )
    try:
        if "reverb" in named:
            from paraudit.audio.conditions import room_impulse_response

            room_impulse_response(16000)  # not installed: one line naming the extra
        if voices is None:
            return None, named
        if dim is None:
            from paraudit.compose.starter import parse_emotion_voices

            return parse_emotion_voices(voices), named
        from paraudit.builders.dimension_starter import parse_voices

        return parse_voices(dim, voices), named
    except ParauditError as e:  # a usage mistake: exit 2, as a bad flag
        raise registry.DimensionError(str(e)) from None


def run_dimension_build(
    dim: Dimension,
    out: Path,
    limit: int | None,
    voice: Path | None,
    cache: Path | None,
    seed: int,
    voices: tuple[str, ...] | None = None,
    conditions: tuple[str, ...] = (),
    *,
    ids: list[str] | None = None,
    conflict: bool = False,
) -> None:
    """`ids`: only those texts (the demo's quick subset); `conflict`: add the conflict texts."""
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
            voices=voices,
            conditions=conditions,
            on_progress=lambda done, total: bar.update(task, completed=done, total=total),
            ids=ids,
            conflict=conflict,
        )
    console.print(
        f"{dim.name}: {report.items_written} items written, {len(report.dropped)} dropped by QC "
        f"· {report.renders} renders ({report.rerenders} re-rendered) · "
        f"{report.seconds:.1f} s → {out}"
    )
    for d in report.dropped:
        console.print(f"  dropped {d.item_id}: {d.reason}", highlight=False, markup=False)
    print_twins(report.twins_written, [f"{d.item_id}: {d.reason}" for d in report.twins_dropped])


def print_twins(written: dict[str, int], dropped: list[str]) -> None:
    """The starter build's line on its voice and condition twins (none: nothing printed)."""
    if not written and not dropped:
        return
    kept = ", ".join(f"{n} {v}" for v, n in written.items()) or "none"
    console.print(
        f"twins (voices, conditions): {kept}; {len(dropped)} dropped by QC",
        highlight=False,
        markup=False,
    )
    for d in dropped:
        console.print(f"  twin dropped {d}", highlight=False, markup=False)
