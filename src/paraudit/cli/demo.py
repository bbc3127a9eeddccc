"""`paraudit demo --out DIR`: build (or reuse) the starter set and audit the built-in judges
(builtin:prosody both with its clips separate and joined, compared after the verdicts)."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import typer
from rich.markup import escape

from paraudit.cli.build import run_build
from paraudit.cli.common import check_folder, console, err_console, stoppable, user_errors
from paraudit.cli.joined import print_joined
from paraudit.cli.outputs import refuse_inside_dataset, refuse_inside_run
from paraudit.cli.run import execute, print_summary
from paraudit.cli.verdicts import (
    print_first_verdicts,
    print_null_audio,
    print_report_path,
    print_verdicts,
)
from paraudit.compose.starter import quick_ids
from paraudit.dimensions.registry import DimensionError
from paraudit.errors import ParauditError
from paraudit.items.dataset import MANIFEST, foreign_entries, refuse_foreign
from paraudit.items.guard import OutputLock, guard_output, is_dataset, is_run
from paraudit.items.validate import dataset_errors
from paraudit.protocols.instances import CUES, PROBES, PROTOCOLS
from paraudit.report.build import summary_of, write_report
from paraudit.runfolder.names import RUN_JSON
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig

DEMO_JUDGES = ["builtin:random", "builtin:first", "builtin:transcript", "builtin:prosody"]
FIRST_JUDGE = "builtin:prosody"
"""Asked first in a fresh demo, its verdicts printed before the others are asked: the judge
under audit (the others are controls), the first line of the verdicts in attention order."""
JOINED_JUDGE = "builtin:prosody?clips=joined"
"""builtin:prosody audited again with its clips joined into one (README "Real judges")."""
QUICK = ("starter", "run", "report")
"""The default demo's folders in OUT: the stratified subset (compose.starter.quick_ids)."""
FULL = ("starter-full", "run-full", "report-full")
"""--full: every starter item, beside the quick demo's folders (neither replaces the other)."""


def check_demo_folder(
    out: Path, cache: Path | None, force: bool, parts: tuple[str, ...] = QUICK
) -> bool:
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
    for part in parts:
        guard_output(out / part, "--out")
    for part in parts:
        if (out / part).exists() and not (out / part).is_dir():
            raise ParauditError(f"{out / part} is a file; move it away or choose another --out")
    if cache is not None:
        check_folder(cache, "--cache")
    dataset = out / parts[0]
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
    full: bool = typer.Option(
        False,
        "--full",
        help="Every starter item (82; OUT/starter-full, run-full, report-full) instead of the "
        "quick stratified 28 (4 per single-turn pair, 12 dialogues).",
    ),
    dimension: str | None = typer.Option(
        None,
        "--dimension",
        metavar="NAME",
        help="Audit one dimension's small starter subset (`paraudit dimensions`), or `all`: "
        "each in OUT/NAME/, with its acoustic built-in judge.",
    ),
    limit: int = typer.Option(
        8,
        "--limit",
        min=1,
        max=40,
        metavar="N",
        help="With --dimension: items per dimension (emotion: half single-turn, half positional).",
    ),
) -> None:
    """The offline demo audit: starter set × four built-in judges × every probe and cue (and
    builtin:prosody again with its clips joined), ending with the diagnostic report."""
    if dimension is not None:
        if full:  # a usage mistake, exit 2 like every --dimension mistake
            raise DimensionError("--full is the emotion demo's; with --dimension use --limit N")
        demo_dimensions(out, cache, force, dimension, limit)
        return
    parts = FULL if full else QUICK
    dataset, run_dir, report_dir = (out / p for p in parts)
    if check_demo_folder(out, cache, force, parts):
        console.print(f"reusing {escape(str(dataset))}", highlight=False, soft_wrap=True)
    else:
        # One demo per --out; Ctrl-C or SIGTERM stops the render workers at once (the run
        # after it has its own lock and resumes from its calls).
        note = f"nothing was written to {dataset}; renders made so far are cached: rerun to resume"
        which = "every starter item" if full else "the quick stratified subset; --full: all"
        stage(f"building the starter set ({which}; Piper + Praat; cached renders are reused)")
        with OutputLock(out, "--out"), stoppable(note):
            run_build(dataset, None, None, cache, None if full else quick_ids())
    plan = PlanSpec(probes=PROBES, protocols=PROTOCOLS, cues=CUES)
    judges = [*DEMO_JUDGES, JOINED_JUDGE]
    if not (run_dir / RUN_JSON).exists():
        # A fresh run: the judge under audit alone first and its verdicts at once, then the
        # controls added to the same run (--extend asks only their calls). The first verdict
        # comes about a minute earlier than after all five judges and the report.
        stage(f"auditing {FIRST_JUDGE} on every probe, protocol and cue")
        execute(RunConfig(dataset, [FIRST_JUDGE], run_dir, plan, concurrency=16))
        print_first_verdicts(summary_of([run_dir]), len(judges) - 1)
    stage(f"auditing the other built-in judges ({len(judges)} in all) in the same run")
    outcome = execute(RunConfig(dataset, judges, run_dir, plan, concurrency=16, extend=True))
    if table:
        print_summary(outcome.table)
    runs = [run_dir]
    if annotators:  # a simulated "human" row through the real listening-test app
        from paraudit.annotate.simulate import demo_humans

        runs.append(demo_humans(dataset, out, annotators))
    stage("writing the report (item-level bootstrap)")
    report = write_report(runs, report_dir)
    print_verdicts(report_dir)
    print_null_audio(report_dir)
    print_joined(report_dir)
    print_report_path(report)
    for line in next_lines(dataset, report):
        console.print(escape(line), highlight=False, soft_wrap=True)  # commands: never broken


