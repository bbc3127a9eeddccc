"""`paraudit compare RUN_A RUN_B --generators`: the generator-bias check (stats.generator_bias)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table

from paraudit.cli.common import console, warn
from paraudit.cli.outputs import marked_json, write_output_file
from paraudit.report.build import load_runs
from paraudit.stats.generator_bias import generator_check, points, ranking_line, read_set


def _acc(e: dict[str, float | None]) -> str:
    v, lo, hi = e["value"], e["ci_low"], e["ci_high"]
    if v is None or lo is None or hi is None:
        return "–"
    return f"{v * 100:.0f} [{lo * 100:.0f},{hi * 100:.0f}]"


def cell_table(cell: dict[str, Any], result: dict[str, Any]) -> Table:
    g = result["generators"]
    table = Table(
        title=f"{cell['task']} · {cell['protocol']} · cue {cell['cue']}: J accuracy % with "
        "95 % intervals, B − A in points; A = "
        f"{g['a']['family']}-composed ({cell['sources_a']} sources), B = {g['b']['family']}-"
        f"composed ({cell['sources_b']}); {cell['shared_sources']} sources in both (paired)",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
        title_justify="left",
    )
    longest = max((len(j["judge"]) for j in cell["judges"]), default=5)
    table.add_column("judge", no_wrap=True, min_width=longest)
    for col in ("family", "A", "B", "B − A"):
        table.add_column(col, justify="right", no_wrap=True)
    for j in cell["judges"]:
        table.add_row(
            j["judge"], j["family"] or "–", _acc(j["accuracy_a"]), _acc(j["accuracy_b"]),
            points(j["difference"], ","),
        )  # fmt: skip
    return table


def generators_check(
    run_a: Path, run_b: Path, out: Path | None, replicates: int, seed: int
) -> None:
    set_a, set_b = read_set(run_a, "A"), read_set(run_b, "B")
    result = generator_check(
        load_runs([run_a]), load_runs([run_b]), set_a, set_b, replicates=replicates, seed=seed
    )
    g = result["generators"]
    console.print(
        f"generator bias: A = {g['a']['spec']} ({g['a']['family']}), B = {g['b']['spec']} "
        f"({g['b']['family']}); {result['shared_sources']} source records in both sets "
        f"(A has {result['sources_a']}, B has {result['sources_b']}); intervals: "
        f"{replicates} bootstrap replicates of source records",
        highlight=False,
        soft_wrap=True,
    )
    if result["same_family"]:
        warn(
            f"both sets were composed by the {g['a']['family']} family: accuracy and ranking "
            "are compared, but there is no generator interaction to test"
        )
    else:
        for name, s in g.items():
            if s["family"] == "unknown":
                warn(
                    f"set {name.upper()}'s generator {s['spec']} is of no family paraudit knows "
                    "(paraudit.specs.FAMILIES): no interaction test for it"
                )
        for family in dict.fromkeys(s["family"] for s in g.values()):
            if family != "unknown" and family not in result["judges"].values():
                console.print(
                    f"no {family} judge in the runs: no interaction test for the "
                    f"{family}-composed set",
                    highlight=False,
                )
    if not result["cells"]:
        warn("no task × protocol × cue has probe J answers in both runs")
    for cell in result["cells"]:
        console.print(cell_table(cell, result))
        console.print(
            f"  {ranking_line(cell['ranking'])}",
            highlight=False,
            soft_wrap=True,
        )
        for line in cell["interaction"]:
            console.print(f"  {line['line']}", highlight=False, soft_wrap=True)
    if out:
        # Marked like every compare output, so a later --force recognises it as its own.
        write_output_file(out, marked_json(result, "compare"))
