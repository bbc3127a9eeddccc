"""Leftover temporary files in a render cache, removed when a renderer opens the cache.

A clip is written to a `tmp*.wav` beside the cache (mkstemp) and renamed into place, so a
reader never sees half a clip. A process killed between the two (SIGTERM's default action in a
render worker, a power cut) leaves that temporary file behind: never read, but litter that
grows with every interrupted build. Only files older than `STALE_S` are removed: a write in
flight in another process (a worker of a concurrent build) takes milliseconds.
"""

from __future__ import annotations

import time
from pathlib import Path

STALE_S = 3600.0
"""Age (modification time) after which a temporary file cannot belong to a write in flight."""


_swept: set[Path] = set()
"""Folders this process has swept: a renderer is made per clip in places (render/emotion.py),
and listing a large cache once per clip would cost more than the litter."""


def sweep_stale_temps(folder: Path, *, again: bool = False) -> int:
    """Remove `tmp*` files (mkstemp's names; cache entries are hex keys) older than STALE_S
    from `folder`, once per process (`again`: even if swept before); returns how many. A file
    another process removes first is not an error."""
    if folder in _swept and not again:
        return 0
    _swept.add(folder)
    now = time.time()
    removed = 0
    try:
        candidates = list(folder.glob("tmp*"))
    except OSError:
        return 0
    for path in candidates:
        try:
            if path.is_file() and now - path.stat().st_mtime > STALE_S:
                path.unlink()
                removed += 1
        except OSError:  # gone meanwhile, or not ours to remove: leave it
            continue
    return removed
