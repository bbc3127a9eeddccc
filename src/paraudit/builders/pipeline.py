"""The builders end to end: sources → LLM composition → branch 0 (seeded, balanced per pair) →
balance ratings → voicing + QC → items → dataset folder (atomic) + dataset card.

Everything expensive is cached by content (LLM completions in compose.sqlite, clips in the
render cache), so rerunning the same command after a crash resumes where it stopped.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paraudit import __version__
from paraudit.builders.assembly import assemble, qc_failures, sides, voice_jobs
from paraudit.builders.branches import branch_zero
from paraudit.builders.composing import (
    TASKS,
    Candidate,
    Composed,
    composer_for,
    conversations_candidate,
    positional_candidate,
    single_turn_candidate,
    unrenderable,
)
from paraudit.builders.conflict import keep_conflicts
from paraudit.builders.explain import RuleMisses, rule_misses, summary_lines
from paraudit.builders.quality import dnsmos, dnsmos_available, length_words, rate_responses
from paraudit.builders.voicing import TurnVoicer
from paraudit.compose.llm import ComposerLLM
from paraudit.compose.parse import Rejection
from paraudit.dimensions.emotion import DEFAULT_VOCABULARY
from paraudit.errors import ParauditError
from paraudit.items.dataset import AudioFiles, write_dataset
from paraudit.items.records import AuditItem, DatasetManifest
from paraudit.pools import interruptible_pool
from paraudit.sources.emocf import SentencePair, read_emocf
from paraudit.sources.od3 import read_od3, usable, weighted_order
from paraudit.sources.tables import ColumnMap
from paraudit.versions import package_version

KINDS = tuple(TASKS)
PRESETS = {"single-turn": "emocf", "positional": "od3", "conversations": "od3"}


@dataclass(frozen=True)
class BuildOptions:
    kind: str
    source: Path
    out: Path
    preset: str | None = None
    mapping: ColumnMap = field(default_factory=ColumnMap)
    n: int | None = None
    """Pairs to compose (default: every usable source record)."""
    limit: int | None = None
    """At most this many source records are tried (caps LLM cost)."""
    seed: int = 0
    audio: str = "tts"
    """tts, or source: human turns from the source's own recordings (single-turn only)."""
    audio_root: Path | None = None
    response_tone: str = "neutral"
    pairs: tuple[str, ...] = ()
    """Keep only these source pairs (e.g. anger/sadness); empty keeps all."""
    alpha: float = 1.0
    concurrency: int = 4
    rate_balance: bool = True
    dnsmos: bool = True
    conflict: bool = False
    """Keep only word–tone conflict pairs (single-turn; builders/conflict.py)."""

    @property
    def task(self) -> str:
        return TASKS[self.kind]

    @property
    def preset_name(self) -> str:
        return self.preset or PRESETS[self.kind]


class Reporter:
    """Progress hooks; the CLI draws bars from them, tests and benchmarks ignore them."""

    def start(self, stage: str, total: int | None) -> None:
        pass

    def advance(self, stage: str, n: int = 1) -> None:
        pass


@dataclass
class BuildResult:
    options: BuildOptions
    items: list[AuditItem] = field(default_factory=list)
    rejections: list[dict[str, str]] = field(default_factory=list)
    available: dict[str, int] = field(default_factory=dict)
    tried: dict[str, int] = field(default_factory=dict)
    composed: dict[str, int] = field(default_factory=dict)
    qc: dict[str, dict[str, Any]] = field(default_factory=dict)
    items_dropped_by: dict[str, int] = field(default_factory=dict)
    """speaker:emotion of the turn that made QC drop an item → items."""
    timings: dict[str, float] = field(default_factory=dict)
    llm: dict[str, Any] = field(default_factory=dict)
    tts: dict[str, Any] = field(default_factory=dict)
    dnsmos_note: str = ""
    qc_misses: list[RuleMisses] = field(default_factory=list)
    """Why QC dropped turns, per target and rule (most frequent first)."""
    dropped_turns: int = 0

    def qc_summary(self) -> list[str]:
        """Lines for the terminal: the top QC reasons with measured values and thresholds."""
        return summary_lines(self.qc_misses, self.dropped_turns)


def load_candidates(o: BuildOptions) -> list[Candidate]:
    """Every source record to try, in the order they will be tried."""
    if o.preset_name == "emocf":
        if o.kind != "single-turn":
            raise ParauditError("the emocf preset holds single sentences: build single-turn")
        pairs = read_emocf(o.source, o.mapping, o.audio_root)
        if o.pairs:
            # A pair is unordered: "sadness/anger" keeps the anger/sadness pairs.
            wanted = {frozenset(w.lower().split("/")) for w in o.pairs}
            pairs = [p for p in pairs if frozenset(p.pair.lower().split("/")) in wanted]
            if not pairs:
                raise ParauditError(f"no source pair matches --pairs {','.join(o.pairs)}")
        random.Random(f"{o.seed}:order").shuffle(pairs)
        return [single_turn_candidate(p) for p in pairs]
    if o.preset_name == "od3":
        if o.kind == "single-turn":
            raise ParauditError("single-turn builds read single sentences: use --preset emocf")
        dialogues = [d for d in read_od3(o.source, o.mapping) if usable(d)]
        if not dialogues:
            raise ParauditError(f"{o.source}: no dialogue has two human turns and a VA reply")
        ordered = weighted_order(dialogues, o.seed, o.alpha)
        if o.kind == "positional":
            return [positional_candidate(d, o.seed) for d in ordered]
        return [conversations_candidate(d) for d in ordered]
    raise ParauditError(f"unknown preset '{o.preset_name}' (known: emocf, od3)")


