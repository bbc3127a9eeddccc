"""`paraudit validate`: every invariant of an audit dataset, each problem reported, no crash."""

from __future__ import annotations

import hashlib
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf
from pydantic import ValidationError

from paraudit.errors import DatasetError
from paraudit.items.dataset import (
    AUDIO_DIR,
    ITEMS,
    iter_item_lines,
    read_manifest,
)
from paraudit.items.records import AuditItem, DatasetManifest

MIN_SECONDS = 0.3
MAX_SECONDS = 60.0
SILENCE_DBFS = -60.0


@dataclass(frozen=True)
class Problem:
    """One broken invariant."""

    line: int | None
    item_id: str | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line is not None else "dataset"
        who = f" item {self.item_id}" if self.item_id else ""
        return f"{where}{who} [{self.field}]: {self.message}"


def shift_turn(item: AuditItem, branch: int) -> int | None:
    """Context index of the first human turn whose emotion differs from the first human turn's."""
    humans = item.human_turns()
    emotions = item.branches[branch].emotions
    if not humans or len(emotions) != len(item.context):
        return None
    start = emotions[humans[0]]
    for i in humans[1:]:
        if emotions[i] != start:
            return i
    return None


def check_audio_file(path: Path, expected_sha256: str | None = None) -> str | None:
    """Why an audio file is unusable, or None if it decodes, has a sane length, is not silent
    and (when `expected_sha256` is given) its bytes hash to that name."""
    if not path.is_file():
        return "file does not exist"
    raw = path.read_bytes()  # read once: decoded and hashed from memory
    try:
        data, rate = sf.read(io.BytesIO(raw), dtype="float32", always_2d=True)
    except Exception as e:  # soundfile raises several types for corrupt files
        return f"does not decode as audio ({type(e).__name__}: {str(e).splitlines()[0]})"
    seconds = data.shape[0] / rate if rate else 0.0
    if not MIN_SECONDS <= seconds <= MAX_SECONDS:
        return f"lasts {seconds:.2f} s (allowed {MIN_SECONDS}–{MAX_SECONDS} s)"
    rms = float(np.sqrt(np.mean(np.square(data, dtype=np.float64)))) if data.size else 0.0
    dbfs = 20 * math.log10(rms) if rms > 0 else -math.inf
    if dbfs < SILENCE_DBFS:
        return f"is silent (RMS {dbfs:.1f} dBFS < {SILENCE_DBFS:.0f} dBFS)"
    if expected_sha256 is not None and hashlib.sha256(raw).hexdigest() != expected_sha256:
        return "file name is not the sha256 of its bytes (file changed after it was written?)"
    return None


def _check_item(item: AuditItem, manifest: DatasetManifest, line: int) -> list[Problem]:
    out: list[Problem] = []

    def bad(field: str, msg: str) -> None:
        out.append(Problem(line, item.id, field, msg))

    n = len(item.context)
    vocab = set(manifest.emotions)
    for b, br in enumerate(item.branches):
        if len(br.emotions) != n:
            bad(f"branches.{b}.emotions", f"has {len(br.emotions)} labels for {n} context turns")
        if len(br.audio) != n:
            bad(f"branches.{b}.audio", f"has {len(br.audio)} files for {n} context turns")
        for t, label in enumerate(br.emotions):
            if label not in vocab:
                bad(f"branches.{b}.emotions.{t}", f"unknown emotion label '{label}'")
        if br.response.emotion not in vocab:
            bad(f"branches.{b}.response.emotion", f"unknown emotion '{br.response.emotion}'")
    humans = item.human_turns()
    if not humans:
        bad("context", "has no human turn")
    b0, b1 = item.branches
    if len(b0.emotions) == n and len(b1.emotions) == n and humans:
        if all(b0.emotions[i] == b1.emotions[i] for i in humans):
            bad("branches", "the branches do not differ in any human-turn emotion")
    if b0.response.text.strip() == b1.response.text.strip():
        bad("branches.response.text", "both branches have the same response")
    if item.task == "single-turn-emotions" and len(humans) != 1:
        bad("context", f"single-turn item has {len(humans)} human turns (needs exactly 1)")
    if item.task == "positional-emotion" and len(b0.emotions) == n and len(b1.emotions) == n:
        s0, s1 = shift_turn(item, 0), shift_turn(item, 1)
        if s0 is None or s1 is None:
            bad("branches.emotions", "a positional branch never shifts mood")
        elif s0 == s1:
            bad("branches.emotions", f"both branches shift mood at the same turn ({s0})")
    if manifest.tasks and item.task not in manifest.tasks:
        bad("task", f"task '{item.task}' is not listed in dataset.json")
    for rel in item.audio_files():
        if (
            Path(rel).is_absolute()
            or ".." in Path(rel).parts
            or not rel.startswith(AUDIO_DIR + "/")
        ):
            bad("audio", f"'{rel}' must be a path inside {AUDIO_DIR}/")
    return out


def validate_dataset(root: Path | str, *, check_hashes: bool = True) -> list[Problem]:
    """Every problem in a dataset folder; an empty list means it is valid."""
    root = Path(root)
    try:
        manifest = read_manifest(root)
    except DatasetError as e:
        return [Problem(None, None, "dataset.json", str(e))]
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    audio_refs: dict[str, tuple[int, str]] = {}
    try:
        lines = list(iter_item_lines(root))
    except DatasetError as e:
        return [Problem(None, None, ITEMS, str(e))]
    if not lines:
        problems.append(Problem(None, None, ITEMS, "has no items"))
    for n, text in lines:
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as e:
            problems.append(
                Problem(n, None, "json", f"not valid JSON ({e.msg} at column {e.colno})")
            )
            continue
        item_id = raw.get("id") if isinstance(raw, dict) else None
        item_id = item_id if isinstance(item_id, str) else None
        try:
            item = AuditItem.model_validate(raw)
        except ValidationError as e:
            for err in e.errors():
                loc = ".".join(str(p) for p in err["loc"]) or "(line)"
                problems.append(Problem(n, item_id, loc, err["msg"]))
            continue
        if item.id in seen:
            problems.append(
                Problem(n, item.id, "id", f"duplicate id (first seen on line {seen[item.id]})")
            )
        else:
            seen[item.id] = n
        problems.extend(_check_item(item, manifest, n))
        for rel in item.audio_files():
            audio_refs.setdefault(rel, (n, item.id))
    for rel, (n, item_id) in audio_refs.items():
        path = root / rel
        if not str(path.resolve()).startswith(str(root.resolve())):
            continue  # already reported as a path outside the folder
        why = check_audio_file(path, path.stem if check_hashes else None)
        if why is not None:
            problems.append(Problem(n, item_id, "audio", f"{rel}: {why}"))
    return problems
