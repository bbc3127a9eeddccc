"""`paraudit gate RUN --require RULE …`: a CI gate; exit 0 when every rule holds, else 1."""

from __future__ import annotations

from pathlib import Path

import typer

from paraudit.cli.common import console, fail, user_errors
from paraudit.cli.help import STATS
from paraudit.cli.run_checks import check_replicates

RULES = "Rules"


@user_errors
def gate(
    run: Path = typer.Argument(..., help="The run folder to gate on."),
    require: list[str] = typer.Option(
        [],
        "--require",
        metavar="RULE",
        rich_help_panel=RULES,
        help="A rule (repeatable): native>=usable, diagnosis!=Potemkin, "
        "no-behaviour=answers-without-audio, regression<=3pp (with --baseline).",
    ),
    baseline: Path | None = typer.Option(
        None,
        "--baseline",
        metavar="RUN0",
        rich_help_panel=RULES,
        help="The baseline run a regression rule compares with, on shared items.",
    ),  # fmt: skip
    judge: list[str] = typer.Option(
        [],
        "--judge",
        metavar="LABEL",
        rich_help_panel=RULES,
        help="Gate only these judges (repeatable; default: every judge of the run).",
    ),  # fmt: skip
    replicates: int = typer.Option(
        10_000, min=100, metavar="N", rich_help_panel=STATS, help="Bootstrap replicates."
    ),
) -> None:
    """A CI gate: check rules against a run's verdicts (and, with --baseline, its regression on
    shared items); one line per rule, exit 0 when all hold, 1 when one fails."""
    from paraudit.publish.gate import RuleError, check_regression, check_verdicts, parse_rule

    check_replicates(replicates)  # typer's min only: 10^9 replicates ran for ever
    if not require:
        raise fail("give at least one --require RULE (e.g. --require native>=usable)", 2)
    rules = [parse_rule(text) for text in require]
    needs_baseline = any(r.kind == "regression" for r in rules)
    if needs_baseline and baseline is None:
        raise RuleError("a regression rule compares with a baseline: add --baseline RUN0")
    if baseline is not None and not needs_baseline:
        raise RuleError("--baseline is read only by a regression rule (e.g. regression<=3pp)")
    from paraudit.publish.summary import run_groups, run_summary
    from paraudit.runfolder.spec import read_run_json

    for folder in (run, baseline):
        if folder is not None:
            read_run_json(folder)  # a damaged run.json is one line, as report and card say

    groups = run_groups(run)
    labels = groups.judges
    unknown = [j for j in judge if j not in labels]
    if unknown:
        raise RuleError(f"--judge {unknown[0]!r} is not in {run} (its judges: {', '.join(labels)})")
    keep = set(judge or labels)
    checks = []
    if any(r.kind != "regression" for r in rules):
        summary = run_summary(run, replicates, groups=groups)
        verdicts = [v for v in summary.verdicts if v.judge in keep]
        checks += [check_verdicts(r, verdicts) for r in rules if r.kind != "regression"]
    if needs_baseline and baseline is not None:
        base = list(run_groups(baseline).rows())
        rows = [r for r in groups.rows() if r.judge in keep]
        pairs = [(j, j) for j in sorted(keep) if any(r.judge == j for r in base)]
        if not pairs:
            raise RuleError(f"{baseline} shares no judge with {run}; gate the same judge")
        checks += [check_regression(r, base, rows, pairs) for r in rules if r.kind == "regression"]
    for c in checks:
        console.print(c.line, highlight=False, soft_wrap=True)
    if not all(c.passed for c in checks):
        raise typer.Exit(1)
