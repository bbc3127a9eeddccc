"""`paraudit demo --dimension NAME|all`: the offline demo audit for one dimension or every one.

Per dimension, in OUT/NAME/: a small stratified starter subset of `--limit` items (emotion:
half single-turn, half positional, from the quick demo's stratified subset; another
dimension: half with each value in branch 0, spread over its bundled texts), built with the
dimension's own renderer and QC; an audit of four built-in judges on every probe, protocol
and cue — builtin:random, builtin:first, builtin:transcript and the dimension's acoustic
judge (builtin:prosody for emotion, builtin:NAME for the others: judges/builtin/listeners);
and its report. Every path is checked before anything is rendered; a valid set already there
is reused. The closing block names each dimension's verdict per judge and the commands to go
on with.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.markup import escape

from paraudit.cli.common import console
from paraudit.dimensions import registry
from paraudit.items.records import DEFAULT_DIMENSION
from paraudit.stats.verdicts import SMALL_SAMPLE

BASE_JUDGES = ("builtin:random", "builtin:first", "builtin:transcript")
ALL = "all"
PARTS = ("starter", "run", "report")


@dataclass(frozen=True)
class DimensionDemo:
    """What one dimension's part of the demo wrote, for the closing block."""

    name: str
    dataset: Path
    report: Path
    """report.html."""
    verdicts: tuple[tuple[str, str, str, int], ...]
    """(judge, task, diagnosis, items) per verdict of the report, in the demo's judge order."""
    small: bool
    """Some verdict rests on too few items to be more than a sketch (the report says which)."""


def wanted(name: str) -> list[str]:
    """The dimensions `--dimension` names: 'all' is emotion and every dimension with bundled
    starter texts and an acoustic judge; an unknown name is one line naming the closest
    (registry.get), and a dimension without a bundled set one line saying what to do instead,
    before anything runs."""
    from paraudit.judges.builtin.listeners import LISTENERS

    if name == ALL:
        return [DEFAULT_DIMENSION, *(n for n in registry.names() if n in LISTENERS)]
    got = registry.get(name).name
    if got != DEFAULT_DIMENSION and got not in LISTENERS:
        raise registry.DimensionError(
            f"--dimension {got} has no bundled starter set or acoustic built-in judge to demo: "
            f"build its set with its own texts and audit it with `paraudit run`"
        )
    return [got]


def parts_of(name: str) -> tuple[str, str, str]:
    """OUT-relative folders of one dimension's starter set, run and report."""
    return (f"{name}/starter", f"{name}/run", f"{name}/report")


def judges_for(name: str) -> list[str]:
    from paraudit.judges.builtin.listeners import judge_for

    return [*BASE_JUDGES, judge_for(name)]


def build(name: str, dataset: Path, limit: int, cache: Path | None) -> None:
    if name == DEFAULT_DIMENSION:
        from paraudit.cli.build import run_build
        from paraudit.compose.starter import quick_ids

        # build starter's --limit is per task: half the items single-turn, half positional.
        run_build(dataset, max(1, limit // 2), None, cache, quick_ids())
        return
    from paraudit.builders.dimension_starter import quick_dimension_ids
    from paraudit.cli.build_dimension import run_dimension_build

    dim = registry.get(name)
    registry.renderer(dim)  # a missing extra: one line naming it (checked again per name)
    run_dimension_build(dim, dataset, None, None, cache, 0, ids=quick_dimension_ids(dim, limit))


def read_verdicts(name: str, dataset: Path, report_dir: Path) -> DimensionDemo:
    raw = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))
    order = judges_for(name)
    verdicts = sorted(
        raw["verdicts"],
        key=lambda v: (order.index(v["judge"]) if v["judge"] in order else len(order), v["task"]),
    )
    rows = tuple(
        (str(v["judge"]), str(v["task"]), str(v["diagnosis"]), int(v["items"])) for v in verdicts
    )
    small = any(v.get("small_sample") for v in verdicts)
    return DimensionDemo(name, dataset, report_dir / "report.html", rows, small)


def summary_lines(done: list[DimensionDemo]) -> list[str]:
    """The closing summary: per dimension its item count and each judge's diagnosis (the
    task named where a dimension has more than one), then where its report is."""
    lines = ["verdicts per dimension (diagnosis per judge; each report explains them):"]
    for d in done:
        tasks = sorted({t for _, t, _, _ in d.verdicts})
        items = {t: n for _, t, _, n in d.verdicts}
        counted = " + ".join(f"{items[t]} {t.rsplit('-', 1)[0]}" for t in tasks)
        sketch = f" (a sketch: under {SMALL_SAMPLE} items)" if d.small else ""
        lines.append(f"  {d.name}: {counted} items{sketch}")
        width = max(len(j) for j, _, _, _ in d.verdicts)
        for judge, task, diagnosis, _ in d.verdicts:
            # 'single-turn-emotions' → 'single-turn', 'positional-emotion' → 'positional'
            where = f" ({task.rsplit('-', 1)[0]})" if len(tasks) > 1 else ""
            lines.append(f"    {judge:<{width}}  {diagnosis}{where}")
    return lines


def next_block(
    done: list[DimensionDemo], next_lines: Callable[[Path, Path], list[str]]
) -> list[str]:
    """The closing "next" block: your own judge on one dimension's set, the reports, the full
    set of a dimension, the tests — each a command that pastes back as printed. `next_lines`:
    the emotion demo's block (cli/demo.py, which imports this module: passed, not imported)."""
    first = next((d for d in done if d.name != DEFAULT_DIMENSION), done[0])
    lines = next_lines(first.dataset, first.report)
    more = [
        f"  python3 -m webbrowser {shlex.quote(d.report.absolute().as_uri())}   # {d.name}"
        for d in done
        if d is not first
    ]
    full = (
        f"  paraudit build starter --dimension {first.name} --out "
        f"{shlex.quote(f'ds-{first.name}')}   # the full {first.name} set"
    )
    return [*lines[:-1], *more, full, lines[-1]]


def print_lines(lines: list[str], prose: bool = False) -> None:
    """Commands whole (they paste back as printed); prose wrapped at spaces only."""
    from paraudit.cli.verdicts import wrap

    for line in lines:
        for part in wrap(line, console.width) if prose else [line]:
            console.print(escape(part), highlight=False, soft_wrap=True)
