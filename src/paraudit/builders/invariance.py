"""`paraudit build invariance --from DATASET --out INV`: the original items plus, per change,
twin items that keep the emotion and change one irrelevant property of the context audio.

Per item and variant (audio/changes.py: voice ±3 st with formants ×1.08^±1, loudness ±6 dB,
rate ±8 %, white noise at 30 dB SNR, 16 kHz), every context clip the variant applies to (voice:
the human turns, the speaker being judged; the recording-condition changes: every context clip)
is changed in both branches alike; the candidate responses are the original's, so the twin asks
the same question with the same right answer. Each changed clip passes qc/invariance.py (the
change moved its one property, no other emotion cue moved) or the twin is dropped and counted,
with the reason, in the card.

Format rule: a dataset normally holds one sample rate (a clip at another rate is a giveaway).
With the samplerate change the INV set holds two, so it is written with `mixed_audio_formats`;
every twin changes all its context clips in both branches alike, so within an item the two
branches still share one format and validate's per-item check still holds.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from paraudit.audio.changes import CHANGES, VARIANTS, Variant, apply, clipped, snr_db
from paraudit.audio.clips import OUTPUT_SUBTYPE
from paraudit.errors import ParauditError
from paraudit.items.dataset import AUDIO_DIR, load_dataset, sha256_bytes, write_dataset
from paraudit.items.records import AuditItem, Branch
from paraudit.items.twins import is_twin, twin_id
from paraudit.items.validate import dataset_errors
from paraudit.qc.invariance import check_twin

CARD_JSON = "card.json"
CARD_MD = "CARD.md"


@dataclass
class InvarianceReport:
    """What the build did: twins written and dropped per variant (with reasons)."""

    originals: int = 0
    written: Counter[str] = field(default_factory=Counter)
    dropped: dict[str, Counter[str]] = field(default_factory=dict)
    clips_changed: int = 0

    def drop(self, variant: str, reason: str) -> None:
        self.dropped.setdefault(variant, Counter())[reason] += 1


def _limited(items: tuple[AuditItem, ...], limit: int | None) -> list[AuditItem]:
    """The first `limit` items of each task (as `run --limit`), so a trial has every task."""
    taken: Counter[str] = Counter()
    out = []
    for it in items:
        if limit is None or taken[it.task] < limit:
            taken[it.task] += 1
            out.append(it)
    return out


class _Clips:
    """Changed clips, made once per (clip, variant): shared context turns stay shared.
    `paths`: where each clip lies when it is not yet in a dataset folder (a build's scratch)."""

    def __init__(self, root: Path, tmp: Path, paths: Mapping[str, Path] | None = None) -> None:
        self.root, self.tmp, self.paths = root, tmp, paths
        self.audio: dict[str, Path] = {}
        self.done: dict[tuple[str, str], tuple[str | None, str, dict[str, object]]] = {}

    def change(self, rel: str, text: str, v: Variant) -> tuple[str | None, str, dict[str, object]]:
        """(new rel or None, reason it failed, QC figures) for clip `rel` under `v`."""
        key = (rel, v.name)
        if key not in self.done:
            self.done[key] = self._make(rel, text, v)
        return self.done[key]

    def _make(self, rel: str, text: str, v: Variant) -> tuple[str | None, str, dict[str, object]]:
        src = self.paths[rel] if self.paths is not None else self.root / rel
        x, rate = sf.read(str(src), dtype="float64")
        y, new_rate = apply(v, x, rate)
        if clipped(x, y):
            return None, "would clip (peak over full scale)", {}
        snr = snr_db(x, y) if v.change == "noise" else None
        qc = check_twin(x, rate, y, new_rate, text, v.change, v.params, measured_snr_db=snr)
        if not qc.accepted:
            return None, f"QC: {qc.failed[0]}", qc.as_dict()
        path = self.tmp / f"{len(self.audio)}.wav"
        sf.write(str(path), np.clip(y, -1.0, 1.0), new_rate, OUTPUT_SUBTYPE, format="WAV")
        new = f"{AUDIO_DIR}/{sha256_bytes(path.read_bytes())}.wav"
        self.audio[new] = path
        return new, "", qc.as_dict()


def _applies(v: Variant, speaker: str) -> bool:
    return v.params.get("applies_to") != "human turns" or speaker == "human"


def make_twin(item: AuditItem, v: Variant, clips: _Clips) -> tuple[AuditItem | None, str]:
    """The twin of `item` under `v`, or None and why it was dropped."""
    branches: list[Branch] = []
    qc: list[list[dict[str, object]]] = []
    for br in item.branches:
        audio: list[str] = []
        rows: list[dict[str, object]] = []
        for t, (turn, rel) in enumerate(zip(item.context, br.audio, strict=True)):
            if not _applies(v, turn.speaker):
                audio.append(rel)
                continue
            new, why, figures = clips.change(rel, turn.text, v)
            if new is None:
                return None, why
            audio.append(new)
            rows.append({"turn": t, **figures})
        branches.append(br.model_copy(update={"audio": tuple(audio)}))
        qc.append(rows)
    meta = {k: val for k, val in item.meta.items() if k != "prosody"}
    meta["invariance"] = {
        "twin_of": item.id,
        "change": v.change,
        "variant": v.name,
        "params": v.params,
        "qc": qc,
    }
    twin = AuditItem(
        id=twin_id(item.id, v.name),
        task=item.task,
        context=item.context,
        branches=(branches[0], branches[1]),
        meta=meta,
    )
    return twin, ""


def condition_twins(
    items: Sequence[AuditItem],
    audio: Mapping[str, Path],
    changes: Sequence[str],
    tmp: Path,
    report: InvarianceReport,
) -> tuple[list[AuditItem], dict[str, Path]]:
    """Twins of `items` (not yet written: their clips at `audio[rel]`) under each variant of
    `changes`, for a build that adds recording conditions itself (`build starter
    --conditions`); the twins' new clips are returned beside them, drops land in `report`."""
    clips = _Clips(tmp, tmp, audio)
    twins = _twins(items, [v for c in changes for v in VARIANTS[c]], clips, report)
    report.clips_changed += len(clips.audio)
    return twins, clips.audio


def _twins(
    items: Sequence[AuditItem],
    variants: Sequence[Variant],
    clips: _Clips,
    report: InvarianceReport,
    on_progress: Callable[[int, int], None] | None = None,
) -> list[AuditItem]:
    """Each item's twin under each variant; a dropped one is counted, with its reason."""
    twins: list[AuditItem] = []
    total, done = len(items) * len(variants), 0
    for item in items:
        for v in variants:
            twin, why = make_twin(item, v, clips)
            if twin is None:
                report.drop(v.name, why)
            else:
                twins.append(twin)
                report.written[v.name] += 1
            done += 1
            if on_progress is not None:
                on_progress(done, total)
    return twins


def condition_adder(
    changes: Sequence[str],
) -> Callable[
    [list[AuditItem], dict[str, Path], Path],
    tuple[list[AuditItem], dict[str, Path], dict[str, int], list[str]],
]:
    """`condition_twins` in the shape the emotion starter takes (compose/starter.AddTwins)."""

    def add(
        items: list[AuditItem], audio: dict[str, Path], tmp: Path
    ) -> tuple[list[AuditItem], dict[str, Path], dict[str, int], list[str]]:
        r = InvarianceReport(originals=len(items))
        twins, clips = condition_twins(items, audio, changes, tmp, r)
        dropped = [f"{v}: {why} ({n} twins)" for v, c in r.dropped.items() for why, n in c.items()]
        return twins, clips, dict(r.written), dropped

    return add


def build_invariance(
    source: Path,
    out: Path,
    changes: tuple[str, ...] = CHANGES,
    *,
    limit: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> InvarianceReport:
    """Write the INV dataset at `out` (atomically, validated before it replaces anything)."""
    ds = load_dataset(source)
    if any(is_twin(it) for it in ds.items):
        raise ParauditError(
            f"{source} already holds invariance twins; build from the original dataset"
        )
    items = _limited(ds.items, limit)
    variants = [v for c in changes for v in VARIANTS[c]]
    report = InvarianceReport(originals=len(items))
    with tempfile.TemporaryDirectory(prefix="paraudit-inv-") as tmp:
        clips = _Clips(ds.root, Path(tmp))
        written = [*items, *_twins(items, variants, clips, report, on_progress)]
        report.clips_changed = len(clips.audio)
        audio = {rel: ds.root / rel for it in items for rel in it.audio_files()}
        audio.update(clips.audio)
        mixed = ds.manifest.mixed_audio_formats or "samplerate" in changes
        manifest = ds.manifest.model_copy(
            update={
                "name": f"{ds.manifest.name} + invariance twins",
                "mixed_audio_formats": mixed,
                "provenance": {
                    **ds.manifest.provenance,
                    "invariance": {
                        "source": str(source),
                        "changes": list(changes),
                        "variants": {v.name: v.params for v in variants},
                    },
                },
            }
        )

        def verify(folder: Path) -> None:
            errors = dataset_errors(folder)
            if errors:
                raise ParauditError(f"the invariance set does not validate: {errors[0]}")
            _write_card(folder, source, changes, report)

        write_dataset(out, manifest, written, audio, verify=verify)
    return report


def card_data(source: Path, changes: tuple[str, ...], r: InvarianceReport) -> dict[str, Any]:
    return {
        "builder": "invariance",
        "source": str(source),
        "originals": r.originals,
        "changes": list(changes),
        "variants": {v.name: v.params for c in changes for v in VARIANTS[c]},
        "twins_written": dict(r.written),
        "twins_dropped": {k: dict(c) for k, c in r.dropped.items()},
        "clips_changed": r.clips_changed,
        "qc": "qc/invariance.py: the changed property moved as documented; median pitch "
        "(±1 st), pitch range (±2.5 st), loudness (±1.5 dB), rate (±5 %), end level (±2.5 st) "
        "and longest pause (±0.15 s) otherwise kept; SNR ≥ 27 dB for noise",
    }


def _write_card(root: Path, source: Path, changes: tuple[str, ...], r: InvarianceReport) -> None:
    d = card_data(source, changes, r)
    lines = [
        "# Invariance set",
        "",
        f"From `{source}`: {r.originals} original items; per variant, twins written "
        "(dropped by QC or clipping):",
        "",
        "| variant | parameters | written | dropped |",
        "|---|---|---:|---:|",
    ]
    for name, params in d["variants"].items():
        dropped = r.dropped.get(name, Counter())
        why = "; ".join(f"{k}: {n}" for k, n in dropped.items())
        shown = ", ".join(f"{k}={val}" for k, val in params.items())
        lines.append(
            f"| {name} | {shown} | {r.written[name]} | {sum(dropped.values())}"
            + (f" ({why})" if why else "")
            + " |"
        )
    lines += ["", f"QC: {d['qc']}.", ""]
    (root / CARD_JSON).write_text(json.dumps(d, indent=2, ensure_ascii=False) + "\n", "utf-8")
    (root / CARD_MD).write_text("\n".join(lines), encoding="utf-8")
