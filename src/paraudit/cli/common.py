"""Shared CLI plumbing: user mistakes become one red line and exit status 1, never a traceback."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from paraudit.errors import ParauditError

console = Console()
err_console = Console(stderr=True)

P = ParamSpec("P")
R = TypeVar("R")


def fail(message: str) -> typer.Exit:
    # Messages quote user text and extras like 'paraudit[openai]': never read them as markup.
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(1)


def user_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn ParauditError (and Ctrl-C) into a clean exit."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except ParauditError as e:
            raise fail(str(e)) from None
        except KeyboardInterrupt:
            err_console.print("[yellow]interrupted[/]: finished work is saved; rerun to resume")
            raise typer.Exit(130) from None

    return wrapper
