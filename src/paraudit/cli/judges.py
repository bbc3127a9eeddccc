"""`paraudit judges`: the backends, whether each is installed, and what it needs."""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from paraudit.cli.common import console, user_errors
from paraudit.cli.engine import open_engine, print_cluster
from paraudit.judges.registry import BUILTIN_MODELS, list_backends


@user_errors
def judges(
    engine: str = typer.Option("local", help="local | ray: also show the Ray cluster."),
    ray_address: str | None = typer.Option(None, help="Ray cluster: auto | ray://HOST:10001."),
) -> None:
    """List judge backends (and, with --engine ray, the cluster's resources)."""
    table = Table()
    for col in ("backend", "what", "installed", "needs", "API key"):
        table.add_column(col)
    for name, desc, ok, need, key in list_backends():
        table.add_row(*(escape(x) for x in (name, desc, "yes" if ok else "no", need, key)))
    console.print(table)
    console.print("builtin models: " + ", ".join(f"builtin:{m}" for m in BUILTIN_MODELS))
    with open_engine(engine, ray_address) as cluster:
        if cluster is not None:
            print_cluster(cluster)
