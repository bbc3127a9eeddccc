"""Bounds on what paraudit reads: JSON nesting depth (checked without recursion) and inputs that
are not regular files.

A 100,000-deep array in one items.jsonl line raised RecursionError (a traceback) in `validate`
and `run`: Python's json module recurses once per level. Every JSON input a user or a server
hands in (items, results, replies) is measured here first and refused in one line.
Bottom layer: imports nothing of paraudit.
"""

from __future__ import annotations

import stat
from pathlib import Path

MAX_DEPTH = 64
"""An item nests about five levels deep, a reply or a result row a few more; a document nested
beyond this is not one of them."""


def json_depth_problem(text: str | bytes, limit: int = MAX_DEPTH) -> str | None:
    """ "nested deeper than N levels" when `text` (JSON, or text holding JSON) opens more than
    `limit` arrays or objects at once; brackets inside strings are skipped."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if data.count(b"[") + data.count(b"{") <= limit:
        return None  # the common case: too few brackets to be deep at all
    depth = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return f"nested deeper than {limit} levels (arrays or objects inside each other)"
        elif byte in (0x5D, 0x7D):
            depth = max(0, depth - 1)
    return None


def not_regular(path: Path) -> str | None:
    """What `path` (symlinks followed) is when it is something no reader should open: a FIFO
    (a read waits forever for a writer), a device (/dev/zero never ends), a socket; None for a
    regular file, a folder or a path that does not exist (the caller's own message)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"
