"""`paraudit judges`: the backends, whether each is installed, and what it needs."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from paraudit.cli.common import console
from paraudit.judges.registry import BUILTIN_MODELS, list_backends


def judges() -> None:
    """List judge backends."""
    table = Table()
    for col in ("backend", "what", "installed", "needs", "API key"):
        table.add_column(col)
    for name, desc, ok, need, key in list_backends():
        table.add_row(*(escape(x) for x in (name, desc, "yes" if ok else "no", need, key)))
    console.print(table)
    console.print("builtin models: " + ", ".join(f"builtin:{m}" for m in BUILTIN_MODELS))
