"""Shared CLI plumbing: user mistakes become one red line and exit status 1, never a traceback."""

from __future__ import annotations

import functools
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import typer
from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, ProgressColumn, TaskID
from rich.text import Text

from paraudit.errors import ParauditError


class LiteralConsole(Console):
    """A console that prints paths, specs and model text literally.

    No emoji codes (a folder named ':smile:' stays so) and no highlighting. Plain text is
    wrapped at spaces only: rich would otherwise cut a word longer than the line (a path, a
    spec) in two, and the printed command no longer pastes back. A line that must never be
    broken (a command, a path that may hold spaces) passes soft_wrap=True; tables and other
    renderables are laid out by rich as usual. Markup stays for our own styling: user text goes
    through `escape`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(emoji=False, highlight=False, **kwargs)
        # rich freezes COLUMNS as it is when the console is made (at import); read it at each
        # print instead, as the terminal's own size is, so one process (a test run, a
        # notebook) that changes it is printed at the width it has now.
        if "width" not in kwargs:
            self._width = None

    def print(self, *objects: Any, **kwargs: Any) -> None:
        if kwargs.get("soft_wrap") is not None or not objects:
            return super().print(*objects, **kwargs)
        if not all(isinstance(o, str) for o in objects):
            return super().print(*objects, **kwargs)
        sep, end = kwargs.pop("sep", " "), kwargs.pop("end", "\n")
        text = self.render_str(
            sep.join(objects),
            markup=kwargs.pop("markup", None),
            emoji=kwargs.pop("emoji", None),
            highlight=kwargs.pop("highlight", None),
        )
        width = kwargs.pop("width", None) or self.width
        lines = [part for line in text.split(allow_blank=True) for part in _at_spaces(line, width)]
        for n, line in enumerate(lines, 1):
            line.rstrip()
            super().print(line, soft_wrap=True, end=end if n == len(lines) else "\n", **kwargs)


def _at_spaces(line: Text, width: int) -> list[Text]:
    """`line` broken before words that would pass `width`; a word longer than the width stays
    whole on a line of its own (rich's own wrap would fold it)."""
    breaks: list[int] = []
    used = 0
    for word in re.finditer(r"\S+\s*", line.plain):
        need = cell_len(word.group().rstrip())
        if used and used + need > width:
            breaks.append(word.start())
            used = 0
        used += cell_len(word.group())
    return list(line.divide(breaks)) if breaks else [line]


console = LiteralConsole()
err_console = LiteralConsole(stderr=True)

LINE_EVERY_S = 10.0
"""Plain progress lines (output that is not a terminal): at most one per this many seconds
(PARAUDIT_PROGRESS_EVERY overrides it: 0 prints every step, which the tests use)."""


def _line_every() -> float:
    raw = os.environ.get("PARAUDIT_PROGRESS_EVERY", "")
    try:
        value = float(raw)
    except ValueError:
        return LINE_EVERY_S
    return value if value >= 0 and value == value else LINE_EVERY_S  # not NaN


class LineProgress(Progress):
    """The progress of a long command where stdout is not a terminal (a log file, a pipe, CI).

    rich draws a live bar only on a terminal and otherwise prints nothing until the end, so a
    ten-minute build looked hung. This prints one plain line to stderr at most every
    LINE_EVERY_S (nothing for a command shorter than that) and a closing line if it printed
    any; stdout keeps only the command's results."""

    def __init__(self, label: str, every_s: float | None = None) -> None:
        super().__init__(console=err_console, disable=True)
        self.label = label
        self.every_s = _line_every() if every_s is None else every_s
        self.started = self.last = time.monotonic()
        self.printed = False

    def update(self, task_id: TaskID, **kwargs: Any) -> None:
        super().update(task_id, **kwargs)
        self._line(task_id)

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._line(task_id)

    def _line(self, task_id: TaskID, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self.last < self.every_s:
            return
        task = self._tasks[task_id]
        done, total = int(task.completed), task.total
        of = f"{done}/{int(total)} ({done / total:.0%})" if total else f"{done}"
        what = " · ".join(p for p in (task.description.strip(), of) if p)
        err_console.print(
            f"{escape(self.label)}: {escape(what)} · {now - self.started:.0f} s", highlight=False
        )
        self.last = now
        self.printed = True

    def stop(self) -> None:
        if self.printed:
            for task_id in self._tasks:
                self._line(task_id, final=True)
        super().stop()


def progress_bar(label: str, *columns: str | ProgressColumn) -> Progress:
    """A live bar on stdout when it is a terminal, else plain lines on stderr (LineProgress)."""
    if console.is_terminal:
        return Progress(*columns, console=console, transient=True)
    return LineProgress(label)


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
            forget_interrupted_exec()
            leave_hung_threads(130)
            raise typer.Exit(130) from None

    return wrapper


_interrupt_note: str | None = None


def forget_interrupted_exec() -> None:
    """Keep exit status 130 when the interruption was raised inside an `exec` of a string
    (dataclasses and namedtuple run hundreds while a lazy import runs): CPython 3.11–3.13 then
    set a flag that makes `python -m` exit by re-raising SIGINT (status -2), silently, even
    after the KeyboardInterrupt was handled. Seen in CI as a SIGTERM'd `report` that printed
    its interruption line and ended -2. There every `exec` of a string clears that flag
    first; where it no longer does (newer CPython sets it only for `-m`'s own module), this is
    a no-op. Console scripts exit through `sys.exit` directly and were never affected."""
    exec("")


def _in_finalizer(frame: Any) -> bool:
    """Whether `frame` runs inside a finalizer (a `__del__`, a weakref callback): an exception
    raised there is printed as "Exception ignored in …" and lost."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or code.co_filename.endswith("weakref.py"):
            return True
        frame = frame.f_back
    return False


def _terminated(signum: int, frame: Any) -> None:
    """Ctrl-C or SIGTERM as KeyboardInterrupt, never raised where it would be lost: a SIGTERM
    that landed in a WeakKeyDictionary callback was swallowed and `report` ran on to the end,
    exit 0. There the same signal is delivered again a moment later, outside it."""
    global _signalled
    if _in_finalizer(frame):
        _deliver_again(signum)
        return
    _signalled = signum
    raise KeyboardInterrupt


def _deliver_again(signum: int) -> None:
    """The signal once more in a moment, outside the finalizer that would have lost it."""
    import _thread

    threading.Timer(0.05, _thread.interrupt_main, args=(signum,)).start()


_signalled = 0
"""The signal whose KeyboardInterrupt `_terminated` raised in the current `stoppable` body
(0: none)."""


def _replaced_interrupt(e: BaseException) -> bool:
    """Whether `e` is an error a C extension raised in place of the handler's KeyboardInterrupt
    (matplotlib's image resampling cleared it and raised "Invalid affine transformation
    matrix": a traceback and exit 1 from a SIGINT'd `report` in a suite run). An error raised
    while the interruption was being handled (a bug in a cleanup) has it in its chain and
    stays a traceback, as does any error without a signal."""
    if not _signalled or not isinstance(e, Exception) or isinstance(e, typer.Exit):
        return False
    seen: set[int] = set()
    link: BaseException | None = e
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return False
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return True


@contextmanager
def stoppable(note: str) -> Iterator[None]:
    """A long command's body: SIGTERM stops it as Ctrl-C does (the same cleanup: worker pools
    terminated and joined, temporary folders removed) instead of killing the process with its
    render workers left running, and the interruption line says `note` (what was kept and how
    to resume)."""
    global _interrupt_note, _signalled
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminated) if main else None
    # Ctrl-C the same way, where Python's own handler (which raises anywhere) is in place.
    was_int = signal.getsignal(signal.SIGINT) if main else None
    if was_int is signal.default_int_handler:
        signal.signal(signal.SIGINT, _terminated)
    hook = sys.unraisablehook

    def lost(unraisable: Any) -> None:
        """A KeyboardInterrupt raised in a finalizer `_in_finalizer` does not recognise (a
        generator's `finally` run as the generator is freed) is printed and lost, and the body
        would run on: deliver the signal again, outside it."""
        global _signalled
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and _signalled:
            signum, _signalled = _signalled, 0
            _deliver_again(signum)
            return
        hook(unraisable)

    def restore() -> None:
        if main:
            signal.signal(signal.SIGTERM, previous)
            if was_int is signal.default_int_handler:
                signal.signal(signal.SIGINT, was_int)
            sys.unraisablehook = hook

    before, _interrupt_note = _interrupt_note, note
    if main:  # the flag is the main thread's: signal handlers run there only
        _signalled = 0
        sys.unraisablehook = lost
    try:
        yield
    except BaseException as e:
        # The note stays for user_errors' interruption line (which clears it).
        restore()
        if main and _replaced_interrupt(e):
            raise KeyboardInterrupt from e
        raise
    finally:
        if main:
            _signalled = 0
    _interrupt_note = before
    restore()


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
