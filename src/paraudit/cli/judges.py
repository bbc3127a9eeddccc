"""`paraudit judges`: the backends, whether each is installed, and what it needs."""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.padding import Padding

from paraudit.cli.common import console, user_errors
from paraudit.cli.engine import open_engine, print_cluster
from paraudit.judges.catalogue import CHECKED, catalogue_lines
from paraudit.judges.registry import BUILTIN_MODELS, list_backends


@user_errors
def judges(
    engine: str = typer.Option(
        "local", metavar="local|ray", help="local | ray: also show the Ray cluster."
    ),
    ray_address: str | None = typer.Option(
        None, metavar="ADDR", help="Ray cluster: auto | ray://HOST:10001."
    ),
) -> None:
    """List judge backends (and, with --engine ray, the cluster's resources)."""
    # One block per backend rather than a table: install commands and spec forms must stay
    # whole (copyable) in an 80-column terminal. What to install is shown only where something
    # is missing: beside an installed backend it read as if that backend still needed it.
    rows = list_backends()
    for name, desc, ok, need, key in rows:
        mark = "[green]installed[/]" if ok else "[bold yellow]missing[/]"
        console.print(f"[bold]{escape(name)}[/]  {mark}  API key: {escape(key)}", highlight=False)
        # Prose: wrapped at spaces within the width (soft_wrap=False), never a command.
        console.print(Padding(escape(desc), (0, 0, 0, 2)), highlight=False, soft_wrap=False)
        if need and not ok:
            # Each command on a line of its own, whole (copyable) within 80 columns.
            for i, step in enumerate(need.split(" && ")):
                head = "  needs: " if i == 0 else "  then:  "
                console.print(f"{head}{escape(step)}", highlight=False)
    have = [name for name, _, ok, _, _ in rows if ok]
    lack = [name for name, _, ok, _, _ in rows if not ok]
    console.print(
        f"installed: {', '.join(have) or 'none'} · missing: {', '.join(lack) or 'none'}",
        highlight=False,
        soft_wrap=False,
    )
    console.print(
        "builtin models: " + ", ".join(f"builtin:{m}" for m in BUILTIN_MODELS), soft_wrap=False
    )
    console.print(f"model notes (the providers' pages as read on {CHECKED}; check them):")
    for line in catalogue_lines():  # what the providers say about the models the paper used
        console.print(f"note: {escape(line)}", highlight=False, soft_wrap=False)
    with open_engine(engine, ray_address) as cluster:
        if cluster is not None:
            print_cluster(cluster)
