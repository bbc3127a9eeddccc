"""`paraudit compare RUN_A RUN_B`: regression test of a judge across versions or datasets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from paraudit.cli.common import console, fail, user_errors, warn
from paraudit.cli.help import OUTPUT, STATS
from paraudit.cli.outputs import check_output_file, json_kind, marked_json, write_output_file
from paraudit.cli.run_checks import check_replicates, check_seed
from paraudit.errors import ParauditError
from paraudit.report.build import load_runs
from paraudit.runfolder.spec import run_dataset
from paraudit.stats.compare import compare_runs, resolve_pair

COMPARE_JSON = json_kind("comparison JSON", "compare")
WHAT = "What to compare"  # a --help panel (cli/help.py)


@user_errors
def compare(
    run_a: Path = typer.Argument(..., help="Baseline run folder."),
    run_b: Path = typer.Argument(..., help="Candidate run folder."),
    out: Path | None = typer.Option(
        None,
        "--out",
        metavar="FILE",
        help="Also write the comparison as JSON.",
        rich_help_panel=OUTPUT,
    ),
    replicates: int = typer.Option(
        10_000, min=100, metavar="N", help="Bootstrap replicates.", rich_help_panel=STATS
    ),
    seed: int = typer.Option(0, metavar="N", help="Bootstrap seed.", rich_help_panel=STATS),
    renderings: bool = typer.Option(
        False,
        "--renderings",
        help="Dataset-level: the same items in two renderings (e.g. TTS vs source recordings);"
        " Spearman rho of each judge's (P,O,J) state profile.",
        rich_help_panel=WHAT,
    ),
    force: bool = typer.Option(
        False, "--force", help="Replace an earlier comparison at --out.", rich_help_panel=OUTPUT
    ),
    generators: bool = typer.Option(
        False,
        "--generators",
        help="Generator bias (paper §5.3): the same judges on two sets composed from the same "
        "source records by two generators; J accuracy per set, ranking τ/ρ, and whether a "
        "judge family gains more on its own family's set than the other judges.",
        rich_help_panel=WHAT,
    ),
    judge: list[str] = typer.Option(
        [],
        "--judge",
        metavar="A=B",
        rich_help_panel=WHAT,
        help="LABEL_A=LABEL_B: compare judge LABEL_A of RUN_A with LABEL_B of RUN_B (repeatable;"
        " default: judges of the same name, or the only judge of each run).",
    ),
) -> None:
    """Per probe, at item level: paired bootstrap of the change and an exact McNemar test on
    per-item order-consistent outcomes; state shifts and state correlations."""
    check_replicates(replicates)
    check_seed(seed)
    if out is not None:
        check_output_file(out, option="--out", force=force, kind=COMPARE_JSON)
    check_two_runs(run_a, run_b)
    if renderings and generators:
        raise fail("--renderings and --generators are two different checks: give one", 2)
    if generators:
        if judge:
            raise fail(
                "--generators compares the judges of the same name in both runs: drop --judge", 2
            )
        from paraudit.cli.compare_generators import generators_check

        generators_check(run_a, run_b, out, replicates, seed)
        return
    if renderings:
        if judge:
            raise fail(
                "--judge pairs judges for the item-level comparison; --renderings compares "
                "the judges of the same name in both runs: drop one of them"
            )
        _renderings(run_a, run_b, out)
        return
    dataset_a, dataset_b = run_dataset(run_a), run_dataset(run_b)
    if dataset_a and dataset_b and dataset_a != dataset_b:
        warn(
            f"the runs audited different datasets ({dataset_a} vs {dataset_b}); items are "
            "paired by id, so the tests only mean something if the ids name the same items"
        )
    rows_a, rows_b = load_runs([run_a]), load_runs([run_b])
    for run, rows in ((run_a, rows_a), (run_b, rows_b)):
        if not len(rows):
            # Else "share no judge name": true, but the cause is a run with no answers at all.
            raise fail(
                f"{run} has no result rows (its results.jsonl is empty: the run asked nothing "
                "or was stopped before its first row); finish that run, then compare"
            )
    names = (str(run_a), str(run_b))
    given = [resolve_pair(text, rows_a, rows_b, names) for text in judge] or None
    result = compare_runs(rows_a, rows_b, replicates=replicates, seed=seed, pairs=given)
    if not result["state_shift"]:
        raise fail(
            "no judge to compare: the runs share no judge name and hold several judges; "
            "pair them with --judge LABEL_A=LABEL_B"
        )
    if not result["probes"]:
        raise fail("the compared judges answered no probe and protocol in both runs")
    # Judge pairs by key (legend below) and short columns: readable in 80 columns.
    pairs = {p: f"C{n}" for n, p in enumerate(dict.fromkeys(
        (m["judge_a"], m["judge_b"]) for m in result["probes"]), 1)}  # fmt: skip
    table = Table(
        title="per probe, item level: order-consistent accuracy, B − A with a paired item "
        "bootstrap 95 % CI, exact McNemar test on items",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
    )
    for col in ("", "pr", "prot", "n", "A", "B", "B − A [95% CI]", "A+", "B+", "p"):
        table.add_column(col, no_wrap=True, justify="left" if col == "prot" else "right")

    def pct(x: float | None) -> str:
        return "–" if x is None else f"{x:.1%}"

    for m in result["probes"]:
        diff = (
            "–"
            if m["delta"] is None
            else f"{m['delta']:+.1%} [{m['ci_low'] * 100:+.1f}, {m['ci_high'] * 100:+.1f}]"
        )
        table.add_row(
            pairs[(m["judge_a"], m["judge_b"])],
            m["probe"],
            m["protocol"][:5],
            str(m["items"]),
            pct(m["accuracy_a"]),
            pct(m["accuracy_b"]),
            diff,
            str(m["a_better"]),
            str(m["b_better"]),
            f"{m['p_value']:.2g}",
        )
    console.print(table)
    for (ja, jb), key in pairs.items():
        console.print(escape(f"{key}: A = {ja} · B = {jb}"), highlight=False, soft_wrap=True)
    _unmatched(rows_a, rows_b, pairs, names)
    console.print(
        "pr: probe · n: items · A, B: order-consistent accuracy · A+/B+: items right in A only "
        "/ in B only",
        highlight=False,
    )
    for name, shift in result["state_shift"].items():
        if "refused" in shift:
            console.print(escape(f"state shifts {name}: not compared: {shift['refused']}"),
                          highlight=False)  # fmt: skip
            continue
        moved = (
            ", ".join(f"{s} {v:+.1%}" for s, v in shift["shift"].items() if abs(v) >= 0.005)
            or "none"
        )
        console.print(f"state shifts {name} (on {shift['shared_items']} shared items): {moved}",
                      highlight=False)  # fmt: skip
    c = result["state_correlation"]
    if c["spearman"] is not None:
        console.print(
            f"state proportions: Spearman {c['spearman']:.3f}, Pearson {c['pearson']:.3f} "
            f"({c['points']} points, {c['shared_items']} shared items)"
        )
    if out:
        write_output_file(out, marked_json(result, "compare"))


def _unmatched(
    rows_a: list[Any], rows_b: list[Any], pairs: dict[tuple[str, str], str], names: tuple[str, str]
) -> None:
    """Judges of either run left out of every pair are named (they were once dropped
    silently, so a comparison of two judges of four read as the whole story)."""
    used_a = {a for a, _ in pairs}
    used_b = {b for _, b in pairs}
    for run, rows, used in ((names[0], rows_a, used_a), (names[1], rows_b, used_b)):
        left = sorted({r.judge for r in rows} - used)
        if left:
            warn(
                f"{run}: judge{'s' if len(left) > 1 else ''} {', '.join(left)} not compared "
                "(no judge of that name in the other run); pair them with --judge A=B"
            )


def check_two_runs(run_a: Path, run_b: Path) -> None:
    """Two different runs: a run compared with itself only ever shows 'no change'."""
    if run_a.exists() and run_b.exists() and run_a.samefile(run_b):
        raise ParauditError(
            f"{run_a} and {run_b} are the same run; compare two different run folders"
        )


def fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def _renderings(run_a: Path, run_b: Path, out: Path | None) -> None:
    from paraudit.stats.dataset_compare import compare_renderings

    result = compare_renderings(load_runs([run_a]), load_runs([run_b]))
    if not result["shared_items"]:
        raise fail("the runs share no item: compare runs on two renderings of the same items")
    if not result["judges"]:
        raise fail("no judge has (P,O,J) states in both runs (run probes J, P and O)")
    console.print(renderings_table(result))
    p = result["pooled"]
    console.print(
        f"pooled over judges: Spearman {fmt(p.get('spearman'))}, Pearson {fmt(p.get('pearson'))}"
        f" ({p['points']} points)"
    )
    if out:
        write_output_file(out, marked_json(result, "compare"))


def renderings_table(result: dict[str, Any]) -> Table:
    """One row per judge; the judge column is never cut ("builtin:p…") and the number columns
    are short, so the table fits 80 columns with every name whole."""
    table = Table(
        title=f"state profiles, same {result['shared_items']} items in two renderings "
        f"(A has {result['items_a']}, B has {result['items_b']}); n: instances, ρ: Spearman, "
        "r: Pearson, TV: total-variation distance",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
    )
    longest = max((len(j["judge"]) for j in result["judges"]), default=5)
    table.add_column("judge", no_wrap=True, min_width=longest)
    for col in ("n A", "n B", "ρ", "r", "slope", "TV"):
        table.add_column(col, justify="right", no_wrap=True)
    for j in result["judges"]:
        table.add_row(
            j["judge"],
            str(j["instances_a"]),
            str(j["instances_b"]),
            fmt(j["spearman"]),
            fmt(j["pearson"]),
            fmt(j["slope"]),
            fmt(j["tv_distance"]),
        )
    return table
