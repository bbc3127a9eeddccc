"""Unique names for the runs a report or comparison reads together."""

from __future__ import annotations

from pathlib import Path

from paraudit.errors import ParauditError

GENERIC = frozenset({"run", "runs", "out", "output", "outputs", "result", "results"})
"""Folder names that say nothing about a run: a label ending in one also names its parent
(the demo's run is 'demo-out/run', not '[run]')."""


def run_labels(run_dirs: list[Path], labels: list[str] | None = None) -> list[str]:
    """One unique label per run: the given ones, or the shortest trailing parts of the paths
    that tell the runs apart (x1/run and x2/run → 'x1/run', 'x2/run'; a generic base name such
    as 'run' always with its parent: demo-out/run and humans → 'demo-out/run', 'humans'). The
    same folder twice
    is refused: its rows would be counted twice."""
    seen: dict[Path, Path] = {}
    for d in run_dirs:
        real = d.resolve()
        if real in seen:
            raise ParauditError(f"run {d} is given twice (as {seen[real]} too); list each run once")
        seen[real] = d
    if labels:
        blank = [n for n, name in enumerate(labels, 1) if not name.strip()]
        if blank:
            # An empty label names its run nowhere (a judge in two runs: 'judge []').
            raise ParauditError(
                f"--label number {blank[0]} is empty; give each run a visible name "
                "(or leave --label out for names from the paths)"
            )
        if len(labels) != len(run_dirs):
            raise ParauditError(
                f"{len(labels)} --label value(s) for {len(run_dirs)} runs; give one per run, "
                "in the same order, or none"
            )
        twice = sorted({x for x in labels if labels.count(x) > 1})
        if twice:
            raise ParauditError(f"--label {', '.join(twice)} is used twice; labels must differ")
        return list(labels)
    parts = [d.resolve().parts for d in run_dirs]
    least = [2 if len(p) > 2 and p[-1].lower() in GENERIC else 1 for p in parts]
    longest = max(len(p) for p in parts)
    for k in range(1, longest + 1):
        names = ["/".join(p[-max(k, m) :]) for p, m in zip(parts, least, strict=True)]
        if len(set(names)) == len(names):
            return names
    return [str(d.resolve()) for d in run_dirs]  # unreachable: resolved paths differ
