"""`paraudit run DATASET --judge SPEC … --out RUN_DIR`: audit judges, resumably."""

from __future__ import annotations

import asyncio
import math
import shlex
from collections import Counter
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
from rich.table import Table

from paraudit.cli.common import (
    console,
    err_console,
    fail,
    prepare_output,
    progress_bar,
    user_errors,
)
from paraudit.cli.engine import open_engine, print_cluster, print_estimates
from paraudit.cli.help import ASK, CALLS, OUTPUT, SCALE
from paraudit.cli.ray_faults import execute_on_ray
from paraudit.cli.run_checks import check_rpm, check_run_options, check_seed
from paraudit.judges.prices import load_prices
from paraudit.judges.spec import parse_judge_spec
from paraudit.protocols.instances import CUES, EXTRA_CUES, PROBES, PROTOCOLS
from paraudit.protocols.parsing import PARSE_PRESETS
from paraudit.protocols.ties import PRESETS
from paraudit.runner.calls import RetryPolicy
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import Progress as RunProgress
from paraudit.runner.run import RunConfig, Runner, RunOutcome, dry_run
from paraudit.runner.sequential import SequentialSpec, sequential_lines
from paraudit.runner.served import served_lines

SHORT_TASKS = {
    "single-turn-emotions": "single",
    "positional-emotion": "position",
    "emotional-conversations": "convers.",
}
SHORT_PROTOCOLS = {"pointwise": "point", "pairwise": "pair"}
POINTWISE_ONLY = ("P", "T", "N")
"""Probes with no pairwise form: the plan asks them pointwise whatever --protocols says."""


def _split(value: str, allowed: tuple[str, ...], what: str) -> tuple[str, ...]:
    parts = tuple(v.strip() for v in value.split(",") if v.strip())
    bad = [p for p in parts if p not in allowed]
    if bad or not parts:
        raise fail(f"unknown {what} {', '.join(bad) or value!r} (choose from {', '.join(allowed)})")
    twice = sorted(p for p, n in Counter(parts).items() if n > 1)
    if twice:
        raise fail(f"{what} {', '.join(twice)} given twice in {value!r}; name each once")
    return parts


def pointwise_only_note(probes: tuple[str, ...], protocols: tuple[str, ...]) -> str | None:
    """A note when --protocols leaves pointwise out but P or T are asked: those two probes have
    a pointwise form only (the plan asks them pointwise whatever --protocols says), so the user
    who asked for pairwise alone would otherwise find pointwise rows without being told."""
    if "pointwise" in protocols:
        return None
    only = [p for p in probes if p in POINTWISE_ONLY]
    if not only:
        return None
    names = " and ".join(only)
    return (
        f"probe{'s' if len(only) > 1 else ''} {names} {'are' if len(only) > 1 else 'is'} asked "
        f"pointwise only: {names} will run pointwise although --protocols is "
        f"{','.join(protocols)}"
    )


