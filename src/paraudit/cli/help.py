"""`--help` that reads at 80 columns: options in named panels, two columns, defaults whole.

Typer's own layout gives each option six columns (short and long names, their negatives, a type
such as `<bool>`, the description); at 80 columns that left descriptions ~18 characters and cut
names and defaults with "…". Here an option is its name with a short metavar, then its
description with `[default: …]` appended as words, so rich wraps it at spaces and never cuts it.
Panels come from each option's `rich_help_panel=`, in the order options are declared.
"""

from __future__ import annotations

import inspect
from enum import Enum
from pathlib import Path

from rich import box
from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from typer.core import TyperArgument, TyperCommand, TyperOption

try:
    from typer import _click as click  # typer ≥ 0.24 vendors click; its types are these
except ImportError:  # pragma: no cover - older typer uses the click package
    import click  # type: ignore[no-redef]

ARGUMENTS = "Arguments"
OPTIONS = "Options"
# Panel names the commands share (`rich_help_panel=`), so the same kind of option is found
# under the same heading everywhere.
ASK = "What to ask"
CALLS = "How to call"
OUTPUT = "Output"
SCALE = "Scale-out (Ray)"
LAST = (OUTPUT, SCALE)
STATS = "Statistics"
TYPE_METAVARS = {"int": "N", "float": "X", "str": "TEXT", "bool": "BOOL"}
"""Metavar of an option that names none: short, so the description column keeps its width."""
Param = TyperArgument | TyperOption


def _metavar(param: TyperOption) -> str:
    if param.metavar:
        return param.metavar
    if param.type_descriptor.is_path:
        return "PATH"
    name = param.bare_type().removeprefix("list[").removesuffix("]")
    return TYPE_METAVARS.get(name, name.upper())


def _name(param: Param) -> Text:
    if isinstance(param, TyperArgument):
        return Text(param.display_name_raw, style="bold cyan")
    text = Text(", ".join(param.opts), style="bold cyan")
    if not param.is_flag:
        text.append(f" {_metavar(param)}", style="yellow")
    for negative in param.secondary_opts:
        # The negative form on its own line: beside the first it would widen the name column.
        text.append(f"\n{negative}", style="bold magenta")
    return text


def _default(param: Param) -> str | None:
    show = getattr(param, "show_default", None)
    if isinstance(show, str):
        return show
    if show is False or param.default is None:
        return None
    value = param.default
    if isinstance(param, TyperOption) and param.is_flag:
        if not param.secondary_opts or not isinstance(value, bool):
            return None  # a plain flag is off unless given: nothing to say
        return param.opts[0] if value else param.secondary_opts[0]
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or None
    if value == "":
        return None  # an empty text default means "not given"; the help says what that does
    if isinstance(value, Enum):
        return str(value.value)
    if callable(value):
        return "(dynamic)"
    return str(value) if isinstance(value, (str, int, float, Path)) else None


def _range(param: Param) -> str | None:
    lo, hi = param.min, param.max
    if lo is not None and hi is not None:
        return f"{lo} to {hi}"
    if lo is not None:
        return f"at least {lo}"
    if hi is not None:
        return f"at most {hi}"
    return None


def _description(param: Param, console: Console, width: int) -> Text:
    """Help text, then range, default and [required], each kept whole on one line: one that
    would wrap ("[default:" | "both]") starts a new line instead."""
    # Plain text, not rich markup: help names extras such as paraudit[annotate].
    text = Text(" ".join(inspect.cleandoc(param.help or "").split()))
    # Default and range in one bracket ("[default: 8; at least 1]"): a line less per option.
    facts = [f"default: {d}" for d in (_default(param),) if d is not None]
    facts += [r for r in (_range(param),) if r is not None]
    extras = [(f"[{'; '.join(facts)}]", "dim")] if facts else []
    if param.required:
        extras.append(("[required]", "red"))
    for extra, style in extras:
        if text:
            last = text.wrap(console, width)[-1].cell_len if width > 0 else 0
            text.append(" " if last + 1 + len(extra) <= width else "\n")
        text.append(extra, style=style)
    return text


def panels(command: click.Command, ctx: click.Context) -> dict[str, list[Param]]:
    """Parameters by panel: arguments first, then each panel in the order its first option is
    declared; `--help` joins the last panel instead of standing alone in a panel of its own."""
    out: dict[str, list[Param]] = {}
    params = [
        p
        for p in command.get_params(ctx)
        if isinstance(p, (TyperArgument, TyperOption)) and not p.hidden
    ]
    for p in params:
        if isinstance(p, TyperArgument):
            out.setdefault(getattr(p, "rich_help_panel", None) or ARGUMENTS, []).append(p)
    helper = command.get_help_option(ctx)
    for p in params:
        if isinstance(p, TyperOption) and p is not helper:
            out.setdefault(getattr(p, "rich_help_panel", None) or OPTIONS, []).append(p)
    # What to ask and how come first; where the output goes and how to scale out, last.
    for title in LAST:
        if title in out:
            out[title] = out.pop(title)
    if helper is not None:
        last = next((n for n in reversed(out) if n != ARGUMENTS), OPTIONS)
        out.setdefault(last, []).append(helper)
    return out


def render_help(command: click.Command, ctx: click.Context) -> None:
    # A console per call: its width is read now (COLUMNS or the terminal), not frozen at import.
    console = Console(highlight=False)
    console.print(Padding(Text(command.get_usage(ctx), style="bold"), (1, 1)))
    if command.help:
        doc = inspect.cleandoc(command.help).partition("\f")[0]
        paragraphs = [" ".join(p.split()) for p in doc.split("\n\n")]
        body = Group(*(Text(p) for p in paragraphs))
        console.print(Padding(body, (0, 1, 1, 1)))
    grouped = panels(command, ctx)
    # One name-column width for every panel, so descriptions line up down the page.
    width = max(
        (len(line) for ps in grouped.values() for p in ps for line in _name(p).plain.split("\n")),
        default=0,
    )
    # Panel border and padding take 4 columns, the gap between the two columns 2.
    room = console.width - 4 - width - 2
    for title, params in grouped.items():
        table = Table(box=None, show_header=False, expand=True, pad_edge=False, padding=(0, 1))
        table.add_column(no_wrap=True, width=width)
        table.add_column(ratio=1)
        for p in params:
            table.add_row(_name(p), _description(p, console, room))
        console.print(
            Panel(table, title=title, title_align="left", border_style="dim", box=box.ROUNDED)
        )


class Help(TyperCommand):
    """A typer command whose --help is `render_help`'s."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        render_help(self, ctx)
