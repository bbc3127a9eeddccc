"""`paraudit report RUN_DIR [RUN_DIR …] --out DIR`."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import typer
from rich.markup import escape

from paraudit.cli.common import console, fail, stoppable, user_errors, warn
from paraudit.cli.help import OUTPUT, STATS
from paraudit.cli.outputs import refuse_inside_dataset
from paraudit.cli.run_checks import check_replicates, check_seed
from paraudit.items.guard import OutputLock, is_run
from paraudit.runfolder.labels import run_labels
from paraudit.runfolder.rows import iter_rows
from paraudit.runfolder.spec import run_dataset


def unanswered_j(runs: list[Path]) -> str | None:
    """Why there is nothing to report, when J was asked and never answered: a report of such a
    run once said "run the J probe" and exited 0 although every J call had failed."""
    asked = answered = 0
    status: Counter[str] = Counter()
    for run in runs:
        for row in iter_rows(run):
            if row.probe == "J":
                asked += 1
                answered += row.status == "ok"
                status[row.status] += 1
    if not asked or answered:
        return None
    if status["error"] == asked:
        why = f"every J call failed: {asked:,} errors"
    else:
        why = "no J question got an answer: " + ", ".join(
            f"{n:,} {s}" for s, n in sorted(status.items())
        )
    where = " ".join(str(r) for r in runs)
    return (
        f"nothing to report for {where} ({why}); rerun 'paraudit run' with the same --out to "
        "ask the failed calls again, then report"
    )


@user_errors
def report(
    runs: list[Path] = typer.Argument(..., help="Run folders (written by 'paraudit run')."),
    out: Path = typer.Option(
        ..., "--out", metavar="DIR", help="Report folder.", rich_help_panel=OUTPUT
    ),
    label: list[str] = typer.Option(
        [],
        "--label",
        metavar="NAME",
        rich_help_panel=OUTPUT,
        help="A name per run, in order (default: the shortest path parts that tell runs apart).",
    ),
    replicates: int = typer.Option(
        10_000, min=100, metavar="N", help="Bootstrap replicates.", rich_help_panel=STATS
    ),
    seed: int = typer.Option(0, metavar="N", help="Bootstrap seed.", rich_help_panel=STATS),
) -> None:
    """Write the diagnostic report (HTML, Markdown, JSON, CSV, LaTeX, figures)."""
    check_replicates(replicates)
    check_seed(seed)
    run_labels(list(runs), label or None)  # runs listed twice, bad labels: before any output
    if out.exists() and not out.is_dir():
        raise fail(f"--out {out} is a file; pass a folder for the report")
    # The runs are the report's inputs: a report folder over or inside one would destroy it.
    refuse_inside_dataset(out, "--out", [r for r in runs if is_run(r)])
    parent = next((p for p in [out, *out.parents] if p.exists()), None)
    if parent is not None and not os.access(parent, os.W_OK | os.X_OK):
        raise fail(f"--out {out}: {parent} is not writable; pass a folder you can write")
    if (out / "card.json").is_file():
        # A card folder holds a summary.json too: refreshing it "in place" broke the card.
        raise fail(
            f"--out {out} is an audit card (card.json); a report there would replace the "
            "summary its digests attest: choose a new or empty folder"
        )
    if out.is_dir() and any(out.iterdir()) and not (out / "summary.json").is_file():
        # An earlier report is refreshed in place; any other folder is never written into.
        raise fail(
            f"--out {out} is not empty and holds no earlier report (no summary.json); "
            "choose a new or empty folder"
        )
    datasets = {run: run_dataset(run) for run in runs}
    known = {d for d in datasets.values() if d}
    if len(known) > 1:
        warn(
            "the runs audited different datasets ("
            + "; ".join(f"{r}: {d}" for r, d in datasets.items() if d)
            + "): their figures are shown side by side, but items are not the same"
        )
    unanswered = unanswered_j(list(runs))
    if unanswered is not None:
        raise fail(unanswered)
    # Imported here: the statistics stack (scipy, matplotlib) loads only for the report.
    from paraudit.report.build import write_report

    note = f"{out} may hold part of the report; rerun the same command to write it whole"
    with OutputLock(out, "--out"), stoppable(note):  # one report at a time per folder
        path = write_report(list(runs), out, replicates=replicates, seed=seed, labels=label or None)
    console.print(f"[green]✓[/] report → {escape(str(path))}", soft_wrap=True)
