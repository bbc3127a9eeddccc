"""Small datasets of any dimension, from tones made here (no speech synthesis): for tests of
what reads a dimension's words (prompts, the listening app, the report)."""

from __future__ import annotations

from pathlib import Path

from paraudit.dimensions.registry import get
from paraudit.items.dataset import write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn
from tests.conftest import ToneClips

TEXT = "Can you book the table for eight tonight?"
FOCUS = (3, 5)
"""Emphasis items stress one of these two words of TEXT ('table', 'eight')."""


def make_dimension_dataset(
    root: Path, tmp: Path, dimension: str, n: int = 2, *, seconds: float = 0.3
) -> list[AuditItem]:
    """A valid single-turn dataset of `n` items of `dimension` (its first two values)."""
    dim = get(dimension)
    task = dim.task_for("single-turn")
    a, b = (v.name for v in dim.values[:2])
    clip = ToneClips(tmp, prefix=f"{dimension}-", seconds=seconds)

    items = []
    for i in range(n):
        base = 120 + 9 * i
        meta: dict[str, object] = {"dimension": dimension, "pair": f"{a}/{b}"}
        if dimension == "emphasis":
            words = TEXT.split()
            meta["focus"] = list(FOCUS)
            meta["focus_words"] = [words[j].strip("?") for j in FOCUS]
        branches = tuple(
            Branch(
                emotions=(value,),
                audio=(clip(base + 2 * k),),
                response=Response(
                    text=f"Reply {k} for request {i}.", emotion=value, audio=clip(base + 2 * k + 1)
                ),
            )
            for k, value in enumerate((a, b))
        )
        items.append(
            AuditItem(
                id=f"{dimension}-{i:03d}",
                task=task,
                context=(Turn(speaker="human", text=f"{TEXT} (request {i})"),),
                branches=branches,  # type: ignore[arg-type]
                meta=meta,
            )
        )
    manifest = DatasetManifest(
        name=dimension, tasks=(task,), emotions=dim.names, dimension=dimension
    )
    write_dataset(root, manifest, items, clip.audio)
    return items


def make_positional_dimension_dataset(root: Path, tmp: Path, dimension: str) -> AuditItem:
    """A valid one-item positional dataset of `dimension`: three human turns, the delivery
    changing to the second value at the second human turn in branch 0, at the third in branch 1."""
    dim = get(dimension)
    a, b = (v.name for v in dim.values[:2])
    clip = ToneClips(tmp, prefix=f"{dimension}-pos-", seconds=0.3)

    speakers = ("human", "assistant", "human", "assistant", "human")
    context = tuple(Turn(speaker=s, text=f"Turn {i} words.") for i, s in enumerate(speakers))  # type: ignore[arg-type]
    branches = []
    for k, shift in enumerate((2, 4)):
        values = tuple(b if s == "human" and i >= shift else a for i, s in enumerate(speakers))
        branches.append(
            Branch(
                emotions=values,
                audio=tuple(clip(100 + 10 * i + (i >= shift) * 3) for i in range(5)),
                response=Response(text=f"Reply {k}.", emotion=b, audio=clip(300 + k)),
            )
        )
    task = dim.task_for("positional")
    item = AuditItem(
        id=f"{dimension}-pos-000",
        task=task,
        context=context,
        branches=(branches[0], branches[1]),
        meta={"dimension": dimension, "pair": f"{a}->{b}", "shift_turns": [2, 4]},
    )
    manifest = DatasetManifest(
        name=dimension, tasks=(task,), emotions=dim.names, dimension=dimension
    )
    write_dataset(root, manifest, [item], clip.audio)
    return item
