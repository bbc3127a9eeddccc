"""`paraudit plan KIND`: items needed for a stated difference at a stated power, by exact tests.

KIND is `chance` (J against the best deaf guesser), `protocol` (pointwise vs pairwise J),
`cue` (no cue vs the strongest cue) or `regression` (run A vs run B). The rates come from
stated assumptions or from a pilot run folder (`--pilot`; two for a regression). With
`--price-judge SPEC` the cost comes from `run --dry-run`'s estimator on the pilot's dataset.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import typer

from paraudit.cli.common import console, fail, user_errors
from paraudit.cli.help import STATS
from paraudit.errors import ParauditError
from paraudit.stats.plan import (
    PlanAnswer,
    PlanError,
    check_rates,
    plan_chance,
    plan_paired,
    rates_from,
)

KINDS = ("chance", "protocol", "cue", "regression")
WHAT = "What to detect"
PILOT = "Pilot and cost"


def _rows(run: Path) -> list[Any]:
    from paraudit.stats.rowgroups import read_groups

    return list(read_groups(run).rows())


@user_errors
def plan(
    kind: str = typer.Argument(..., help="chance | protocol | cue | regression."),
    p10: float | None = typer.Option(
        None,
        "--p10",
        metavar="X",
        help="Share of items right on side A only.",
        rich_help_panel=WHAT,
    ),
    p01: float | None = typer.Option(
        None,
        "--p01",
        metavar="X",
        help="Share of items right on side B only.",
        rich_help_panel=WHAT,
    ),
    difference: float | None = typer.Option(
        None,
        "--difference",
        metavar="X",
        help="Item-level accuracy difference to detect (with --discordance or --pilot).",
        rich_help_panel=WHAT,
    ),
    discordance: float | None = typer.Option(
        None,
        "--discordance",
        metavar="X",
        help="Share of items on which the two sides differ (default: the pilot's).",
        rich_help_panel=WHAT,
    ),
    accuracy: float | None = typer.Option(
        None,
        "--accuracy",
        metavar="X",
        help="chance: the J accuracy to detect.",
        rich_help_panel=WHAT,
    ),  # fmt: skip
    chance: float | None = typer.Option(
        None,
        "--chance",
        metavar="X",
        help="chance: the deaf guesser's score (default ½).",
        rich_help_panel=WHAT,
    ),  # fmt: skip
    per_item: int | None = typer.Option(
        None,
        "--per-item",
        metavar="N",
        help="chance: scored instances per item (default 1).",
        rich_help_panel=WHAT,
    ),  # fmt: skip
    icc: float | None = typer.Option(
        None,
        "--icc",
        metavar="X",
        help="chance: intra-item correlation (default 0).",
        rich_help_panel=WHAT,
    ),  # fmt: skip
    power: float = typer.Option(
        0.8, "--power", metavar="X", rich_help_panel=STATS, help="Target power."
    ),  # fmt: skip
    at: int | None = typer.Option(
        None,
        "--at",
        metavar="N",
        min=1,
        rich_help_panel=STATS,
        help="Also print the exact power at N items.",
    ),  # fmt: skip
    alpha: float = typer.Option(
        0.05,
        "--alpha",
        metavar="X",
        rich_help_panel=STATS,
        help="Test level (two-sided for paired designs).",
    ),  # fmt: skip
    pilot: list[Path] = typer.Option(
        [],
        "--pilot",
        metavar="RUN",
        rich_help_panel=PILOT,
        help="Pilot run folder (twice for a regression: baseline, then candidate).",
    ),  # fmt: skip
    judge: str | None = typer.Option(
        None,
        "--judge",
        metavar="LABEL",
        rich_help_panel=PILOT,
        help="The pilot's judge to read (default: its only judge).",
    ),  # fmt: skip
    calls_per_item: float | None = typer.Option(
        None,
        "--calls-per-item",
        metavar="X",
        min=0.0,
        rich_help_panel=PILOT,
        help="Calls one item costs (default: as the pilot asked them).",
    ),  # fmt: skip
    price_judge: str | None = typer.Option(
        None,
        "--price-judge",
        metavar="SPEC",
        rich_help_panel=PILOT,
        help="Price the planned items for this judge (the dry-run estimator, on the pilot's "
        "dataset and plan).",
    ),  # fmt: skip
    prices: Path | None = typer.Option(
        None,
        "--prices",
        metavar="FILE",
        rich_help_panel=PILOT,
        help="Price table (JSON, as for run --dry-run).",
    ),  # fmt: skip
) -> None:
    """Items needed for a stated difference and power (exact tests; the paired case
    conditioned on the number of discordant items), the calls and, with a price, the cost."""
    if kind not in KINDS:
        raise fail(f"plan {kind!r}: choose one of {', '.join(KINDS)}", 2)
    if per_item is not None and per_item < 1:
        # `per_item or 1` read 0 as "1 per item" and answered a question nobody asked.
        raise PlanError(f"--per-item {per_item}: give 1 or more scored instances per item")
    if calls_per_item is not None and not math.isfinite(calls_per_item):
        raise PlanError(f"--calls-per-item {calls_per_item}: give a finite number of calls")
    want_pilots = 2 if kind == "regression" else 1
    if pilot and len(pilot) != want_pilots:
        raise PlanError(f"plan {kind} takes {want_pilots} --pilot run(s), got {len(pilot)}")
    if price_judge is not None and not pilot:
        raise PlanError("--price-judge prices the pilot's plan: add --pilot RUN")
    rows = [_rows(p) for p in pilot]
    note = ""
    if kind == "chance":
        answer, note = _chance(rows, judge, accuracy, chance, per_item, icc, power, alpha)
    else:
        answer, note = _paired(kind, rows, judge, p10, p01, difference, discordance, power, alpha)
    _show(kind, answer, note)
    if at is not None:
        from paraudit.stats.plan import power_of

        console.print(f"power at {at:,} items: {power_of(answer, at):.3f}", highlight=False)
    if calls_per_item is not None and answer.items is not None:
        console.print(f"calls: {math.ceil(calls_per_item * answer.items):,} "
                      f"({calls_per_item:g} per item, as stated)", highlight=False)  # fmt: skip
    elif rows:
        _calls(answer, rows[-1], judge, pilot[-1], price_judge, prices)


def _chance(
    rows: list[list[Any]],
    judge: str | None,
    accuracy: float | None,
    chance: float | None,
    per_item: int | None,
    icc: float | None,
    power: float,
    alpha: float,
) -> tuple[PlanAnswer, str]:
    from paraudit.stats.pilot import chance_pilot, only_judge

    note = ""
    if rows:
        p = chance_pilot(rows[0], only_judge(rows[0], judge))
        note = (
            f"pilot: {p.items} items, J {p.accuracy:.1%} (chance {p.chance:.0%}), "
            f"{p.per_item} instances per item, intra-item correlation {p.icc:.2f}"
        )
        accuracy = p.accuracy if accuracy is None else accuracy
        chance = p.chance if chance is None else chance
        per_item = p.per_item if per_item is None else per_item
        icc = p.icc if icc is None else icc
    if accuracy is None:
        raise PlanError("plan chance needs --accuracy X (or --pilot RUN)")
    return (
        plan_chance(accuracy, 0.5 if chance is None else chance, power, alpha,
                    per_item or 1, icc or 0.0),
        note,
    )  # fmt: skip


def _paired(
    kind: str,
    rows: list[list[Any]],
    judge: str | None,
    p10: float | None,
    p01: float | None,
    difference: float | None,
    discordance: float | None,
    power: float,
    alpha: float,
) -> tuple[PlanAnswer, str]:
    from paraudit.stats import pilot as P

    note = ""
    if rows:
        if kind == "regression":
            ja = P.only_judge(rows[0], judge)
            got = P.regression_pilot(rows[0], rows[1], ja, P.only_judge(rows[1], judge))
        else:
            fn = P.protocol_pilot if kind == "protocol" else P.cue_pilot
            got = fn(rows[0], P.only_judge(rows[0], judge))
        note = (
            f"pilot: {got.items} items, {got.a_better} better on side A, {got.b_better} on "
            f"side B (discordance {got.p10 + got.p01:.1%})"
        )
        if p10 is None and p01 is None and difference is None:
            if got.a_better == got.b_better:
                raise PlanError(
                    f"the pilot shows no difference ({got.a_better} items better on each side "
                    f"of {got.items}); state the difference to detect with --difference X"
                )
            p10, p01 = got.p10, got.p01
        elif discordance is None:
            discordance = got.p10 + got.p01
    if p10 is not None or p01 is not None:
        if p10 is None or p01 is None or difference is not None:
            raise PlanError("give both --p10 and --p01, or --difference with --discordance")
        rates = check_rates(p10, p01)
    elif difference is not None and discordance is not None:
        rates = rates_from(difference, discordance)
    else:
        raise PlanError(
            f"plan {kind} needs --p10 X --p01 Y, or --difference X with --discordance Y or "
            "--pilot RUN"
        )
    return plan_paired(rates, power, alpha), note


def _show(kind: str, a: PlanAnswer, note: str) -> None:
    if note:
        console.print(note, highlight=False)
    test = (
        "two-sided exact McNemar test, conditional on the discordant items"
        if a.design == "paired"
        else "one-sided exact binomial test against chance"
    )
    rates = ", ".join(f"{k} {v:g}" for k, v in a.assumptions.items())
    if a.items is None:
        console.print(f"{kind}: more than 200,000 items for power {a.target:g} ({rates})")
        return
    console.print(
        f"{kind}: {a.items:,} items for power {a.target:g} at α {a.alpha:g} ({test}; {rates}; "
        f"exact power at {a.items:,} items {a.power_at_items:.3f})",
        highlight=False,
    )


def _calls(
    a: PlanAnswer,
    rows: list[Any],
    judge: str | None,
    run: Path,
    price_judge: str | None,
    prices: Path | None,
) -> None:
    """Calls per item as the pilot asked them; the cost from the dry-run estimator."""
    from paraudit.stats.pilot import only_judge

    if a.items is None:
        return
    label = only_judge(rows, judge)
    mine = [r for r in rows if r.judge == label]
    items = len({(r.task, r.item_id) for r in mine})
    per = len(mine) / max(1, items)
    calls = math.ceil(per * a.items)
    console.print(f"calls: {calls:,} ({per:.1f} per item, as the pilot asked {label})",
                  highlight=False)  # fmt: skip
    if price_judge is None:
        return
    usd = _cost_per_item(run, price_judge, prices)
    if usd is None:
        console.print(f"cost: unknown for {price_judge}", highlight=False)
    else:
        console.print(
            f"cost: about ${usd * a.items:,.2f} for {price_judge} "
            f"(${usd:.4f} per item, run --dry-run's estimator)",
            highlight=False,
        )


def _cost_per_item(run: Path, spec: str, prices: Path | None) -> float | None:
    from paraudit.judges.prices import estimate, load_prices
    from paraudit.judges.spec import parse_judge_spec
    from paraudit.runfolder.spec import read_run_json
    from paraudit.runner.plan import PlanSpec, limited_items
    from paraudit.runner.run import RunConfig, dry_run, load_checked

    record = read_run_json(run) or {}
    dataset, raw = record.get("dataset"), record.get("plan")
    if not isinstance(dataset, str) or not isinstance(raw, dict) or not Path(dataset).is_dir():
        raise ParauditError(
            f"{run}/run.json names no dataset folder that exists here; the cost needs the "
            "pilot's dataset"
        )
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}
    plan = PlanSpec(**fields)
    parsed = parse_judge_spec(spec)
    # The plan's size, audio seconds and tokens depend on the prompts, not on who answers: a
    # built-in judge sizes them without the priced judge's key or server.
    with tempfile.TemporaryDirectory() as tmp:
        out = dry_run(RunConfig(Path(dataset), ["builtin:random"], Path(tmp) / "none", plan))
    items = len(limited_items(load_checked(Path(dataset)), plan.limit))
    cost = estimate(
        parsed,
        int(out["text_tokens_per_judge"]),
        float(out["audio_seconds_per_judge"]),
        int(out["instances_per_judge"]),
        load_prices(prices),
    )
    usd = cost.get("usd")
    return None if usd is None else float(usd) / max(1, items)
