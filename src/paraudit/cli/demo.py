"""`paraudit demo --out DIR`: build (or reuse) the starter set and audit the built-in judges
(builtin:prosody both with its clips separate and joined, compared after the verdicts)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from paraudit.cli.build import run_build
from paraudit.cli.common import check_folder, console, stoppable, user_errors
from paraudit.cli.joined import print_joined
from paraudit.cli.outputs import refuse_inside_dataset, refuse_inside_run
from paraudit.cli.run import execute, print_summary
from paraudit.cli.verdicts import print_null_audio, print_report_path, print_verdicts
from paraudit.errors import ParauditError
from paraudit.items.dataset import MANIFEST, foreign_entries, refuse_foreign
from paraudit.items.guard import OutputLock, guard_output, is_dataset, is_run
from paraudit.items.validate import dataset_errors
from paraudit.protocols.instances import CUES, PROBES, PROTOCOLS
from paraudit.report.build import write_report
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig

DEMO_JUDGES = ["builtin:random", "builtin:first", "builtin:transcript", "builtin:prosody"]
JOINED_JUDGE = "builtin:prosody?clips=joined"
"""builtin:prosody audited again with its clips joined into one (README "Real judges")."""
PARTS = ("starter", "run", "report")


def check_demo_folder(out: Path, cache: Path | None, force: bool) -> bool:
    """Every path the demo writes, checked before any rendering; True if the starter set there
    can be reused. An invalid starter set is only rebuilt with --force."""
    check_folder(out, "--out")
    refuse_inside_dataset(out, "--out")
    refuse_inside_run(out, "--out")
    # The demo writes below --out: a dataset or run folder given as --out is refused too (the
    # checks above look only at the folders around --out).
    for kind, found in (("a dataset", is_dataset(out)), ("a run folder", is_run(out))):
        if found:
            raise ParauditError(
                f"--out {out} is {kind}; the demo writes its own starter/, run/ and report/ "
                "inside --out: choose a new folder"
            )
    for part in PARTS:
        guard_output(out / part, "--out")
        if (out / part).exists() and not (out / part).is_dir():
            raise ParauditError(f"{out / part} is a file; move it away or choose another --out")
    if cache is not None:
        check_folder(cache, "--cache")
    dataset = out / "starter"
    if not dataset.exists() or not any(dataset.iterdir()):
        return False
    if not (dataset / MANIFEST).is_file():
        raise ParauditError(
            f"{dataset} holds files that are not a dataset; move them away or choose another --out"
        )
    errors = dataset_errors(dataset)
    if not errors:
        return True
    if not force:
        raise ParauditError(
            f"{dataset} is not a valid dataset ({errors[0]}); pass --force to rebuild it, "
            "or choose another --out"
        )
    refuse_foreign(dataset, foreign_entries(dataset), "dataset")  # a rebuild replaces the folder
    return False


@user_errors
def demo(
    out: Path = typer.Option(
        Path("demo-out"), "--out", metavar="DIR", help="Folder for the dataset and the run."
    ),
    cache: Path | None = typer.Option(None, "--cache", metavar="DIR", help="Render cache folder."),
    annotators: int = typer.Option(
        0,
        "--annotators",
        min=0,
        metavar="N",
        help="Also simulate N listeners (paraudit[annotate]).",
    ),
    force: bool = typer.Option(
        False, "--force", help="Rebuild OUT/starter when it is not a valid dataset."
    ),
    table: bool = typer.Option(
        False, "--table", help="Also print the per-cell accuracy table before the verdicts."
    ),
) -> None:
    """The offline demo audit: starter set × four built-in judges × every probe and cue (and
    builtin:prosody again with its clips joined), ending with the diagnostic report."""
    dataset = out / "starter"
    if check_demo_folder(out, cache, force):
        console.print(f"reusing {escape(str(dataset))}", highlight=False)
    else:
        # One demo per --out; Ctrl-C or SIGTERM stops the render workers at once (the run
        # after it has its own lock and resumes from its calls).
        note = f"nothing was written to {dataset}; renders made so far are cached: rerun to resume"
        with OutputLock(out, "--out"), stoppable(note):
            run_build(dataset, None, None, cache)
    plan = PlanSpec(probes=PROBES, protocols=PROTOCOLS, cues=CUES)
    judges = [*DEMO_JUDGES, JOINED_JUDGE]
    outcome = execute(RunConfig(dataset, judges, out / "run", plan, concurrency=16))
    if table:
        print_summary(outcome.table)
    runs = [out / "run"]
    if annotators:  # a simulated "human" row through the real listening-test app
        from paraudit.annotate.simulate import demo_humans

        runs.append(demo_humans(dataset, out, annotators))
    report = write_report(runs, out / "report")
    print_verdicts(out / "report")
    print_null_audio(out / "report")
    print_joined(out / "report")
    print_report_path(report)
