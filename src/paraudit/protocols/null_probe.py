"""The null-audio probe N: a real P or J question whose context clips carry no speech.

An N instance is a real pointwise instance (same item, cue, order, branch, prompt text, options,
gold) with every context clip (C turns) replaced by its null stand-in (`audio/nulls.py`:
digital silence, or speech-shaped noise); the responses R1/R2 of a J question stay real, so a
judge still has something to choose between. `Instance.probe` is "N", `Instance.asks` the
question asked and `Instance.null` the kind, so ids, rows and statistics keep the four cells
(P/J × silence/noise) apart, while `question.probe` is the asked probe: a judge is asked exactly
what it is asked on real audio and cannot tell the probe from the question.

Null clips are files like every clip, named by their own sha256 and stored once per run
(RUN/null_audio/, `NullClips`); they are made deterministically from the source clip (its
sha256 seeds the noise), so a resumed run makes the same bytes and its cache keys still hold.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import tempfile
from pathlib import Path

from paraudit.audio.nulls import NULL_KINDS, NullKind, null_audio
from paraudit.items.dataset import Dataset
from paraudit.items.records import AuditItem
from paraudit.protocols.instances import Instance, j_instance, p_instance
from paraudit.protocols.parts import AudioPart, Part
from paraudit.protocols.questions import Probe

NULL_DIR = "null_audio"
"""The run folder's subfolder of null clips."""
NULL_ASKS: tuple[Probe, ...] = ("P", "J")
RESPONSE_ROLES = frozenset({"R1", "R2"})


class NullClips:
    """Null stand-ins of clips, written once into one folder (named by their sha256)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._parts: dict[tuple[str, str], AudioPart] = {}

    def part(self, source: AudioPart, kind: NullKind) -> AudioPart:
        key = (source.sha256, kind)
        got = self._parts.get(key)
        if got is None:
            data = null_audio(source.path, source.sha256, kind)
            sha = hashlib.sha256(data).hexdigest()
            path = self.folder / f"{sha}{source.path.suffix.lower()}"
            if not path.is_file():
                _write_atomic(path, data)
            got = self._parts[key] = AudioPart(path, sha)
        return got


def _write_atomic(path: Path, data: bytes) -> None:
    """Write beside the target and rename: a reader (another judge's worker) never sees half a
    clip, and two writers of the same content leave the same file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_STORES: dict[str | None, NullClips] = {}
_SCRATCH: list[tempfile.TemporaryDirectory[str]] = []


def null_clips(folder: str | None) -> NullClips:
    """The store for `folder` (one per process, so re-planning reuses its parts). None: a
    scratch folder for plans made before a run folder is claimed (checks, dry runs), which
    need clips that exist but must not write into --out yet."""
    got = _STORES.get(folder)
    if got is None:
        if folder is None:
            _SCRATCH.append(tempfile.TemporaryDirectory(prefix="paraudit-null-"))
            where = Path(_SCRATCH[-1].name)
        else:
            where = Path(folder)
        got = _STORES[folder] = NullClips(where)
    return got


def nulled(inst: Instance, kind: NullKind, clips: NullClips) -> Instance:
    """`inst` (a real pointwise P or J instance) with its context clips replaced by `kind`."""
    roles = iter(inst.question.clips)
    parts: list[Part] = []
    for p in inst.prompt:
        if isinstance(p, AudioPart):
            role = next(roles)
            if role.role not in RESPONSE_ROLES:
                p = clips.part(p, kind)
        parts.append(p)
    assert inst.probe in NULL_ASKS, inst.probe
    return dataclasses.replace(inst, probe="N", prompt=tuple(parts), asks=inst.probe, null=kind)


def n_instance(
    ds: Dataset,
    item: AuditItem,
    asks: Probe,
    kind: NullKind,
    cue: str,
    order: str,
    branch: int,
    clips: NullClips,
) -> Instance:
    """The N instance asking `asks` (P or J, pointwise) with `kind` null context clips."""
    if asks == "P":
        real = p_instance(ds, item, cue, order, branch)
    else:
        real = j_instance(ds, item, "pointwise", cue, order, branch)
    return nulled(real, kind, clips)


__all__ = [
    "NULL_ASKS",
    "NULL_DIR",
    "NULL_KINDS",
    "NullClips",
    "NullKind",
    "n_instance",
    "null_clips",
    "nulled",
]
