"""Every command's --help at 80 columns: nothing cut, no type column, room for descriptions."""

from __future__ import annotations

import re

import pytest
from typer.core import TyperArgument, TyperOption
from typer.testing import CliRunner

from paraudit.cli.help import panels
from paraudit.cli.main import COMMANDS, app, load_command

WIDTH = 80
MIN_DESCRIPTION = 40
# An option row: "│ --name METAVAR   description…" (a negative-only line has no description).
TYPE = re.compile(r"<(bool|int|float|str|path|list|text)\b")
ROW = re.compile(r"^│ (--[^\s│]+(?: [^\s│]+)?) +([^\s│])")


def _help(*args: str) -> str:
    r = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": str(WIDTH)})
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_fits_80_columns_whole(name: str) -> None:
    text = _help(name)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    assert "…" not in text  # no option name, default or description cut short
    assert not TYPE.search(text)  # no "<bool>", "<int range>" type column
    starts = {m.start(2) for line in lines if (m := ROW.match(line))}
    assert len(starts) == 1, starts  # one description column down the page
    # The panel's right border and padding take 2 columns.
    assert WIDTH - 2 - starts.pop() >= MIN_DESCRIPTION
    tokens = set(text.split())
    command = load_command(name)
    with command.make_context(name, [], resilient_parsing=True) as ctx:
        for param in command.get_params(ctx):
            assert isinstance(param, (TyperArgument, TyperOption))
            # Each word of the help whole (never broken across lines, never read as markup).
            missing = [w for w in (param.help or "").split() if w not in tokens]
            assert not missing, (param.name, missing)
            shown = param.default
            if isinstance(param, TyperOption) and not param.is_flag and shown not in (None, "", []):
                assert re.search(rf"\[default: {re.escape(str(shown))}[;\]]", text), param.name


def test_options_are_grouped_in_panels() -> None:
    """The long commands split their options into the issue's panels, in a useful order."""
    command = load_command("run")
    with command.make_context("run", [], resilient_parsing=True) as ctx:
        titles = list(panels(command, ctx))
    assert titles == ["Arguments", "What to ask", "How to call", "Output", "Scale-out (Ray)"]
    text = _help("run")
    assert "╭─ What to ask" in text and "╭─ Options" not in text
    assert _help("build").count("╭─") >= 5


def test_top_level_help_has_no_type_column() -> None:
    text = _help()
    assert "<bool>" not in text and "…" not in text
    assert all(name in text for name in COMMANDS)