def _check_recordings(o: BuildOptions, c: Candidate) -> None:
    if o.audio != "source":
        return
    rec = c.record
    assert isinstance(rec, SentencePair)
    for path in rec.recordings:
        if path is None:
            raise Rejection("no-recording", "the source has no recording for one emotion")
        if not path.is_file():
            raise Rejection("no-recording", "a source recording file is missing")


def compose_stage(
    o: BuildOptions,
    candidates: list[Candidate],
    llm: ComposerLLM,
    voicer: TurnVoicer,
    result: BuildResult,
    reporter: Reporter,
) -> list[tuple[Candidate, Composed]]:
    """Compose in candidate order, in chunks, until n pairs are accepted or the sources end."""
    compose = composer_for(o.kind, llm, o.response_tone)
    target = o.n if o.n is not None else len(candidates)
    pool = candidates[: o.limit] if o.limit is not None else candidates
    accepted: list[tuple[Candidate, Composed]] = []
    reporter.start("compose", min(target, len(pool)))

    def one(c: Candidate) -> Composed | Rejection:
        try:
            _check_recordings(o, c)
            out = compose(c)
            unrenderable(out, voicer.can_voice, human=o.audio != "source")
            return out
        except Rejection as r:
            return r

    with interruptible_pool(o.concurrency) as ex:  # Ctrl-C: do not wait on a hung call
        i = 0
        while i < len(pool) and len(accepted) < target:
            chunk = pool[i : i + max(1, min(o.concurrency, target - len(accepted)))]
            i += len(chunk)
            for c, got in zip(chunk, ex.map(one, chunk), strict=True):
                result.tried[c.group] = result.tried.get(c.group, 0) + 1
                if isinstance(got, Rejection):
                    result.rejections.append(
                        {
                            "source_id": c.source_id,
                            "stage": "compose",
                            "code": got.code,
                            "reason": got.reason,
                        }
                    )
                elif len(accepted) < target:
                    accepted.append((c, got))
                    result.composed[c.group] = result.composed.get(c.group, 0) + 1
                    reporter.advance("compose")
    return accepted


def _voices(voicer: TurnVoicer, seed: int, key: str) -> dict[str, str]:
    rng = random.Random(f"{seed}:voices:{key}")
    human = rng.choice(voicer.voices("human"))
    others = [v for v in voicer.voices("assistant") if v != human] or list(
        voicer.voices("assistant")
    )
    return {"human": human, "assistant": rng.choice(others)}


