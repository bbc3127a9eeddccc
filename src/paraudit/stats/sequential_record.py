"""What a sequential run's verdicts add: that the run stopped early and how many items each
step used (read from RUN/sequential.json, written by runner/sequential.py).

A verdict keeps its words: the cascade reads the rows the run asked, as it reads any run's.
Its text then says how the sample was drawn, since every figure rests on the items the step's
cells were asked on, not on the whole plan."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

RECORD = "sequential.json"
STEP_WORDS = (
    ("native", "native"),
    ("recoverable", "recoverable"),
    ("cue", "cue"),
    ("P", "P"),
    ("O", "O"),
    ("dependence", "dependence"),
)


def read(run_dir: Path) -> dict[str, Any] | None:
    """RUN/sequential.json, or None for a run that was not sequential."""
    path = run_dir / RECORD
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def sentence(entry: dict[str, Any]) -> str:
    """The verdict's sentence for one judge × task entry of sequential.json."""
    asked, planned = entry["items_asked"], entry["items_planned"]
    steps = entry.get("steps", {})
    used = ", ".join(f"{words} {steps[s]['items']}" for s, words in STEP_WORDS if s in steps)
    behaviours = [v["items"] for s, v in steps.items() if s in
                  ("position", "order", "audio", "jt", "turns")]  # fmt: skip
    if behaviours:
        used += f", behaviours {min(behaviours)}–{max(behaviours)}"
    if entry["stopped_early"]:
        head = (f"Sequential run: stopped early after {asked} of {planned} items (every step "
                "the diagnosis reads was settled by an always-valid 95/99 % interval)")  # fmt: skip
    else:
        head = f"Sequential run: asked all {asked} of {planned} items (not every step settled)"
    return f"{head}; items at which each step was settled: {used or 'none'}."


def annotate(raw: dict[str, Any], run_dirs: Iterable[Path]) -> None:
    """Add each sequential run's sentence to its verdicts' text, and to the headline where
    the run stopped early (a reader of the first line learns the sample was cut short)."""
    records = [r for r in (read(d) for d in run_dirs) if r]
    if not records:
        return
    for v in raw.get("verdicts", []):
        for rec in records:
            for judge, tasks in rec.get("judges", {}).items():
                entry = tasks.get(v["task"])
                if entry is None or not (v["judge"] == judge or v["judge"].endswith(judge)):
                    continue
                said = sentence(entry)
                v["text"] = f"{v['text']} {said}"
                if entry["stopped_early"]:
                    v["headline"] = (
                        f"{v['headline']} (Sequential: stopped early after "
                        f"{entry['items_asked']} of {entry['items_planned']} items.)"
                    )