def execute(cfg: RunConfig) -> RunOutcome:
    with progress_bar(
        "auditing",
        TextColumn("[bold]auditing[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        TimeRemainingColumn(),
    ) as bar:
        task = bar.add_task("", total=None)

        # A sequential run's total is the full plan until its cells close: say it is the most.
        most = "at most (shrinks as steps settle) · " if cfg.sequential else ""

        def update(p: RunProgress) -> None:
            bar.update(
                task,
                completed=p.done,
                total=p.total,
                description=p.note
                or f"{most}unparsed {p.unparsed} · refused {p.refused} · errors {p.errors}",
            )

        runner = Runner(cfg, update)
        outcome = asyncio.run(runner.execute())
    for note in runner.notes:  # wrapped at spaces by rich: the terminal would break mid-word
        err_console.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    counts = outcome.statuses
    console.print(
        f"{outcome.rows} results ({counts['ok']} answered, {counts['unparsed']} unparsed, "
        f"{counts['refused']} refused, {counts['error']} errors"
        + (f", {counts['no-audio']} no-audio" if counts.get("no-audio") else "")
        + "); "
        f"{outcome.calls_made} judge calls made (the rest: answers already in the run "
        "store, or identical prompts asked once) "
        f"→ {escape(str(cfg.out / 'results.jsonl'))}",
        highlight=False,
        soft_wrap=True,  # ends in a path, which may hold spaces
    )
    return outcome


def print_summary(cells: list[dict[str, Any]]) -> None:
    """A compact table that fits 80 columns: judges by key, short task and protocol names,
    counts of unparsed/refused/error rows; its legend comes first, so a table longer than the
    screen cannot scroll it away. The report has the full tables.
    `cells` is stats.accuracy.CellTally's table (summary_table of the rows)."""
    keys = {j: f"J{n}" for n, j in enumerate(dict.fromkeys(c["judge"] for c in cells), 1)}
    for judge, key in keys.items():
        console.print(escape(f"{key} = {judge}"), highlight=False, soft_wrap=True)
    console.print(
        "pr: probe · unp/ref: unparsed, refused (count as wrong) · err: failed calls (no "
        "answer, left out) · R1%: share of first-option picks",
        highlight=False,
    )
    table = Table(
        title="accuracy (strict), per instance",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
        pad_edge=False,
    )
    for col in ("", "task", "pr", "prot", "items", "n", "acc", "unp", "ref", "err", "R1%"):
        table.add_column(col, no_wrap=True, justify="left" if col in ("task", "prot") else "right")
    for c in cells:
        fp = c["first_pick_rate"]
        # A failed call is no answer (left out, as in the report); unparsed and refused
        # answers count as wrong. T sends the same words for both branches: no right answer;
        # N (null audio) has nothing to be right about (its figures: the report's N section).
        answered = c["n"] - c["errors"]
        right = c["correct"]
        blind = c["probe"] in ("T", "N")
        acc = "–" if blind else f"{right / answered:.0%}" if answered else "no answers"
        table.add_row(
            keys[c["judge"]],
            SHORT_TASKS.get(c["task"], c["task"][:10]),
            c["probe"],
            SHORT_PROTOCOLS.get(c["protocol"], c["protocol"][:5]),
            str(c["items"]),
            str(answered),
            acc,
            str(c["unparsed"]),
            str(c["refused"]),
            str(c["errors"]),
            "–" if fp is None else f"{fp:.0%}",
        )
    console.print(table)


def check_report_folder(report: Path, out: Path) -> None:
    """--report before any call: a new or empty folder, or an earlier report (refreshed in
    place, as `paraudit report` does), never the run folder itself."""
    if report.absolute() == out.absolute():
        raise fail("--report must be another folder than --out (the run folder)")
    prepare_output(report, force=True, what="--report", marker="summary.json")


def resume_command(dataset: Path, judges: list[str], out: Path, extra: list[str]) -> str:
    args = ["paraudit", "run", str(dataset), "--out", str(out)]
    for j in judges:
        args += ["--judge", j]
    return shlex.join(args + extra)


@user_errors
def run(
    dataset: Path = typer.Argument(..., help="Dataset folder."),
    judge: list[str] = typer.Option(
        ...,
        "--judge",
        metavar="SPEC",
        help="Judge spec, e.g. builtin:prosody (repeatable).",
        rich_help_panel=ASK,
    ),
    out: Path = typer.Option(
        ..., "--out", metavar="DIR", help="Run folder (reused to resume).", rich_help_panel=OUTPUT
    ),
    probes: str = typer.Option(
        "J,P,O,S,T",
        metavar="LIST",
        help="Probes to ask (S needs P; N, null audio, is opt-in).",
        rich_help_panel=ASK,
    ),
    protocols: str = typer.Option(
        "pointwise,pairwise", metavar="LIST", help="Protocols to ask.", rich_help_panel=ASK
    ),
    cues: str = typer.Option(
        "none,soft,hard,transition",
        metavar="LIST",
        help="Cues to ask (add misleading: a cue stating the other branch's value).",
        rich_help_panel=ASK,
    ),
    prompts: str = typer.Option(
        "paper",
        metavar="paper|ties",
        help="Prompt preset: the paper's, or ties (pointwise J may answer 'tie'; tie items are "
        "asked only then).",
        rich_help_panel=ASK,
    ),
    orders: str = typer.Option(
        "both",
        metavar="both|one",
        help="Every presentation order, or one seeded draw per instance.",
        rich_help_panel=ASK,
    ),
    concurrency: int = typer.Option(
        # Bounded: 10^6 was accepted, a million sockets at one provider (and a window of
        # 8 × N questions scheduled ahead) for a user's typo.
        8,
        min=1,
        max=4096,
        metavar="N",
        help="Calls in flight at once.",
        rich_help_panel=CALLS,
    ),
    rpm: float | None = typer.Option(
        None, metavar="N", help="Requests per minute per judge (> 0).", rich_help_panel=CALLS
    ),
    parse_retries: int = typer.Option(
        0, min=0, metavar="N", help="Re-ask an unparsed reply N times.", rich_help_panel=CALLS
    ),
    parse: str = typer.Option(
        "strict",
        metavar="PRESET",
        help="Reply parsing: strict (the paper's JSON) or lenient (also a bare label such as "
        "R1; recorded in run.json).",
        rich_help_panel=CALLS,
    ),
    reask: float | None = typer.Option(
        None,
        metavar="SHARE",
        help="Ask this seeded share of questions (0-1] a second time on identical audio: "
        "the re-ask baseline flip statistics are read against (recorded in run.json).",
        rich_help_panel=CALLS,
    ),
    max_attempts: int = typer.Option(
        4, min=1, metavar="N", help="Attempts per call before an error row.", rich_help_panel=CALLS
    ),
    timeout: float = typer.Option(
        120.0,
        metavar="SECONDS",
        help="Per call, and for a judge's start-up.",
        rich_help_panel=CALLS,
    ),
    max_wait: float | None = typer.Option(
        None,
        metavar="SECONDS",
        help="Longest wait a server's Retry-After may impose (default: 3 × --timeout).",
        rich_help_panel=CALLS,
    ),
    limit: int | None = typer.Option(
        None,
        min=1,
        metavar="N",
        help="A quick trial: the first N items of each task.",
        rich_help_panel=ASK,
    ),
    seed: int = typer.Option(
        0,
        metavar="N",
        help="Seed for --orders one and the order items are asked in.",
        rich_help_panel=ASK,
    ),
    extend: bool = typer.Option(
        False,
        "--extend",
        help="Add judges, probes, protocols or cues to the run already in --out.",
        rich_help_panel=OUTPUT,
    ),
    sequential: bool = typer.Option(
        False,
        "--sequential",
        help="Ask items in batches and stop each step once its verdict is settled "
        "(README: Sequential audits).",
        rich_help_panel=ASK,
    ),
    dry: bool = typer.Option(
        False,
        "--dry-run",
        help="Print plan size, audio seconds, tokens and estimated cost.",
        rich_help_panel=OUTPUT,
    ),
    report: Path | None = typer.Option(
        None,
        "--report",
        metavar="DIR",
        help="Then write the diagnostic report to DIR and end with one verdict per judge × "
        "task (without it: the per-cell table).",
        rich_help_panel=OUTPUT,
    ),
    table: bool = typer.Option(
        False,
        "--table",
        help="With --report: also print the per-cell accuracy table.",
        rich_help_panel=OUTPUT,
    ),
    prices: Path | None = typer.Option(
        None,
        "--prices",
        metavar="FILE",
        help="JSON price table for --dry-run.",
        rich_help_panel=OUTPUT,
    ),
    api_key_env: str | None = typer.Option(
        None,
        "--api-key-env",
        metavar="VAR",
        help="Read hosted judges' API key from this variable.",
        rich_help_panel=CALLS,
    ),
    engine: str = typer.Option(
        "local",
        metavar="local|ray",
        help="Where judges run: here, or on a Ray cluster.",
        rich_help_panel=SCALE,
    ),
    ray_address: str | None = typer.Option(
        None,
        metavar="ADDR",
        help="Ray cluster to join: auto | ray://HOST:10001 (default: start one here).",
        rich_help_panel=SCALE,
    ),
    num_workers: int | None = typer.Option(
        None, min=1, metavar="N", help="Ray workers per judge.", rich_help_panel=SCALE
    ),
    gpus_per_worker: float | None = typer.Option(
        None, min=0, metavar="N", help="GPUs per Ray worker.", rich_help_panel=SCALE
    ),
    ray_data: bool | None = typer.Option(
        None,
        "--ray-data/--no-ray-data",
        help="Ray: make each judge's unanswered calls as a Ray Dataset (default), or send "
        "every call to the judge's actor pool.",
        rich_help_panel=SCALE,
    ),
) -> None:
    """Put every counterfactual question to each judge; a rerun resumes."""
    if orders not in ("both", "one"):
        raise fail("--orders must be 'both' or 'one'")
    if rpm is not None and not math.isfinite(rpm):
        # Numbers follow the spec rule (finite, exit 2): inf would reach run.json as Infinity
        # (not JSON) and limit nothing.
        raise fail(f"--rpm must be a finite number (got {rpm:g}); leave it out for no limit", 2)
    if rpm is not None and not rpm > 0:
        raise fail(f"--rpm must be more than 0 (got {rpm:g}); leave it out for no limit")
    check_rpm(rpm)
    check_seed(seed)
    if not timeout > 0:
        raise fail(f"--timeout must be more than 0 seconds (got {timeout:g})")
    check_run_options(out, parse_retries, max_attempts, timeout, max_wait)
    if reask is not None and not (math.isfinite(reask) and 0 < reask <= 1):
        raise fail(
            f"--reask {reask:g}: a share of questions, more than 0 and at most 1 (0.2 asks one "
            "question in five twice); leave it out to ask each once",
            2,
        )
    if parse not in PARSE_PRESETS:
        raise fail(f"--parse {parse}: not a preset; use one of {', '.join(PARSE_PRESETS)}")
    plan = PlanSpec(
        probes=_split(probes, PROBES, "probe"),  # type: ignore[arg-type]
        protocols=_split(protocols, PROTOCOLS, "protocol"),  # type: ignore[arg-type]
        cues=_split(cues, CUES + EXTRA_CUES, "cue"),
        orders=orders,
        seed=seed,
        limit=limit,
        prompts=prompts,
    )
    if prompts not in PRESETS:
        raise fail(f"unknown --prompts {prompts!r} (choose from {', '.join(PRESETS)})", 2)
    if sequential and engine == "ray":
        # The Ray engine answers a plan in bulk on its workers; a sequential run decides after
        # each batch what to ask next, so under Ray every call would be made on this machine.
        raise fail(
            "--sequential runs on --engine local only: it decides after each batch of 10 "
            "items what to ask next, and the Ray engine answers a whole plan in bulk",
            2,
        )
    if "misleading" in plan.cues:
        from paraudit.cli.run_checks import misleading_problem

        problem = misleading_problem(dataset, plan.probes, plan.protocols, plan.limit)
        if problem:
            raise fail(problem, 2)
    if "S" in plan.probes and "P" not in plan.probes:
        raise fail("probe S (staging) asks about the judge's own P answers; add P (--probes P,S)")
    note = pointwise_only_note(plan.probes, plan.protocols)
    if note:
        err_console.print(f"[yellow]note:[/] {note}", highlight=False, soft_wrap=True)
    if "N" in plan.probes and not {"P", "J"} & set(plan.probes):
        err_console.print(
            "[yellow]note:[/] probe N compares null-audio answers with the real P and J "
            "answers; without --probes P or J it reports only confident and no-audio shares",
            highlight=False,
            soft_wrap=True,
        )
    # Each spec is parsed here, once: the runner, the judges and the engines get the objects.
    specs = [parse_judge_spec(j).with_key_env(api_key_env) for j in judge]
    cfg = RunConfig(
        dataset,
        specs,
        out,
        plan,
        concurrency,
        rpm,
        parse_retries,
        RetryPolicy(max_attempts=max_attempts, timeout_s=timeout, max_wait_s=max_wait),
        extend=extend,
        parse=parse,
        sequential=SequentialSpec() if sequential else None,
        reask=reask,
    )
    with open_engine(engine, ray_address, num_workers, gpus_per_worker, ray_data) as cluster:
        if cluster is not None:
            cfg.engine = cluster
        if dry:
            planned = dry_run(cfg, load_prices(prices))
            for k, v in planned.items():
                if k == "cost":
                    for spec, c in v.items():
                        usd = "unknown" if c["usd"] is None else f"${c['usd']:,.2f}"
                        console.print(escape(f"estimated cost {spec}: {usd} ({c['note']})"))
                elif k == "already_answered":
                    for spec, text in v.items():
                        console.print(escape(f"already answered {spec}: {text}"), highlight=False)
                else:
                    console.print(escape(f"{k}: {v}"))
            if sequential:
                from paraudit.runner.run import load_checked
                from paraudit.runner.sequential_cost import cost_lines

                ds = load_checked(dataset)
                labels = [s.label for s in specs]
                for line in cost_lines(ds, plan, planned["instances_per_judge"], out, labels):
                    console.print(escape(line), highlight=False, soft_wrap=True)
            if cluster is not None:
                print_cluster(cluster)
                print_estimates(cluster, cfg)
            return
        if report is not None:
            check_report_folder(report, out)
        extra = [
            f"--{name}={value}"
            for name, value, default in (
                ("probes", probes, "J,P,O,S,T"),
                ("protocols", protocols, "pointwise,pairwise"),
                ("cues", cues, "none,soft,hard,transition"),
                ("orders", orders, "both"),
                ("seed", str(seed), "0"),
                ("limit", str(limit), "None"),
                ("prompts", prompts, "paper"),
                ("parse-retries", str(parse_retries), "0"),
                ("parse", parse, "strict"),
                ("reask", f"{reask:g}" if reask else "None", "None"),
            )
            if value != default
        ] + (["--sequential"] if sequential else [])
        if cluster is None:
            outcome = execute(cfg)
        else:  # a lost node or a dead cluster: one line and the command that resumes
            resume = resume_command(dataset, judge, out, [*extra, "--engine", "ray"])
            outcome = execute_on_ray(lambda: execute(cfg), out, resume)
    if report is None or table:
        print_summary(outcome.table)
    keys = {j: f"J{n}" for n, j in enumerate(dict.fromkeys(c["judge"] for c in outcome.table), 1)}
    for line in served_lines(outcome.served, keys):
        console.print(line, highlight=False, soft_wrap=True)
    if sequential:
        for line in sequential_lines(out):
            console.print(escape(line), highlight=False, soft_wrap=True)
    if report is None:
        console.print(
            "verdicts, item-level 95 % intervals and order-consistent states: "
            + escape(f"paraudit report {shlex.quote(str(out))} --out REPORT_DIR")
            + " (or rerun with --report)",
            highlight=False,
            soft_wrap=True,  # a command: never broken, even at a space inside a path
        )
    else:
        from paraudit.cli.verdicts import print_report_path, print_verdicts
        from paraudit.report.build import write_report  # the statistics stack: only now

        path = write_report([out], report)
        print_verdicts(report)
        print_report_path(path)
    errors = outcome.statuses["error"]
    if errors:
        raise fail(
            f"{errors} of {outcome.rows} questions ended in call errors (last: "
            f"{outcome.last_error}); fix the cause, then resume (only those are asked "
            f"again): {resume_command(dataset, judge, out, extra)}"
        )
