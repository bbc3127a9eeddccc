"""Waits paraudit imposes on itself (a server's Retry-After, backoff): capped and told.

A server may answer 429 with `Retry-After: 86400`; honouring that silently stalls a run or a
build for a day. Every wait is capped by the caller, and a wait longer than LONG_WAIT_S is
told through the one listener the CLI registers (library code never prints).
"""

from __future__ import annotations

import math
from collections.abc import Callable

LONG_WAIT_S = 5.0
"""A wait longer than this is told to the user, so nothing sits silent."""

_listeners: list[Callable[[str], None]] = []


def on_long_wait(listener: Callable[[str], None]) -> None:
    """Register where long waits are told (a later call replaces the earlier listener)."""
    _listeners[:] = [listener]


def retry_after_seconds(value: object) -> float | None:
    """A Retry-After header's seconds; negative, infinite, NaN or unparsable (an HTTP date
    included) count as absent, so the caller's own backoff applies."""
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def capped_wait(asked: float, cap: float, reason: str, how_to_change: str) -> float:
    """min(asked, cap), telling the listener when the wait is long."""
    delay = min(asked, cap)
    if delay > LONG_WAIT_S:
        capped = (
            f" (the server asked for {asked:g} s; capped, see {how_to_change})"
            if asked > cap
            else ""
        )
        tell_wait(f"waiting {delay:g} s before retrying: {reason}{capped}")
    return delay


def tell_wait(message: str) -> None:
    """Hand a long wait's line to the registered listener (none: nothing is printed)."""
    for listener in _listeners:
        listener(message)
