"""What a registered analysis's report part may read (stats/analysis.py's `report`)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

from paraudit.stats.analysis import Analysis
from paraudit.stats.summary_model import Summary

Part = tuple[str, str, str, str]
"""html.render's collapsed section: anchor, title, note, body."""


@dataclass(frozen=True)
class ReportContext:
    summary: Summary
    out: Path
    """The report folder (tables go under out/tables)."""
    figdir: Path
    run_dirs: tuple[Path, ...] = ()
    groups: Any = None
    """The runs' RowGroups (stats/rowgroups.py), for parts that reread rows."""
    replicates: int = 10_000
    seed: int = 0


def render_part(analysis: Analysis, ctx: ReportContext) -> Part | None:
    """The analysis's report part (imported by its dotted name only now: report/ sits above
    stats/, which names it), or None when it has none or its section is empty."""
    if analysis.report is None:
        return None
    module, name = analysis.report.split(":")
    part: Part | None = getattr(import_module(module), name)(ctx)
    return part
