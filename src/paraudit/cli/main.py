"""Entry point: `paraudit <command>`.

Commands load lazily: `paraudit --help` lists them from the table below without importing
any, and `paraudit run` imports only what running needs (never scipy or matplotlib, which
only the report and compare use). Start-up time is part of every audit's cost.
"""

from __future__ import annotations

import importlib

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

try:
    from typer import _click as click  # typer ≥ 0.24 vendors click; its types are these
except ImportError:  # pragma: no cover - older typer uses the click package
    import click  # type: ignore[no-redef]

COMMANDS: dict[str, tuple[str, str, str]] = {
    # name: (module, function, first line of its help: `paraudit --help` shows it unimported)
    "build": (
        "paraudit.cli.build",
        "build",
        "Build an audit dataset (resumable: rerun the same command after a crash).",
    ),
    "validate": ("paraudit.cli.validate", "validate", "Check every invariant of an audit dataset."),
    "export-hf": (
        "paraudit.cli.hf",
        "export_cmd",
        "Export a dataset to a Hugging Face `datasets` folder with Audio columns.",
    ),
    "import-hf": (
        "paraudit.cli.hf",
        "import_cmd",
        "Import a Hugging Face export back into a dataset folder (validated before it is kept).",
    ),
    "run": (
        "paraudit.cli.run",
        "run",
        "Put every counterfactual question to each judge; a rerun resumes.",
    ),
    "judges": (
        "paraudit.cli.judges",
        "judges",
        "List judge backends (and, with --engine ray, the cluster's resources).",
    ),
    "dimensions": (
        "paraudit.cli.dimensions",
        "dimensions",
        "List the paralinguistic dimensions installed: values, item kinds, renderer, QC, needs.",
    ),
    "demo": (
        "paraudit.cli.demo",
        "demo",
        "The offline demo audit: starter set × four built-in judges × every probe and cue (and "
        "builtin:prosody again with its clips joined), ending with the diagnostic report.",
    ),
    "report": (
        "paraudit.cli.report",
        "report",
        "Write the diagnostic report (HTML, Markdown, JSON, CSV, LaTeX, figures).",
    ),
    "compare": (
        "paraudit.cli.compare",
        "compare",
        "Per probe, at item level: paired bootstrap of the change and an exact McNemar test on "
        "per-item order-consistent outcomes; state shifts and state correlations.",
    ),
    "annotate": (
        "paraudit.cli.annotate",
        "annotate",
        "Human validation: serve the listening test (native pointwise format) and print one "
        "secret link per annotator.",
    ),
    "annotate-export": (
        "paraudit.cli.annotate",
        "annotate_export",
        "Export human answers (with the answer key: keep the files away from annotators).",
    ),
    "annotate-stats": (
        "paraudit.cli.annotate",
        "annotate_stats",
        "Annotator accuracy, agreement on the overlap set, consistency, catch items, hard items.",
    ),
    "annotate-simulate": (
        "paraudit.cli.annotate",
        "annotate_simulate",
        "Simulated annotators through the real HTTP API (for demos and load tests; they read the "
        "answer key from the store, so their accuracy is the skill given, not a human result).",
    ),
    "card": (
        "paraudit.cli.card",
        "card",
        "A verifiable audit card (Markdown + JSON), an Every Eval Ever record and a Hugging Face "
        "eval_results entry per judge, and an in-toto Statement of the run's file digests.",
    ),
    "verify": (
        "paraudit.cli.verify",
        "verify",
        "Recompute every digest and the summary from the run folder; any mismatch is one line "
        "naming the file, exit 1.",
    ),
    "gate": (
        "paraudit.cli.gate",
        "gate",
        "A CI gate: check rules against a run's verdicts (and, with --baseline, its regression on "
        "shared items); one line per rule, exit 0 when all hold, 1 when one fails.",
    ),
    "series": (
        "paraudit.cli.series",
        "series",
        "Verdicts and key figures of a sequence of runs (checkpoints) of the same dataset, with "
        "item-level paired tests between consecutive runs and against the first (Holm), "
        "regressions flagged.",
    ),
    "plan": (
        "paraudit.cli.plan",
        "plan",
        "Items needed for a stated difference and power (exact tests; the paired case "
        "conditioned on the number of discordant items), the calls and, with a price, the cost.",
    ),
}


def load_command(name: str) -> click.Command:
    """Import one command's module and build its click command."""
    from paraudit.cli.help import Help  # with the command, not for the listing

    module, attr, _ = COMMANDS[name]
    sub = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    sub.command(name, cls=Help)(getattr(importlib.import_module(module), attr))
    return typer.main.get_command(sub)


class LazyGroup(TyperGroup):
    """Lists the table's commands from their static help; imports one only to run it (or to
    show its own --help). Commands registered the usual way (app.command) still work."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *(n for n in super().list_commands(ctx) if n not in COMMANDS)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS:
            return TyperCommand(cmd_name, help=COMMANDS[cmd_name][2])  # a listing entry
        return super().get_command(ctx, cmd_name)

    def get_help_option(self, ctx: click.Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""  # a flag takes no value: no "<bool>" type beside --help
        return option

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] in COMMANDS:
            return args[0], load_command(args[0]), args[1:]
        return super().resolve_command(ctx, args)


app = typer.Typer(
    name="paraudit",
    help="Counterfactual audits of audio-language-model judges.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=LazyGroup,
)


@app.callback()
def main() -> None:
    """Counterfactual audits of audio-language-model judges."""
    from paraudit.cli.common import warn
    from paraudit.collector import tune
    from paraudit.waits import on_long_wait

    on_long_wait(warn)  # a run or build waiting on a server's Retry-After says so, once a wait
    tune()  # less CPU spent collecting garbage over a long audit (collector.py: measured)


def run_module() -> None:
    """`python -m paraudit.cli.main`: Typer turns a Ctrl-C outside any command body (e.g.
    while a command module is imported) into exit 130 itself, past `user_errors`; the exec
    flag is cleared there too (`common.forget_interrupted_exec`)."""
    from paraudit.cli.common import forget_interrupted_exec

    try:
        app()
    except SystemExit as e:
        if e.code == 130:
            forget_interrupted_exec()
        raise


if __name__ == "__main__":
    run_module()