def demo_dimensions(out: Path, cache: Path | None, force: bool, name: str, limit: int) -> None:
    """`--dimension NAME|all` (cli/demo_dimensions.py): per dimension a small subset, four
    built-in judges, a report; then the verdicts per dimension and the next block."""
    from paraudit.cli import demo_dimensions as dd

    names = dd.wanted(name)
    reuse = {n: check_demo_folder(out, cache, force, dd.parts_of(n)) for n in names}
    done = []
    for k, n in enumerate(names, start=1):
        dataset, run_dir, report_dir = (out / p for p in dd.parts_of(n))
        judges = dd.judges_for(n)
        # A progress line per step, terminal or not: a multi-dimension demo runs for minutes.
        console.print(escape(f"[{k}/{len(names)}] {n}"), style="bold", highlight=False)
        if reuse[n]:
            console.print(f"reusing {escape(str(dataset))}", highlight=False, soft_wrap=True)
        else:
            note = f"nothing was written to {dataset}; renders made so far are cached: rerun"
            stage(f"{n}: building its subset (its renderer and QC; cached renders reused)")
            with OutputLock(out, "--out"), stoppable(note):
                dd.build(n, dataset, limit, cache)
        stage(f"{n}: auditing {', '.join(judges)} on every probe, protocol and cue")
        plan = PlanSpec(probes=PROBES, protocols=PROTOCOLS, cues=CUES)
        execute(RunConfig(dataset, judges, run_dir, plan, concurrency=16))
        stage(f"{n}: writing the report (item-level bootstrap)")
        write_report([run_dir], report_dir)
        done.append(dd.read_verdicts(n, dataset, report_dir))
    dd.print_lines(dd.summary_lines(done), prose=True)
    dd.print_lines(dd.next_block(done, next_lines))


def stage(what: str) -> None:
    """Where stdout is not a terminal (a log, CI) there is no live bar: say what starts."""
    if not console.is_terminal:
        err_console.print(f"demo: {escape(what)}", highlight=False)


def next_lines(dataset: Path, report: Path) -> list[str]:
    """The closing "next" block: audit your own judge, open the report, run the tests — each a
    command that pastes back as printed. When the running `paraudit` is not the one on the
    PATH (scripts/demo.sh installs into .venv), the block says how to put it there first."""
    lines = ["next:"]
    here = Path.cwd()
    bindir = Path(sys.prefix) / "bin"
    found = shutil.which("paraudit")
    if sys.prefix != sys.base_prefix and (found is None or Path(found).parent != bindir):
        activate = bindir / "activate"
        if activate.is_relative_to(here):
            activate = activate.relative_to(here)
        lines.append(f"  source {shlex.quote(str(activate))}   # puts paraudit on the PATH")
    judge = shlex.quote("openai:MODEL@http://127.0.0.1:8000/v1")
    lines.append(
        f"  paraudit run {shlex.quote(str(dataset))} --judge {judge} --out runs/mine "
        "--report report-mine   # your judge (any OpenAI-compatible server)"
    )
    url = shlex.quote(report.absolute().as_uri())
    lines.append(f"  python3 -m webbrowser {url}   # open the report")
    lines.append("  bash scripts/test.sh   # run the tests (from the repository's root)")
    return lines
