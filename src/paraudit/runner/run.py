"""Run an audit: plan → calls (concurrent, cached, resumable) → results.jsonl."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import soundfile as sf

from paraudit import __version__
from paraudit.errors import ParauditError
from paraudit.items.dataset import Dataset, load_dataset
from paraudit.items.validate import validate_dataset
from paraudit.judges.base import Judge
from paraudit.judges.prices import Price, estimate, load_prices
from paraudit.judges.registry import load_judge
from paraudit.protocols.instances import Instance
from paraudit.protocols.parsing import Parsed, parse_choice, parse_matching, parse_turns
from paraudit.protocols.parts import AudioPart
from paraudit.runner.calls import CallOutcome, RateLimiter, RetryPolicy, call_key, call_with_retries
from paraudit.runner.plan import PlanSpec, p_labels, plan_instances, staging_instances
from paraudit.runner.store import RunStore

STORE = "calls.sqlite"
SPEC = "run.json"
RESULTS = "results.jsonl"


@dataclass
class RunConfig:
    dataset: Path
    judges: list[str]
    out: Path
    plan: PlanSpec
    concurrency: int = 8
    rpm: float | None = None
    parse_retries: int = 0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    judge_loader: Callable[[str], Judge] = load_judge
    """Builds a judge from its spec: in this process, or an engine's proxy (paraudit.engines)."""


@dataclass
class Progress:
    total: int = 0
    done: int = 0
    unparsed: int = 0
    errors: int = 0
    calls_made: int = 0
    first_call_at: float | None = None
    """perf_counter() when the first judge call started (None: no call made)."""
    last_call_at: float | None = None
    """perf_counter() when the last judge call finished."""


def parse_reply(inst: Instance, raw: str) -> Parsed:
    if inst.answer == "choice":
        return parse_choice(raw)
    if inst.answer == "matching":
        return parse_matching(raw)
    assert isinstance(inst.gold, dict)
    return parse_turns(raw, tuple(inst.gold))


def load_checked(path: Path) -> Dataset:
    problems = validate_dataset(path)
    if problems:
        raise ParauditError(
            f"{path} does not validate ({len(problems)} problem(s), first: {problems[0]}); "
            "no judge was called"
        )
    return load_dataset(path)


def audio_seconds(instances: list[Instance]) -> float:
    seen: dict[str, float] = {}
    total = 0.0
    for inst in instances:
        for p in inst.prompt:
            if isinstance(p, AudioPart):
                if p.sha256 not in seen:
                    seen[p.sha256] = sf.info(str(p.path)).duration
                total += seen[p.sha256]
    return total


def check_capabilities(judge: Judge, instances: list[Instance]) -> None:
    """Refuse, before any call, questions a judge declares it cannot take (never truncate)."""
    caps = judge.capabilities
    for inst in instances:
        clips = [p for p in inst.prompt if isinstance(p, AudioPart)]
        if clips and not caps.audio_in:
            raise ParauditError(
                f"{judge.spec} takes no audio, but probe {inst.probe} sends clips; "
                "use --probes O,T for text-only judges"
            )
        if caps.max_audio_parts is not None and len(clips) > caps.max_audio_parts:
            raise ParauditError(
                f"{judge.spec} takes at most {caps.max_audio_parts} audio parts, but "
                f"{inst.instance_id} has {len(clips)}; limit --protocols or --probes"
            )
        if caps.max_audio_seconds is not None:
            seconds = audio_seconds([inst])
            if seconds > caps.max_audio_seconds:
                raise ParauditError(
                    f"{judge.spec} takes at most {caps.max_audio_seconds:g} s of audio, but "
                    f"{inst.instance_id} has {seconds:.1f} s; nothing is truncated silently"
                )


