"""`paraudit annotate DATASET …` (the listening test) and its companions: annotate-export,
annotate-stats, annotate-simulate. `register(app)` adds all four to the main CLI."""

from __future__ import annotations

import math
import socket
from pathlib import Path

import typer
from rich.markup import escape

from paraudit.annotate.assignment import StudyConfig, parse_annotators
from paraudit.annotate.export import answer_rows, export_csv, export_jsonl, judgments, write_run
from paraudit.annotate.serve import _uvicorn, check_address, is_loopback, serve
from paraudit.annotate.store import AnnotationStore
from paraudit.cli.annotate_checks import (
    STATS_JSON,
    check_export_outputs,
    check_fraction,
    check_study_dataset,
)
from paraudit.cli.common import console, stoppable, user_errors
from paraudit.cli.outputs import (
    check_output_file,
    distinct_outputs,
    locked,
    marked_json,
    refuse_inside_dataset,
    write_output_file,
)
from paraudit.errors import ParauditError
from paraudit.stats.agreement import agreement_summary, item_accuracy

STUDY = "Study design"  # --help panels (cli/help.py)
SERVER = "Store and server"
SIMULATION = "Simulation"
ANNOTATORS = typer.Option(
    ...,
    "--annotators",
    metavar="WHO",
    help="Names 'alice,bob' or a count '5'.",
    rich_help_panel=STUDY,
)
PER = typer.Option(
    50,
    "--per-annotator",
    metavar="N",
    help="Scored stimuli per annotator (own + overlap); repeats and catch items come on top.",
    rich_help_panel=STUDY,
)
OVERLAP = typer.Option(
    10,
    "--overlap",
    metavar="N",
    help="Stimuli every annotator hears (for agreement).",
    rich_help_panel=STUDY,
)
REPEATS = typer.Option(
    3,
    "--repeats",
    metavar="N",
    help="Hidden repeats per annotator (consistency).",
    rich_help_panel=STUDY,
)
CATCH = typer.Option(
    3, "--catch", metavar="N", help="Attention-check items per annotator.", rich_help_panel=STUDY
)
TASKS = typer.Option(
    "",
    "--tasks",
    metavar="LIST",
    help="Comma-separated tasks to draw from (default: all).",
    rich_help_panel=STUDY,
)
SEED = typer.Option(
    0,
    "--seed",
    metavar="N",
    help="Seed of the assignment and response orders.",
    rich_help_panel=STUDY,
)
MIN_LISTEN = typer.Option(
    0.9,
    "--min-listen",
    metavar="X",
    help="Share of a clip's duration that must pass between play and end.",
    rich_help_panel=STUDY,
)
STORE = typer.Option(
    Path("annotations.sqlite"),
    "--store",
    metavar="FILE",
    help="SQLite file of the study.",
    rich_help_panel=SERVER,
)


def progress_text(kinds: dict[str, int]) -> str:
    """'50 scored + 6 checks': --per-annotator counts scored stimuli only, so a bare '0/56'
    beside --per-annotator 50 looked wrong; the hidden repeats and catch items are checks."""
    scored = kinds.get("own", 0) + kinds.get("overlap", 0)
    checks = kinds.get("repeat", 0) + kinds.get("catch", 0)
    return f"{scored} scored + {checks} checks" if checks else f"{scored} scored"


def _config(
    annotators: str,
    per: int,
    overlap: int,
    repeats: int,
    catch: int,
    tasks: str,
    seed: int,
    min_listen: float,
) -> StudyConfig:
    return StudyConfig(
        annotators=parse_annotators(annotators),
        per_annotator=per,
        overlap=overlap,
        repeats=repeats,
        catch=catch,
        tasks=tuple(t.strip() for t in tasks.split(",") if t.strip()),
        seed=seed,
        min_listen=min_listen,
    )


