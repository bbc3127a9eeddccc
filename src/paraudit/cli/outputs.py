"""Output paths, checked before any work: paraudit never replaces or deletes what it did not write.

A file output (compare --out, annotate-export --csv/--jsonl, annotate-stats --json) refuses an
existing file unless --force, and even then replaces only an earlier output of the same kind,
recognised by its own marker (a key, a header line). Two outputs of one command on one path are
refused, and no output may land inside a dataset folder (it would change the dataset, and with
it the fingerprint that runs record) nor a dataset inside a run folder.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from paraudit.bounds import not_regular
from paraudit.errors import ParauditError
from paraudit.items.guard import OutputLock, enclosing_run, guard_output, recheck
from paraudit.items.guard import enclosing_dataset as enclosing_dataset
from paraudit.permissions import follow_umask

MARKER_KEY = "paraudit_output"
"""Top-level key of paraudit's JSON outputs naming their kind: what --force may replace."""

# How far a file's head is read to recognise it: its marker is on the first line or the first
# key, never further.
_HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class FileKind:
    """One kind of file output and how an earlier one is recognised."""

    name: str
    """Shown in messages, e.g. 'comparison JSON'."""
    recognise: Callable[[bytes], bool]
    """True if the head of an existing file is an earlier output of this kind."""


def json_kind(name: str, marker: str) -> FileKind:
    """A JSON object whose MARKER_KEY is `marker` (paraudit writes it first)."""

    def recognise(head: bytes) -> bool:
        text = head.decode("utf-8", errors="replace")
        return text.startswith("{") and f'"{MARKER_KEY}": {json.dumps(marker)}' in text[:200]

    return FileKind(name, recognise)


def marked_json(data: dict[str, object], marker: str) -> str:
    """`data` as indented JSON with MARKER_KEY first, so a later --force recognises it."""
    return json.dumps({MARKER_KEY: marker, **data}, indent=2) + "\n"


def header_kind(name: str, first_line: str, *, jsonl_keys: Sequence[str] = ()) -> FileKind:
    """A CSV whose first line is `first_line` or (with jsonl_keys) a JSONL whose first row has
    exactly those keys; an empty file (an export of no answers) is one too."""

    def recognise(head: bytes) -> bool:
        if not head.strip():
            return True
        line = head.split(b"\n", 1)[0].decode("utf-8", errors="replace")
        if jsonl_keys:
            try:
                row = json.loads(line)
            except ValueError:
                return False
            return isinstance(row, dict) and list(row) == list(jsonl_keys)
        return line == first_line

    return FileKind(name, recognise)


def check_output_file(
    path: Path, *, option: str, force: bool, kind: FileKind, inputs: Sequence[Path] = ()
) -> None:
    """`path` may be written: its folder exists and is writable, it is not inside a dataset,
    and an existing file is replaced only with --force and only if it is of `kind`."""
    if path.is_dir():
        raise ParauditError(f"{option} {path} is a folder; give a file name inside it")
    parent = path.absolute().parent
    if not parent.is_dir():
        raise ParauditError(f"{option} {path}: folder {parent} does not exist; create it first")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ParauditError(f"{option} {path}: {parent} is not writable; choose another folder")
    refuse_inside_dataset(path, option, inputs)
    if not (path.exists() or path.is_symlink()):
        return
    if not path.is_file() or path.is_symlink():
        raise ParauditError(
            f"{option} {path} exists and is not a regular file; choose a new file name"
        )
    if not force:
        raise ParauditError(
            f"{option} {path} already exists; pass --force to replace an earlier {kind.name}, "
            "or choose a new file name"
        )
    with path.open("rb") as f:
        head = f.read(_HEAD_BYTES)
    if not kind.recognise(head):
        raise ParauditError(
            f"{option} {path} is not an earlier {kind.name} (paraudit did not write it); "
            "--force only replaces those: choose a new file name"
        )


def distinct_outputs(outputs: Sequence[tuple[str, Path | None]]) -> None:
    """Refuse two outputs of one command on one path (one would silently replace the other)."""
    seen: dict[Path, str] = {}
    for option, path in outputs:
        if path is None:
            continue
        real = path.resolve()
        if real in seen:
            raise ParauditError(
                f"{seen[real]} and {option} name the same path {path}; give each its own"
            )
        seen[real] = option


def refuse_inside_dataset(path: Path, option: str, inputs: Sequence[Path] = ()) -> None:
    """The output guard (items.guard): an output inside a dataset would become part of it, one
    inside a run folder would be swept up with it, one on the command's input destroys it."""
    guard_output(path, option, inputs=inputs)


def refuse_inside_run(path: Path, option: str) -> None:
    """A dataset inside a run folder: the run folder is paraudit's to manage (and a dataset
    there would be swept up with it)."""
    run = enclosing_run(path)
    if run is not None:
        raise ParauditError(
            f"{option} {path} is inside the run folder {run}; put datasets outside run folders"
        )


def write_output_file(path: Path, text: str) -> None:
    """Write beside `path` and rename into place: an interrupted write leaves the old file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.absolute().parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        follow_umask(tmp)
        recheck(path, "the output")  # a dataset or run folder made around it meanwhile
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def locked(*outputs: tuple[str, Path | None]) -> ExitStack:
    """`with locked(("--csv", csv), ("--run", run)):` one writer per output (items.guard's
    OutputLock, as builds and reports hold): a second export to the same place fails at once
    with the holder's pid instead of silently replacing the first one's files."""
    stack = ExitStack()
    try:
        for option, path in outputs:
            if path is not None:
                stack.enter_context(OutputLock(path, option))
    except BaseException:
        stack.close()
        raise
    return stack


MAX_INPUT_TEXT_BYTES = 16 * 2**20
"""A list or key file a user hands in (item ids, a public key) is small; past this it is not one."""


def read_input_text(path: Path, option: str) -> str:
    """The text of a small input file named by `option`, refused in one line when it is a FIFO
    or a device (a read of /dev/zero never ends), missing, too large or not UTF-8."""
    kind = not_regular(path)
    if kind is not None:
        raise ParauditError(f"{option} {path} is {kind}, not a file; give a regular file")
    if not path.is_file():
        raise ParauditError(f"{option} {path}: no such file")
    with path.open("rb") as f:
        data = f.read(MAX_INPUT_TEXT_BYTES + 1)
    if len(data) > MAX_INPUT_TEXT_BYTES:
        raise ParauditError(
            f"{option} {path} is larger than {MAX_INPUT_TEXT_BYTES // 2**20} MiB; give the list "
            "itself"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ParauditError(f"{option} {path} is not UTF-8 text") from None