class Runner:
    def __init__(
        self, cfg: RunConfig, on_progress: Callable[[Progress], None] | None = None
    ) -> None:
        self.cfg = cfg
        self.on_progress = on_progress
        self.progress = Progress()
        # Finished calls (ok or refused) of this and earlier runs, read once from the store.
        self._finished: dict[str, dict[str, Any]] = {}
        self._inflight: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def _instance(
        self,
        judge: Judge,
        inst: Instance,
        store: RunStore,
        limiter: RateLimiter,
        sem: asyncio.Semaphore,
    ) -> dict[str, Any]:
        row: dict[str, Any] | None = None
        for sample in range(self.cfg.parse_retries + 1):
            key = call_key(judge, inst.prompt, sample)
            stored = self._finished.get(key)
            if stored is None:
                stored = await self._call_once(judge, inst, key, sample, store, limiter, sem)
            row = self._row(judge, inst, key, stored, sample)
            if row["status"] != "unparsed":
                break
        assert row is not None
        self.progress.done += 1
        self.progress.unparsed += row["status"] == "unparsed"
        self.progress.errors += row["status"] == "error"
        if self.on_progress:
            self.on_progress(self.progress)
        return row

    async def _call_once(
        self,
        judge: Judge,
        inst: Instance,
        key: str,
        sample: int,
        store: RunStore,
        limiter: RateLimiter,
        sem: asyncio.Semaphore,
    ) -> dict[str, Any]:
        """Make the call for `key`, or wait for the same call already in flight: identical
        prompts (e.g. the transcript-only control for both branches) are paid for once."""
        if key in self._inflight:
            return await self._inflight[key]
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            async with sem:
                if self.progress.first_call_at is None:
                    self.progress.first_call_at = time.perf_counter()
                tokens = estimated_tokens(inst) if limiter.tpm else 0.0
                out: CallOutcome = await call_with_retries(
                    judge, inst.prompt, sample, limiter, self.cfg.retry, tokens
                )
            self.progress.calls_made += 1
            self.progress.last_call_at = time.perf_counter()
            audio = (
                list(out.sent_audio_sha256)
                if out.sent_audio_sha256 is not None
                else [p.sha256 for p in inst.prompt if isinstance(p, AudioPart)]
            )
            store.put(
                key,
                judge.spec,
                out.status,
                out.raw,
                out.reason,
                out.latency_s,
                out.attempts,
                out.usage,
                audio,
            )
            stored = {
                "status": out.status,
                "raw": out.raw,
                "reason": out.reason,
                "latency_s": out.latency_s,
                "attempts": out.attempts,
                "usage": out.usage,
                "audio_sent": audio,
            }
            if out.status != "error":
                self._finished[key] = stored
            future.set_result(stored)
            return stored
        except BaseException as e:
            future.set_exception(e)
            future.exception()  # mark retrieved: waiters re-raise it themselves
            raise
        finally:
            del self._inflight[key]

    def _row(
        self, judge: Judge, inst: Instance, key: str, stored: dict[str, Any], sample: int
    ) -> dict[str, Any]:
        status, pred, reason = stored["status"], None, stored["reason"] or ""
        if status == "ok":
            parsed = parse_reply(inst, stored["raw"] or "")
            pred, reason = parsed.pred, parsed.reason
            status = "ok" if pred is not None else "unparsed"
        return {
            "judge": judge.spec.split("?", 1)[0],
            "task": inst.task,
            "item_id": inst.item_id,
            "branch": inst.branch,
            "probe": inst.probe,
            "protocol": inst.protocol,
            "cue": inst.cue,
            "order": inst.order,
            "pred": pred,
            "gold": inst.gold,
            "status": status,
            "correct": bool(pred == inst.gold) if status == "ok" else False,
            "raw": stored["raw"],
            "reason": reason,
            "latency_s": stored["latency_s"],
            "attempts": stored["attempts"],
            "usage": stored.get("usage", {}),
            "audio_sent_sha256": stored.get("audio_sent", []),
            "sample": sample,
            "key": key,
            "options": inst.options,
        }

    async def _run_judge(
        self, ds: Dataset, spec: str, store: RunStore, first: list[Instance]
    ) -> list[dict[str, Any]]:
        judge = self.cfg.judge_loader(spec)
        check_capabilities(judge, first)
        await judge.preflight()
        judge.calibrate(ds)
        # Per-judge limits in the spec (?rpm=…&tpm=…) override the run-wide --rpm.
        rpm = float(judge.options["rpm"]) if "rpm" in judge.options else self.cfg.rpm
        tpm = float(judge.options["tpm"]) if "tpm" in judge.options else None
        limiter = RateLimiter(rpm, tpm)
        sem = asyncio.Semaphore(self.cfg.concurrency)
        rows = await asyncio.gather(*(self._instance(judge, i, store, limiter, sem) for i in first))
        preds: dict[tuple[str, int, str], tuple[str, ...]] = {}
        for inst, row in zip(first, rows, strict=True):
            if (
                inst.probe == "P"
                and row["status"] == "ok"
                and inst.order == "ab"
                and inst.branch is not None
            ):
                n = len(ds.item(inst.item_id).context)
                preds[(inst.item_id, inst.branch, inst.cue)] = p_labels(inst, row["pred"], n)
        staged = staging_instances(ds, self.cfg.plan, preds)
        self.progress.total += len(staged)
        rows += await asyncio.gather(
            *(self._instance(judge, i, store, limiter, sem) for i in staged)
        )
        await release(judge)
        return list(rows)

    async def run(self) -> list[dict[str, Any]]:
        judges = [self.cfg.judge_loader(s) for s in self.cfg.judges]  # fail fast on a bad spec
        ds = load_checked(self.cfg.dataset)
        self.cfg.out.mkdir(parents=True, exist_ok=True)
        spec = {
            "paraudit": __version__,
            "dataset": str(self.cfg.dataset.resolve()),
            "dataset_name": ds.manifest.name,
            "judges": self.cfg.judges,
            "judge_details": [j.describe() for j in judges],
            "plan": asdict(self.cfg.plan),
            "concurrency": self.cfg.concurrency,
            "rpm": self.cfg.rpm,
            "parse_retries": self.cfg.parse_retries,
            "retry": asdict(self.cfg.retry),
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        (self.cfg.out / SPEC).write_text(json.dumps(spec, indent=2) + "\n")
        planned = plan_instances(ds, self.cfg.plan)
        self.progress.total = len(planned) * len(self.cfg.judges)
        store = RunStore(self.cfg.out / STORE)
        self._finished = store.finished()
        try:
            rows: list[dict[str, Any]] = []
            for s in self.cfg.judges:
                rows += await self._run_judge(ds, s, store, planned)
        finally:
            store.close()
        tmp = self.cfg.out / (RESULTS + ".tmp")
        with tmp.open("w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        tmp.replace(self.cfg.out / RESULTS)
        return rows


async def release(judge: Judge) -> None:
    """Free what a judge holds once its calls are done (an engine's workers), if it can."""
    aclose = getattr(judge, "aclose", None)
    if aclose is not None:
        await aclose()


# Tokens per second of audio assumed for --tpm budgeting (Gemini's published rate, the higher
# of the hosted providers'), so a budget is not overrun.
AUDIO_TOKENS_PER_S = 32.0


def estimated_tokens(inst: Instance) -> float:
    """Input tokens of one call, estimated: text characters / 4 plus audio seconds × 32."""
    return text_tokens([inst]) + audio_seconds([inst]) * AUDIO_TOKENS_PER_S


def text_tokens(instances: list[Instance]) -> int:
    """Rough text-token count (characters / 4) of the prompts' text parts."""
    return (
        sum(len(p.text) for i in instances for p in i.prompt if not isinstance(p, AudioPart)) // 4
    )


def dry_run(cfg: RunConfig, prices: dict[str, Price] | None = None) -> dict[str, Any]:
    """Plan size, audio seconds, text tokens and an estimated cost per judge; no call is made."""
    for s in cfg.judges:
        load_judge(s)
    ds = load_checked(cfg.dataset)
    inst = plan_instances(ds, cfg.plan)
    seconds = audio_seconds(inst)
    tokens = text_tokens(inst)
    table = prices if prices is not None else load_prices(None)
    return {
        "instances_per_judge": len(inst),
        "calls": len(inst) * len(cfg.judges),
        "audio_seconds_per_judge": round(seconds, 1),
        "text_tokens_per_judge": tokens,
        "staging": "asked after P, one per parsed P answer (not counted above)"
        if "S" in cfg.plan.probes
        else "not requested",
        "cost": {s: estimate(s, tokens, seconds, len(inst), table) for s in cfg.judges},
    }