@user_errors
def annotate(
    dataset: Path = typer.Argument(..., help="Dataset folder."),
    annotators: str = ANNOTATORS,
    per_annotator: int = PER,
    overlap: int = OVERLAP,
    repeats: int = REPEATS,
    catch: int = CATCH,
    tasks: str = TASKS,
    seed: int = SEED,
    min_listen: float = MIN_LISTEN,
    store: Path = STORE,
    host: str = typer.Option(
        "127.0.0.1", "--host", metavar="ADDR", help="Address to listen on.", rich_help_panel=SERVER
    ),
    port: int = typer.Option(
        8000, "--port", min=1, max=65535, metavar="N", help="Port.", rich_help_panel=SERVER
    ),
    no_serve: bool = typer.Option(
        False, "--no-serve", help="Create the study, print links, exit.", rich_help_panel=SERVER
    ),
) -> None:
    """Human validation: serve the listening test (native pointwise format) and print one secret
    link per annotator. Rerun the same command to resume after a stop."""
    cfg = _config(annotators, per_annotator, overlap, repeats, catch, tasks, seed, min_listen)
    check_study_dataset(dataset, store)  # as run checks it: before any study is created
    if not no_serve:
        _uvicorn()  # a missing 'annotate' extra: one line, before any link is printed
        check_address(host, port)  # a busy port: one line, before any link is printed
    existed = store.exists()
    st = AnnotationStore.open_or_create(store, dataset, cfg)
    try:
        shown = socket.gethostname() if host in ("0.0.0.0", "::") else host
        base = f"http://{shown}:{port}"
        verb = "resuming" if existed else "created"
        console.print(f"{verb} study {escape(str(store))}", highlight=False, soft_wrap=True)
        console.print("annotator links (secret: give each person only their own):")
        for name, token in st.annotators():
            done, _ = st.count(name)
            progress = f"{done} of {progress_text(st.kinds(name))}"
            # One logical line (soft-wrapped): a link copied from the terminal stays whole.
            console.print(
                f"  {escape(name)}  ({progress})  {base}/a/{token}", highlight=False, soft_wrap=True
            )
        console.print(f"admin: {base}/admin/{st.meta('admin_token')}", highlight=False)
    finally:
        st.close()
    if no_serve:
        return
    if is_loopback(host):
        console.print(
            f"listening on {host}:{port}, loopback only: reachable from this computer alone "
            "(pass --host 0.0.0.0 to share on a network you trust). Ctrl-C stops; rerun resumes."
        )
    else:
        console.print(
            f"[yellow]listening on {escape(host)}:{port}: reachable from other machines over "
            "plain HTTP; anyone holding a link can answer as that annotator.[/]"
        )
    # uvicorn handles Ctrl-C and SIGTERM itself and raises the signal again once it has
    # stopped: stoppable makes that one line (what was kept, how to resume), exit 130.
    with stoppable(f"every answer is saved in {store}; rerun the same command to resume"):
        serve(store, host, port)


@user_errors
def annotate_export(
    store: Path = typer.Argument(..., help="Annotation store (SQLite)."),
    jsonl: Path | None = typer.Option(
        None, "--jsonl", metavar="FILE", help="Write every answer as JSONL."
    ),
    csv: Path | None = typer.Option(
        None, "--csv", metavar="FILE", help="Write every answer as CSV."
    ),
    run: Path | None = typer.Option(
        None,
        "--run",
        metavar="DIR",
        help="Write a run folder of human answers for 'paraudit report'.",
    ),
    label: str = typer.Option(
        "human", "--label", metavar="NAME", help="Judge label of the human rows."
    ),
    split: bool = typer.Option(False, "--split", help="One judge row per annotator."),
    force: bool = typer.Option(
        False, "--force", help="Replace earlier exports at --jsonl / --csv."
    ),
) -> None:
    """Export human answers (with the answer key: keep the files away from annotators)."""
    if not (jsonl or csv or run):
        raise ParauditError("nothing to do: pass --jsonl, --csv and/or --run")
    if not label.strip() or not label.isprintable():
        # An empty label wrote rows with an empty judge: no report could name them.
        raise ParauditError(
            f"--label {label!r} is empty or unprintable; give the human rows a visible judge "
            "name (default: human)"
        )
    check_export_outputs(store, jsonl, csv, run, force)
    with locked(("--jsonl", jsonl), ("--csv", csv), ("--run", run)):
        _export(store, jsonl, csv, run, label, split)


