"""Where `paraudit demo`'s time goes: wall and CPU-seconds at each stage, first verdict included.

Run: PYTHONPATH=src .venv/bin/python benchmarks/demo_stages.py --out DIR --cache EMPTY_DIR
(any `paraudit demo` arguments; an empty --cache folder measures the rendering too).
Prints a `[stage]` line on stderr at every stage boundary: seconds since start, this process's
CPU-seconds and its finished children's (the render workers, counted once they are joined).
On a shared machine report the CPU-seconds beside the wall: the wall depends on the load.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

T0 = time.time()


def mark(what: str) -> None:
    t = os.times()
    own, kids = t.user + t.system, t.children_user + t.children_system
    print(
        f"[stage] {time.time() - T0:7.1f} s wall  own {own:6.1f} CPU-s  "
        f"children {kids:6.1f} CPU-s  {what}",
        file=sys.stderr,
        flush=True,
    )


def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        mark(f"{name} begins")
        try:
            return fn(*args, **kwargs)
        finally:
            mark(f"{name} ends")

    return wrapper


def main() -> None:
    mark("interpreter up")
    from paraudit.cli import demo
    from paraudit.cli.main import app

    mark("paraudit imported")
    # The demo's own steps, as cli/demo.py calls them (names looked up in that module).
    for name in ("run_build", "execute", "summary_of", "print_first_verdicts", "write_report"):
        setattr(demo, name, timed(name, getattr(demo, name)))
    try:
        app(["demo", *sys.argv[1:]], prog_name="paraudit")
    finally:
        mark("end")


if __name__ == "__main__":
    main()
