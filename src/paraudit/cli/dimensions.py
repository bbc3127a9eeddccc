"""`paraudit dimensions`: the installed dimensions, their values, item kinds, renderer and QC,
and whether what each needs is installed."""

from __future__ import annotations

import typer
from rich.markup import escape

from paraudit.cli.common import console, fail, user_errors
from paraudit.dimensions import registry
from paraudit.dimensions.base import Dimension
from paraudit.dimensions.registry import DimensionError


def _show(dim: Dimension) -> None:
    def line(text: str) -> None:
        console.print(text, highlight=False, soft_wrap=True)

    ok = all(n.installed for n in registry.needs(dim))
    mark = "[green]ready[/]" if ok else "[yellow]needs installing[/]"
    head = f"[bold]{escape(dim.name)}[/]  {mark}"
    line(head + (f"  {escape(dim.summary)}" if dim.summary else ""))
    values = ", ".join(v.name for v in dim.values)
    line(f"  values: {escape(values)} (reference: {escape(dim.values[0].name)})")
    if dim.response_values:
        line(f"  response-only labels: {escape(', '.join(dim.response_values))}")
    kinds = ", ".join(f"{k} ({dim.task_for(k)})" for k in dim.item_kinds)
    line(f"  item kinds: {escape(kinds)}")
    if dim.no_positional and "positional" not in dim.item_kinds:
        line(f"  no positional items: {escape(dim.no_positional)}")
    for what, target in (("renderer", dim.renderer), ("qc", dim.qc)):
        found = "" if registry.target_present(target) else "  [yellow](module not found)[/]"
        line(f"  {what}: {escape(target)}{found}")
    if dim.taxonomies:
        line(f"  source taxonomies: {escape(', '.join(dim.taxonomies))}")
    for n in registry.needs(dim):
        state = "[green]installed[/]" if n.installed else f"[yellow]missing[/]: {escape(n.install)}"
        line(f"  needs {escape(n.name)}: {state}")
    if not dim.needs:
        line("  needs: nothing beyond paraudit")


@user_errors
def dimensions(
    name: str | None = typer.Argument(None, metavar="[NAME]", help="Show only this dimension."),
) -> None:
    """List the paralinguistic dimensions installed: values, item kinds, renderer, QC, needs.

    Built-in ones and those registered under the entry-point group paraudit.dimensions."""
    if name is not None:
        _show(registry.get(name))
        return
    broken: list[str] = []
    for n in registry.names():
        try:
            dim = registry.get(n)
        except DimensionError as e:
            broken.append(str(e))
            continue
        _show(dim)
    if broken:
        # Listed what loads; a plugin that does not is a broken install the user must fix.
        for message in broken[:-1]:
            fail(message, 2)
        raise fail(broken[-1], 2)
