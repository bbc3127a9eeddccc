"""`paraudit demo --out DIR`: build (or reuse) the starter set and audit the built-in judges."""

from __future__ import annotations

from pathlib import Path

import typer

from paraudit.cli.build import run_build
from paraudit.cli.common import console, user_errors
from paraudit.cli.run import execute, print_summary
from paraudit.items.validate import validate_dataset
from paraudit.protocols.instances import CUES, PROBES, PROTOCOLS
from paraudit.report.build import write_report
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig

DEMO_JUDGES = ["builtin:random", "builtin:first", "builtin:transcript", "builtin:prosody"]


@user_errors
def demo(
    out: Path = typer.Option(Path("demo-out"), "--out", help="Folder for the dataset and the run."),
    cache: Path | None = typer.Option(None, "--cache", help="Render cache folder."),
    annotators: int = typer.Option(
        0, "--annotators", min=0, help="Also simulate N listeners (paraudit[annotate])."
    ),
) -> None:
    """The offline demo audit: starter set × four built-in judges × every probe and cue,
    ending with the diagnostic report."""
    dataset = out / "starter"
    if dataset.exists() and not validate_dataset(dataset):
        console.print(f"reusing {dataset}")
    else:
        run_build(dataset, None, None, cache)
    plan = PlanSpec(probes=PROBES, protocols=PROTOCOLS, cues=CUES)
    rows = execute(RunConfig(dataset, DEMO_JUDGES, out / "run", plan, concurrency=16))
    print_summary(rows)
    runs = [out / "run"]
    if annotators:  # a simulated "human" row through the real listening-test app
        from paraudit.annotate.simulate import demo_humans

        runs.append(demo_humans(dataset, out, annotators))
    report = write_report(runs, out / "report")
    console.print(f"[green]✓[/] diagnostic report → {report}")
