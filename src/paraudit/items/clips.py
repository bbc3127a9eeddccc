"""Contained access to a dataset's audio: the only way paraudit opens a clip.

A dataset folder may come from anyone. Its items name clips by relative path, and a clip may be
a symlink, so a shared dataset could otherwise point a judge (or an export) at any local file —
a key, a system file — or at a device such as /dev/zero that never ends. Every clip therefore
resolves (symlinks followed) to a regular file inside the dataset folder, no larger than
MAX_CLIP_BYTES, and is read through one bounded read of the descriptor that was checked.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from paraudit.errors import DatasetError

# 60 s (the longest clip validate accepts) of 48 kHz 32-bit audio is 11.5 MB; 32 MiB leaves room
# for richer formats while a runaway file cannot exhaust memory.
MAX_CLIP_BYTES = 32 * 1024 * 1024

# O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the path was resolved, so a
# symlink appearing at the last step after the check is refused rather than followed.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def resolve_clip(root: Path, rel: str) -> Path:
    """The real path of clip `rel` of the dataset at `root`, after every containment rule.

    Raises DatasetError naming the clip and the rule it breaks.
    """
    if Path(rel).is_absolute() or ".." in Path(rel).parts:
        raise DatasetError(f"{rel}: clip paths must be relative and inside the dataset folder")
    base = root.resolve()
    try:
        real = (root / rel).resolve(strict=True)
    except FileNotFoundError:
        raise DatasetError(f"{rel}: file does not exist") from None
    except (OSError, RuntimeError) as e:  # RuntimeError: a symlink loop on older Pythons
        raise DatasetError(f"{rel}: cannot be resolved ({e})") from None
    if not real.is_relative_to(base):
        raise DatasetError(
            f"{rel}: points outside the dataset folder (to {real}); a dataset may only use "
            "clips stored inside its own folder"
        )
    mode = real.stat().st_mode
    if not stat.S_ISREG(mode):
        raise DatasetError(f"{rel}: is {_kind(mode)}, not an audio file")
    size = real.stat().st_size
    if size > MAX_CLIP_BYTES:
        raise DatasetError(f"{rel}: {_mb(size)} exceeds the {_mb(MAX_CLIP_BYTES)} limit per clip")
    return real


def read_clip(root: Path, rel: str) -> bytes:
    """The bytes of clip `rel`, read once from the checked file, never more than the limit."""
    return read_clip_file(resolve_clip(root, rel), rel)


def read_clip_file(path: Path, label: str | None = None) -> bytes:
    """A bounded read of a clip path already returned by `resolve_clip` (e.g. an AudioPart's
    path, as judges get it): a regular file no larger than MAX_CLIP_BYTES, checked on the open
    descriptor, so a file swapped for a link, FIFO or device after the check is still refused."""
    name = label or str(path)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as e:
        raise DatasetError(f"{name}: cannot be opened ({e.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(f.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise DatasetError(f"{name}: is {_kind(mode)}, not an audio file")
        data = f.read(MAX_CLIP_BYTES + 1)
    if len(data) > MAX_CLIP_BYTES:
        raise DatasetError(f"{name}: exceeds the {_mb(MAX_CLIP_BYTES)} limit per clip")
    return data


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MiB"
