"""The records a dimension build shares between its single-turn and positional parts
(builders/dimension_starter.py, builders/dimension_positional.py): what it reports, a clip that
passed or failed QC, and the writer that names clips by content."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from paraudit.dimensions.base import QcCheck, RenderedClip
from paraudit.items.dataset import AUDIO_DIR, sha256_file


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


class ClipWriter:
    """Clips → content-hashed WAVs in a scratch folder, the dataset's audio map beside it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.audio: dict[str, Path] = {}
        self._n = 0

    def add(self, samples: np.ndarray[Any, Any], rate: int) -> str:
        self._n += 1
        path = self.folder / f"{self._n}.wav"
        sf.write(str(path), np.asarray(samples, dtype=np.float32), rate, subtype="PCM_16")
        rel = f"{AUDIO_DIR}/{sha256_file(path)}.wav"
        self.audio.setdefault(rel, path)
        return rel

    def add_file(self, path: Path) -> str:
        rel = f"{AUDIO_DIR}/{sha256_file(path)}.wav"
        self.audio.setdefault(rel, path)
        return rel


def qc_row(value: str, c: Checked) -> dict[str, Any]:
    return {
        "value": value,
        "attempts": c.attempts,
        "passed": c.check.passed,
        "measures": dict(c.check.measures),
        **({"reasons": list(c.check.reasons)} if c.check.reasons else {}),
    }
