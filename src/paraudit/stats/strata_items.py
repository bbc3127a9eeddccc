"""What the subgroup scan (stats/strata.py) knows of an item: its attributes, read from the
dataset folder a run recorded (run.json's `dataset`) — result rows do not carry them.

Item-level: `contrast`, `turns`, `voice`, `generator`, `dimension`; per branch: `label`,
`shift turn`, `shift time` (s of the branch's context audio before its shift turn) and
`duration` (s of its context audio), the clips' lengths read from their headers; on word–tone
conflict items, `words vs voice` (congruent or conflict).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paraudit.items.conflict import conflict_sides

Value = str | float


@dataclass(frozen=True)
class ItemAttributes:
    """What the dataset says of one item, as strata."""

    item: Mapping[str, Value] = field(default_factory=dict)
    """Item-level attributes (both branches share them)."""
    branches: tuple[Mapping[str, Value], Mapping[str, Value]] = ({}, {})
    """Per branch: label, shift turn, shift time (s), duration (s)."""


WORDS = "words vs voice"
"""A conflict item's branch attribute: 'congruent' or 'conflict'."""

Attributes = Mapping[tuple[str, str], ItemAttributes]
"""(task, item id) → its attributes."""


def _seconds(path: Path, cache: dict[Path, float | None]) -> float | None:
    if path not in cache:
        try:
            import soundfile as sf

            cache[path] = float(sf.info(str(path)).duration)
        except Exception:  # an unreadable clip has no duration; validate reports it
            cache[path] = None
    return cache[path]


def _label(value: Any) -> str | None:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, dict):
        for key in ("human", "spec", "label", "name", "model", "value"):
            if isinstance(value.get(key), str):
                return str(value[key])
        return json.dumps(value, sort_keys=True)[:60]
    if isinstance(value, list) and value:
        return ", ".join(str(v) for v in value)[:60]
    return None


def item_attributes(
    raw: Mapping[str, Any], root: Path, cache: dict[Path, float | None]
) -> ItemAttributes:
    """The strata of one items.jsonl record (`root`: its dataset folder, for clip durations)."""
    meta = raw.get("meta") or {}
    context = raw.get("context") or []
    branches = raw.get("branches") or [{}, {}]
    emo = [list(b.get("emotions") or []) for b in branches]
    humans = [i for i, t in enumerate(context) if t.get("speaker") == "human"]
    differs = [i for i in humans if i < len(emo[0]) and i < len(emo[1]) and emo[0][i] != emo[1][i]]
    item: dict[str, Value] = {"turns": str(len(context))}
    pair = meta.get("pair")
    if isinstance(pair, str):
        item["contrast"] = pair
    elif differs:
        item["contrast"] = "/".join(sorted({emo[0][differs[0]], emo[1][differs[0]]}))
    for name, keys in (("voice", ("voices", "voice", "tts")), ("generator", ("generator",)),
                       ("dimension", ("dimension",))):  # fmt: skip
        found = next((_label(meta[k]) for k in keys if k in meta and _label(meta[k])), None)
        if found:
            item[name] = found
    per: list[dict[str, Value]] = []
    sides = None
    if differs and isinstance(meta, Mapping):
        sides = conflict_sides(meta, (emo[0][differs[0]], emo[1][differs[0]]))
    for b, labels in zip(branches, emo, strict=False):
        unit: dict[str, Value] = {}
        if differs:
            unit["label"] = labels[differs[0]]
        if sides is not None:
            # Word–tone conflict items (items/conflict.py): does this branch's voice contradict
            # the words? Read by stats/conflict.py, which compares the two within each item
            # (the subgroup scan's UNIT_LEVEL attributes do not include it).
            unit[WORDS] = sides[len(per)]
        clips = [_seconds(root / a, cache) for a in b.get("audio") or []]
        if clips and all(c is not None for c in clips):
            unit["duration"] = round(sum(c for c in clips if c is not None), 2)
        if len(humans) > 1 and labels:
            first = labels[humans[0]]
            shift = next((i for i in humans if i < len(labels) and labels[i] != first), None)
            if shift is not None:
                unit["shift turn"] = f"human turn {humans.index(shift) + 1}"
                before = clips[:shift]
                if before and all(c is not None for c in before):
                    unit["shift time"] = round(sum(c for c in before if c is not None), 2)
        per.append(unit)
    while len(per) < 2:
        per.append({})
    return ItemAttributes(item, (per[0], per[1]))


def read_attributes(run_dirs: Iterable[Path]) -> dict[tuple[str, str], ItemAttributes]:
    """The attributes of every item of the datasets the runs recorded; a run whose dataset is
    gone contributes none (its strata are simply not scanned)."""
    from paraudit.items.dataset import iter_item_lines
    from paraudit.runfolder.spec import read_run_json

    out: dict[tuple[str, str], ItemAttributes] = {}
    cache: dict[Path, float | None] = {}
    for run in run_dirs:
        record = read_run_json(run)
        ds = record.get("dataset") if record else None
        root = Path(ds) if isinstance(ds, str) else None
        if root is None or not (root / "items.jsonl").is_file():
            continue
        for _, line in iter_item_lines(root):
            raw = json.loads(line)
            key = (str(raw.get("task")), str(raw.get("id")))
            # Two runs on one dataset name its items once; on two datasets sharing an id, the
            # first run's item stands.
            out.setdefault(key, item_attributes(raw, root, cache))
    return out


__all__ = ["Attributes", "ItemAttributes", "Value", "item_attributes", "read_attributes"]
