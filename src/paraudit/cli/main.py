"""Entry point: `paraudit <command>`."""

from __future__ import annotations

import typer

from paraudit.cli import annotate, build, compare, demo, hf, judges, report, run, validate

app = typer.Typer(
    name="paraudit",
    help="Counterfactual audits of audio-language-model judges.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("build")(build.build)
app.command("validate")(validate.validate)
app.command("export-hf")(hf.export_cmd)
app.command("import-hf")(hf.import_cmd)
app.command("run")(run.run)
app.command("judges")(judges.judges)
app.command("demo")(demo.demo)
app.command("report")(report.report)
app.command("compare")(compare.compare)
annotate.register(app)  # annotate, annotate-export, annotate-stats, annotate-simulate

if __name__ == "__main__":
    app()
