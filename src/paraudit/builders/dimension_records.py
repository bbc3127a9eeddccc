"""The records a dimension build shares between its single-turn and positional parts
(builders/dimension_starter.py, builders/dimension_positional.py): what it reports, a clip that
passed or failed QC, the writer that names clips by content, and the render-and-check step both
parts take for every clip (here rather than in either part, which must not import each other)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from paraudit.dimensions.base import QcCheck, RenderedClip
from paraudit.items.dataset import AudioFiles

MAX_TRIES = 2
"""Renderings a clip gets: a rejected one is rendered again with the next seed (renderers that
draw noise change; the deterministic ones do not, and the second failure drops the item)."""


@dataclass(frozen=True)
class DroppedItem:
    item_id: str
    reason: str
    """Which value's clip failed QC and why (the rule's own sentences)."""


@dataclass
class DimensionBuildReport:
    """What a dimension build did: the counts it prints at the end."""

    dimension: str
    items_written: int = 0
    dropped: list[DroppedItem] = field(default_factory=list)
    renders: int = 0
    rerenders: int = 0
    seconds: float = 0.0
    twins_written: dict[str, int] = field(default_factory=dict)
    """Per variant ('speaker-joe-bright', 'telephone-g711'): twins kept."""
    twins_dropped: list[DroppedItem] = field(default_factory=list)
    """Twins whose rendering or condition failed its QC (the original is kept)."""


@dataclass(frozen=True)
class Checked:
    clip: RenderedClip
    check: QcCheck
    attempts: int


class ClipWriter(AudioFiles):
    """Clips → content-hashed WAVs in a scratch folder (`files`: the dataset's audio map)."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder
        self._n = 0

    def add(self, samples: np.ndarray[Any, Any], rate: int) -> str:
        self._n += 1
        path = self.folder / f"{self._n}.wav"
        sf.write(str(path), np.asarray(samples, dtype=np.float32), rate, subtype="PCM_16")
        return self.name(path)


def qc_row(value: str, c: Checked) -> dict[str, Any]:
    return {
        "value": value,
        "attempts": c.attempts,
        "passed": c.check.passed,
        "measures": dict(c.check.measures),
        **({"reasons": list(c.check.reasons)} if c.check.reasons else {}),
    }


def render_checked(
    render: Callable[..., RenderedClip],
    qc: Callable[..., QcCheck],
    words: str,
    value: str,
    baseline: RenderedClip | None,
    voice: str,
    seed: int,
    report: DimensionBuildReport,
    **extra: Any,
) -> Checked:
    """`words` rendered with `value` in `voice` (`extra` passed on to `render`) and checked by
    `qc` against `baseline`, or against itself when there is none (the reference value), up to
    MAX_TRIES times; the last attempt, passed or not, with the renders counted in `report`."""
    last: Checked | None = None
    for attempt in range(1, MAX_TRIES + 1):
        clip = render(words, value, voice=voice, seed=seed + attempt - 1, **extra)
        report.renders += 1
        report.rerenders += attempt > 1
        check = qc(clip, value, baseline=baseline if baseline is not None else clip)
        last = Checked(clip, check, attempt)
        if check.passed:
            break
    assert last is not None
    return last
