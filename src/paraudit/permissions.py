"""Temporary files and folders (mkstemp, mkdtemp) are private (0600/0700) by design; outputs
made from them must follow the user's umask like any other file, or shared storage, other
users and cluster workers running as another user cannot read a dataset, a cache or a run."""

from __future__ import annotations

import functools
import os
from pathlib import Path


@functools.cache
def _umask() -> int:
    # os.umask can only be read by setting it; done once, before any worker threads start.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def follow_umask(path: Path | str) -> None:
    """Give a file made by mkstemp (or a folder made by mkdtemp) the mode a plain open()
    (or mkdir) would have given it."""
    base = 0o777 if Path(path).is_dir() else 0o666
    os.chmod(path, base & ~_umask())