def _export(
    store: Path, jsonl: Path | None, csv: Path | None, run: Path | None, label: str, split: bool
) -> None:
    st = AnnotationStore.open(store)
    try:
        rows = answer_rows(st, st.dataset())
    finally:
        st.close()
    if jsonl:
        write_output_file(jsonl, export_jsonl(rows))
        console.print(f"[green]✓[/] {len(rows)} answers → {escape(str(jsonl))}", soft_wrap=True)
    if csv:
        write_output_file(csv, export_csv(rows))
        console.print(f"[green]✓[/] {len(rows)} answers → {escape(str(csv))}", soft_wrap=True)
    if run:
        n = write_run(store, run, label=label, split=split)
        console.print(
            f"[green]✓[/] {n} result rows → {escape(str(run))} (paraudit report reads it)",
            soft_wrap=True,
        )


def _fmt(x: object) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.2f}" if isinstance(x, float) else str(x)


@user_errors
def annotate_stats(
    store: Path = typer.Argument(..., help="Annotation store (SQLite)."),
    threshold: float = typer.Option(
        0.5, "--threshold", metavar="X", help="Flag items below this accuracy."
    ),
    out: Path | None = typer.Option(
        None, "--json", metavar="FILE", help="Also write every figure as JSON."
    ),
    force: bool = typer.Option(False, "--force", help="Replace an earlier --json output."),
) -> None:
    """Annotator accuracy, agreement on the overlap set, consistency, catch items, hard items."""
    check_fraction(threshold, "--threshold")
    if out is not None:
        distinct_outputs([("the store", store), ("--json", out)])
        check_output_file(out, option="--json", force=force, kind=STATS_JSON)
    st = AnnotationStore.open(store)
    try:
        js = judgments(answer_rows(st, st.dataset()))
        names = [name for name, _ in st.annotators()]
        stimuli = sum(st.count(name)[1] for name in names)
    finally:
        st.close()
    s = agreement_summary(js, threshold=threshold)
    if not js:
        # Without an answer every figure is empty: say so instead of a bare task heading.
        console.print(
            f"no ratings yet in {escape(str(store))}: 0 of {stimuli} stimuli answered by "
            f"{len(names)} annotators; send them their links ('paraudit annotate' prints "
            "them), then rerun",
            highlight=False,
            soft_wrap=True,
        )
        if out:
            write_output_file(out, marked_json(s, "annotate-stats"))
        return
    for task, t in s["tasks"].items():
        console.print(f"[bold]{escape(task)}[/]", highlight=False)
        for name, r in t["annotators"].items():
            console.print(
                f"  {escape(name)}: {r['rate']:.0%} of {r['n']} "
                f"(95 % CI {r['ci_low']:.0%}–{r['ci_high']:.0%})",
                highlight=False,
            )
        if t["range"]:
            console.print(f"  range {t['range'][0]:.0%}–{t['range'][1]:.0%}", highlight=False)
        ov = t["overlap"]
        if ov:
            console.print(
                f"  overlap: Fleiss κ {_fmt(ov['fleiss_kappa'])}, Krippendorff α "
                f"{_fmt(ov['krippendorff_alpha'])} on {ov['units']} stimuli",
                highlight=False,
            )
    for title, key in (("catch items passed", "catch"), ("repeats consistent", "intra_rater")):
        part = s[key]
        assert isinstance(part, dict)
        if part:
            text = ", ".join(f"{a} {r['k']}/{r['n']}" for a, r in part.items())
            console.print(f"{title}: {escape(text)}", highlight=False)
    flagged = [i for i in item_accuracy(js, threshold=threshold) if i.flagged]
    console.print(f"items below {threshold:.0%} human accuracy: {len(flagged)}")
    for i in flagged:
        console.print(f"  {escape(i.item_id)}  {i.correct}/{i.answers}", highlight=False)
    if out:
        write_output_file(out, marked_json(s, "annotate-stats"))


