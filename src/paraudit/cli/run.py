"""`paraudit run DATASET --judge SPEC … --out RUN_DIR`: audit judges, resumably."""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from paraudit.cli.common import console, fail, user_errors
from paraudit.cli.engine import open_engine, print_cluster, print_estimates
from paraudit.judges.prices import load_prices
from paraudit.protocols.instances import CUES, PROBES, PROTOCOLS
from paraudit.runner.calls import RetryPolicy
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import Progress as RunProgress
from paraudit.runner.run import RunConfig, Runner, dry_run
from paraudit.stats.accuracy import summary_table


def _split(value: str, allowed: tuple[str, ...], what: str) -> tuple[str, ...]:
    parts = tuple(v.strip() for v in value.split(",") if v.strip())
    bad = [p for p in parts if p not in allowed]
    if bad or not parts:
        raise fail(f"unknown {what} {', '.join(bad) or value!r} (choose from {', '.join(allowed)})")
    return parts


def _with_key_env(spec: str, env: str | None) -> str:
    """Add key_env=ENV to hosted judges' specs (a harness option: not part of the cache key)."""
    if env is None or not spec.startswith(("openai:", "gemini:")) or "key_env=" in spec:
        return spec
    return f"{spec}{'&' if '?' in spec else '?'}key_env={env}"


def execute(cfg: RunConfig) -> list[dict[str, object]]:
    with Progress(
        TextColumn("[bold]auditing[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("", total=None)

        def update(p: RunProgress) -> None:
            bar.update(
                task,
                completed=p.done,
                total=p.total,
                description=f"unparsed {p.unparsed} · errors {p.errors}",
            )

        runner = Runner(cfg, update)
        rows = asyncio.run(runner.run())
    console.print(
        f"{len(rows)} results, {runner.progress.calls_made} judge calls made "
        f"(the rest came from the run store) → {cfg.out / 'results.jsonl'}"
    )
    return rows


def print_summary(rows: list[dict[str, object]]) -> None:
    table = Table(title="accuracy (strict: unparsed counts as wrong), 95 % Wilson interval")
    for col in (
        "judge",
        "task",
        "probe",
        "protocol",
        "n",
        "accuracy",
        "95% CI",
        "unparsed",
        "errors",
        "R1/E1 picks",
    ):
        table.add_column(col)
    for c in summary_table(rows):
        fp = c["first_pick_rate"]
        table.add_row(
            c["judge"],
            c["task"],
            c["probe"],
            c["protocol"],
            str(c["n"]),
            f"{c['accuracy']:.1%}",
            f"{c['ci_low']:.1%}–{c['ci_high']:.1%}",
            f"{c['unparsed_rate']:.1%}",
            str(c["errors"]),
            "–" if fp is None else f"{fp:.0%}",
        )
    console.print(table)


@user_errors
def run(
    dataset: Path = typer.Argument(..., help="Dataset folder."),
    judge: list[str] = typer.Option(
        ..., "--judge", help="Judge spec, e.g. builtin:prosody (repeatable)."
    ),
    out: Path = typer.Option(..., "--out", help="Run folder (reused to resume)."),
    probes: str = typer.Option("J,P,O,S,T", help="Probes: J,P,O,S,T."),
    protocols: str = typer.Option("pointwise,pairwise", help="pointwise,pairwise."),
    cues: str = typer.Option("none,soft,hard,transition", help="none,soft,hard,transition."),
    orders: str = typer.Option("both", help="both | one (a seeded draw per instance)."),
    concurrency: int = typer.Option(8, min=1, help="Calls in flight at once."),
    rpm: float | None = typer.Option(None, help="Requests per minute per judge."),
    parse_retries: int = typer.Option(0, min=0, help="Re-ask an unparsed reply N times."),
    max_attempts: int = typer.Option(4, min=1, help="Attempts per call before an error row."),
    timeout: float = typer.Option(120.0, help="Seconds per call."),
    limit: int | None = typer.Option(None, min=1, help="Only the first N items."),
    seed: int = typer.Option(0, help="Seed for --orders one."),
    dry: bool = typer.Option(
        False, "--dry-run", help="Print plan size, audio seconds, tokens and estimated cost."
    ),
    prices: Path | None = typer.Option(None, "--prices", help="JSON price table for --dry-run."),
    api_key_env: str | None = typer.Option(
        None, "--api-key-env", help="Read hosted judges' API key from this variable."
    ),
    engine: str = typer.Option("local", help="Where judges run: local | ray (a Ray cluster)."),
    ray_address: str | None = typer.Option(
        None, help="Ray cluster to join: auto | ray://HOST:10001 (default: start one here)."
    ),
    num_workers: int | None = typer.Option(None, min=1, help="Ray workers per judge."),
    gpus_per_worker: float | None = typer.Option(None, min=0, help="GPUs per Ray worker."),
) -> None:
    """Put every counterfactual question to each judge; a rerun resumes."""
    if orders not in ("both", "one"):
        raise fail("--orders must be 'both' or 'one'")
    plan = PlanSpec(
        probes=_split(probes, PROBES, "probe"),  # type: ignore[arg-type]
        protocols=_split(protocols, PROTOCOLS, "protocol"),  # type: ignore[arg-type]
        cues=_split(cues, CUES, "cue"),
        orders=orders,
        seed=seed,
        limit=limit,
    )
    specs = [_with_key_env(j, api_key_env) for j in judge]
    cfg = RunConfig(
        dataset,
        specs,
        out,
        plan,
        concurrency,
        rpm,
        parse_retries,
        RetryPolicy(max_attempts=max_attempts, timeout_s=timeout),
    )
    with open_engine(engine, ray_address, num_workers, gpus_per_worker) as cluster:
        if cluster is not None:
            cfg.judge_loader = cluster.load_judge
        if dry:
            for k, v in dry_run(cfg, load_prices(prices)).items():
                if k == "cost":
                    for spec, c in v.items():
                        usd = "unknown" if c["usd"] is None else f"${c['usd']:,.2f}"
                        console.print(f"estimated cost {spec}: {usd} ({c['note']})")
                else:
                    console.print(f"{k}: {v}")
            if cluster is not None:
                print_cluster(cluster)
                print_estimates(cluster, cfg)
            return
        rows = execute(cfg)
    print_summary(rows)