def build(
    o: BuildOptions,
    llm: ComposerLLM,
    voicer: TurnVoicer,
    reporter: Reporter | None = None,
    on_written: Callable[[BuildResult], None] | None = None,
) -> BuildResult:
    """Run a build; the dataset folder is written at the end, atomically."""
    rep = reporter or Reporter()
    result = BuildResult(o)
    t0 = time.perf_counter()
    if o.audio == "source" and o.kind != "single-turn":
        raise ParauditError("--audio source needs human recordings: only single-turn builds")
    candidates = load_candidates(o)
    conflicts: dict[str, dict[str, Any]] = {}
    if o.conflict:
        candidates, conflicts = keep_conflicts(candidates, result.rejections)
    result.available = dict(sorted(Counter(c.group for c in candidates).items()))
    composed = compose_stage(o, candidates, llm, voicer, result, rep)
    if not composed:
        raise ParauditError(
            f"no pair survived composition ({len(result.rejections)} rejected: "
            + ", ".join(
                f"{k} {v}" for k, v in Counter(r["code"] for r in result.rejections).items()
            )
            + ")"
        )
    t_compose = time.perf_counter()
    voices = {c.key: _voices(voicer, o.seed, c.key) for _, c in composed}
    # Branch 0 is decided once, over every composed pair (before QC, so a build and its
    # real-audio twin assign the same items alike), balanced per pair by construction.
    swaps = branch_zero({c.key: sides(c) for _, c in composed}, o.seed)
    balance = _rate_all(o, composed, swaps, llm, rep) if o.rate_balance else {}
    t_balance = time.perf_counter()
    jobs = list(dict.fromkeys(j for _, c in composed for j in voice_jobs(o, c, voices[c.key])))
    rep.start("render", len(jobs))
    voiced = voicer.voice_all(jobs, lambda: rep.advance("render"))
    result.qc = voicer.qc_table(voiced)
    result.qc_misses = rule_misses(voiced.items())
    result.dropped_turns = sum(not v.accepted for v in voiced.values())
    t_render = time.perf_counter()
    audio = AudioFiles()
    for cand, c in composed:
        swap = c.key in swaps
        failed, dropped_by = qc_failures(o, c, swap, voiced, voices[c.key])
        if failed:
            for k in dropped_by:
                result.items_dropped_by[k] = result.items_dropped_by.get(k, 0) + 1
            reject = {"source_id": cand.source_id, "stage": "qc", "code": "qc-failed"}
            result.rejections.append(reject | {"reason": failed[0]})
            continue
        words = [length_words(c.responses[s][0]) for s in ((1, 0) if swap else (0, 1))]
        extra: dict[str, Any] = {
            "generator": llm.spec.describe(),
            "tts": voicer.label,
            "balance": {"length_words": words, "lexical": balance.get(c.key)},
        }
        if cand.key in conflicts:
            extra["conflict"] = conflicts[cand.key]
        result.items.append(assemble(o, cand, c, swap, voiced, voices[c.key], audio, extra))
    if o.dnsmos:
        _add_dnsmos(result, audio, rep)
    else:
        result.dnsmos_note = "not computed (--no-dnsmos)"
    t_quality = time.perf_counter()
    if not result.items:
        raise ParauditError(
            "\n".join(
                [
                    f"every composed pair ({len(composed)}) was dropped by audio QC; nothing "
                    "was written (no dataset, no card)",
                    *result.qc_summary(),
                ]
            )
        )
    used = {rel for it in result.items for rel in it.audio_files()}
    vocab = tuple(
        dict.fromkeys(
            [*DEFAULT_VOCABULARY]
            + [
                e
                for it in result.items
                for b in it.branches
                for e in (*b.emotions, b.response.emotion)
            ]
        )
    )
    result.llm = {
        **llm.spec.describe(),
        "calls": llm.stats.calls,
        "cache_hits": llm.stats.cache_hits,
        "retries": llm.stats.retries,
    }
    result.tts = voicer.describe()
    result.timings = {
        "compose_s": round(t_compose - t0, 3),
        "balance_s": round(t_balance - t_compose, 3),
        "render_s": round(t_render - t_balance, 3),
        "tts_s": round(voicer.stats.tts_s, 3),
        "qc_s": round(voicer.stats.qc_s, 3),
        "llm_s": round(llm.stats.seconds, 3),
        "dnsmos_s": round(t_quality - t_render, 3),
        "total_s": round(time.perf_counter() - t0, 3),
    }
    manifest = DatasetManifest(
        name=f"paraudit-{o.kind}-{o.source.stem}",
        tasks=(o.task,),
        emotions=vocab,
        rendering=(
            "human turns: the source's own recordings; responses: " + voicer.rendering
            if o.audio == "source"
            else voicer.rendering
        ),
        provenance={
            "builder": f"paraudit {__version__} build {o.kind}",
            "source": o.source.name,
            "preset": o.preset_name,
            "map": o.mapping.describe(),
            "seed": o.seed,
            "generator": llm.spec.describe(),
            "tts": voicer.describe(),
            "audio": o.audio,
            "packages": {n: package_version(n) for n in ("openai", "google-genai", "piper-tts")},
            "card": "CARD.md, card.json",
        },
    )
    write_dataset(
        o.out, manifest, result.items, {k: v for k, v in audio.files.items() if k in used}
    )
    if on_written:
        on_written(result)
    return result


def _rate_all(
    o: BuildOptions,
    composed: list[tuple[Candidate, Composed]],
    swaps: set[str],
    llm: ComposerLLM,
    rep: Reporter,
) -> dict[str, dict[str, Any]]:
    """Lexical ratings of (R0, R1) per composed pair, in branch order."""
    rep.start("balance", len(composed))

    def rate(pair: tuple[Candidate, Composed]) -> tuple[str, dict[str, Any] | None]:
        c = pair[1]
        r = [c.responses[s][0] for s in ((1, 0) if c.key in swaps else (0, 1))]
        got = rate_responses(llm, r[0], r[1])
        rep.advance("balance")
        return c.key, got

    out: dict[str, dict[str, Any]] = {}
    with interruptible_pool(o.concurrency) as ex:  # Ctrl-C: do not wait on a hung call
        for key, got in ex.map(rate, composed):
            if got is not None:
                out[key] = got
    return out


def _add_dnsmos(result: BuildResult, audio: AudioFiles, rep: Reporter) -> None:
    if not dnsmos_available():
        result.dnsmos_note = "not computed: speechmos is not installed (pip install speechmos)"
        return
    rep.start("dnsmos", 2 * len(result.items))
    updated: list[AuditItem] = []
    for it in result.items:
        scores = {}
        for name, b in zip(("R0", "R1"), it.branches, strict=True):
            scores[name] = dnsmos(audio.files[b.response.audio])
            rep.advance("dnsmos")
        bal = {**it.meta.get("balance", {}), "dnsmos": scores}
        updated.append(it.model_copy(update={"meta": {**it.meta, "balance": bal}}))
    result.items = updated
    result.dnsmos_note = (
        "DNSMOS (speechmos) of each response clip, resampled to 16 kHz for the model"
    )
