"""Shared CLI plumbing: user mistakes become one red line and exit status 1, never a traceback."""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from paraudit.errors import ParauditError

console = Console()
err_console = Console(stderr=True)

P = ParamSpec("P")
R = TypeVar("R")


def fail(message: str, code: int = 1) -> typer.Exit:
    # Messages quote user text and extras like 'paraudit[openai]': never read them as markup.
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def user_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn ParauditError (and Ctrl-C) into a clean exit."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except ParauditError as e:
            # A usage mistake (a malformed spec: specs.SpecError) exits 2, as a bad flag does.
            raise fail(str(e), getattr(e, "exit_code", 1)) from None
        except OSError as e:
            # A path the user gave that cannot be read or written (full disk, permissions, a
            # file where a folder belongs): one line naming it, not a traceback.
            raise fail(os_error_message(e)) from None
        except KeyboardInterrupt:
            global _interrupt_note
            note, _interrupt_note = _interrupt_note, None
            note = note or "finished work is saved; rerun to resume"
            err_console.print(f"[yellow]interrupted[/]: {escape(note)}", soft_wrap=True)
            leave_hung_threads(130)
            raise typer.Exit(130) from None

    return wrapper


_interrupt_note: str | None = None


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextmanager
def stoppable(note: str) -> Iterator[None]:
    """A long command's body: SIGTERM stops it as Ctrl-C does (the same cleanup: worker pools
    terminated and joined, temporary folders removed) instead of killing the process with its
    render workers left running, and the interruption line says `note` (what was kept and how
    to resume)."""
    global _interrupt_note
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminated) if main else None
    before, _interrupt_note = _interrupt_note, note
    try:
        yield
    except BaseException:
        # The note stays for user_errors' interruption line (which clears it).
        if main:
            signal.signal(signal.SIGTERM, previous)
        raise
    _interrupt_note = before
    if main:
        signal.signal(signal.SIGTERM, previous)


def leave_hung_threads(code: int) -> None:
    """After Ctrl-C, exit now if worker threads are still running (a call hung on a server):
    the interpreter would otherwise join them at exit and the first Ctrl-C would seem
    ignored. Everything finished is already committed; only the hung calls are dropped."""
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if not others or threading.current_thread() is not threading.main_thread():
        return
    if "pytest" in sys.modules:  # in-process tests (CliRunner) must keep their process
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def os_error_message(e: OSError) -> str:
    where = f"{e.filename}: " if e.filename else ""
    what = e.strerror or str(e) or type(e).__name__
    return f"{where}{what} (check the path, its permissions and free space)"


def warn(message: str) -> None:
    err_console.print(
        f"[bold yellow]warning:[/] {escape(message)}", highlight=False, soft_wrap=True
    )


def check_folder(path: Path, what: str) -> None:
    """`path` is, or can be made, a folder this process may write in; else one clear line."""
    if path.is_symlink() and not path.exists():
        raise ParauditError(f"{what} {path} is a broken symlink; give a real folder")
    if path.exists() and not path.is_dir():
        raise ParauditError(f"{what} {path} is a file; give a folder path")
    probe = path.absolute()
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise ParauditError(f"{what} {path} cannot be created: {probe} is a file")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ParauditError(
            f"{what} {path}: {probe} is not writable; choose a folder you can write"
        )


def prepare_output(
    path: Path,
    *,
    force: bool,
    what: str,
    marker: str | None = None,
    inputs: Sequence[Path] = (),
) -> Path:
    """Check an output folder before any work starts: a file, an unwritable place, a place
    inside a dataset (or, for a dataset, inside a run folder) or (unless `force`) a non-empty
    folder is refused with one line naming the fix.

    With `marker`, even `force` only replaces a folder holding that file (an earlier output of
    the same kind) and nothing paraudit did not write there, so a slip such as `--out ~ --force`
    or a run folder kept inside a dataset cannot be wiped. Nothing is deleted here: writers
    build the output beside `path` and swap it in when complete.
    """
    from paraudit.cli.outputs import refuse_inside_dataset, refuse_inside_run
    from paraudit.items.dataset import MANIFEST, foreign_entries, refuse_foreign
    from paraudit.items.hf import HF_STATE, hf_foreign_entries

    check_folder(path, what)
    refuse_inside_dataset(path, what, inputs)  # the one output guard (items.guard)
    if marker == MANIFEST:
        refuse_inside_run(path, what)
    parent = path.absolute().parent
    if path.exists() and not os.access(parent, os.W_OK | os.X_OK):
        # The finished output is built beside `path` and swapped in from there.
        raise ParauditError(f"{what} {path} cannot be replaced: {parent} is not writable")
    if path.is_dir() and any(path.iterdir()):
        if not force:
            raise ParauditError(
                f"{what} {path} is not empty; pass --force to replace it, or choose a new folder"
            )
        if marker is not None and not (path / marker).exists():
            raise ParauditError(
                f"{what} {path} holds files that are not an earlier output (no {marker}); "
                "--force only replaces those: choose a new or empty folder"
            )
        if marker == MANIFEST:
            refuse_foreign(path, foreign_entries(path), "dataset")
        elif marker == HF_STATE:
            refuse_foreign(path, hf_foreign_entries(path), "export")
    return path