@user_errors
def annotate_simulate(
    dataset: Path = typer.Argument(..., help="Dataset folder."),
    annotators: str = ANNOTATORS,
    per_annotator: int = PER,
    overlap: int = OVERLAP,
    repeats: int = REPEATS,
    catch: int = CATCH,
    tasks: str = TASKS,
    seed: int = SEED,
    min_listen: float = typer.Option(
        0.0,
        "--min-listen",
        metavar="X",
        help="As for annotate; 0 lets simulated listeners skip waiting.",
        rich_help_panel=STUDY,
    ),
    store: Path = STORE,
    skills: str = typer.Option(
        "0.95,0.85,0.75,0.9,0.65",
        "--skills",
        metavar="LIST",
        help="Accuracy of each simulated annotator.",
        rich_help_panel=SIMULATION,
    ),
    run: Path | None = typer.Option(
        None,
        "--run",
        metavar="DIR",
        help="Then write a human run folder here.",
        rich_help_panel=SIMULATION,
    ),
) -> None:
    """Simulated annotators through the real HTTP API (for demos and load tests; they read the
    answer key from the store, so their accuracy is the skill given, not a human result)."""
    from paraudit.annotate.simulate import simulate_study

    try:
        levels = [float(s) for s in skills.split(",")]
    except ValueError:
        raise ParauditError(f"--skills {skills!r}: give numbers like 0.9,0.7") from None
    if not levels or any(not 0 <= s <= 1 for s in levels):
        raise ParauditError("--skills: every skill must be between 0 and 1")
    cfg = _config(annotators, per_annotator, overlap, repeats, catch, tasks, seed, min_listen)
    check_study_dataset(dataset, store)
    if run is not None:
        distinct_outputs([("--store", store), ("--run", run)])
        refuse_inside_dataset(run, "--run")
    done = simulate_study(dataset, store, cfg, levels, seed=seed)
    console.print(
        f"[green]✓[/] simulated {sum(done.values())} answers in {escape(str(store))}",
        soft_wrap=True,
    )
    if run:
        n = write_run(store, run)
        console.print(f"[green]✓[/] {n} result rows → {escape(str(run))}", soft_wrap=True)


def human_check(store: Path, dataset: Path, threshold: float) -> None:
    """For `paraudit validate --humans`: print the items below the human-accuracy threshold."""
    from paraudit.annotate.export import hard_items

    st = AnnotationStore.open(store)
    try:
        same = Path(st.meta("dataset")) == dataset.resolve()
    finally:
        st.close()
    if not same:
        raise ParauditError(f"{store} annotates another dataset, not {dataset}")
    scores = hard_items(store, threshold=threshold)
    flagged = [s for s in scores if s.flagged]
    for s in flagged:
        console.print(
            f"[yellow]![/] {escape(s.item_id)} ({escape(s.task)}): listeners right on "
            f"{s.correct}/{s.answers} ({s.accuracy:.0%} < {threshold:.0%}); consider removing it",
            highlight=False,
        )
    console.print(
        f"human check: {len(flagged)} of {len(scores)} answered items below {threshold:.0%}"
    )


def register(app: typer.Typer) -> None:
    app.command("annotate")(annotate)
    app.command("annotate-export")(annotate_export)
    app.command("annotate-stats")(annotate_stats)
    app.command("annotate-simulate")(annotate_simulate)
