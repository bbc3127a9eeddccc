"""Run an audit: plan → calls (concurrent, cached, resumable) → results.jsonl."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import soundfile as sf

from paraudit import __version__
from paraudit.errors import ParauditError
from paraudit.items.dataset import Dataset, load_dataset
from paraudit.items.validate import dataset_errors
from paraudit.judges.base import FatalJudgeError, Judge
from paraudit.judges.prices import Price, estimate, load_prices
from paraudit.judges.registry import load_judge
from paraudit.judges.spec import JudgeSpec
from paraudit.protocols.instances import Instance
from paraudit.protocols.parsing import Parsed, parse_answer
from paraudit.protocols.parts import AudioPart
from paraudit.runfolder import (
    CALLS,
    CallRecord,
    CallStore,
    RunLock,
    RunSpec,
    dataset_fingerprint,
    read_run_json,
    write_rows,
    write_run_json,
)
from paraudit.runner.calls import (
    CallOutcome,
    RateLimiter,
    RetryPolicy,
    call_key,
    call_with_retries,
    prompt_record,
)
from paraudit.runner.folder import check_out, claim, unique_judges
from paraudit.runner.plan import (
    PlanSpec,
    p_labels,
    plan_instances,
    plan_skips,
    staging_instances,
)


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
    extend: bool = False
    """Add judges/probes/protocols/cues to the run already in `out` (same dataset)."""
    judge_loader: Callable[[str | JudgeSpec], Judge] = load_judge
    """Builds a judge from its spec: in this process, or an engine's proxy (paraudit.engines)."""


@dataclass
class Progress:
    total: int = 0
    done: int = 0
    unparsed: int = 0
    errors: int = 0
    refused: int = 0
    calls_made: int = 0
    first_call_at: float | None = None
    """perf_counter() when the first judge call started (None: no call made)."""
    last_call_at: float | None = None
    """perf_counter() when the last judge call finished."""


def parse_reply(inst: Instance, raw: str) -> Parsed:
    return parse_answer(inst.question, raw)


def load_checked(path: Path) -> Dataset:
    problems = dataset_errors(path)  # warnings (balance, mixed formats) never stop a run
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
                f"{judge.label} takes no audio, but probe {inst.probe} sends clips; "
                "use --probes O,T for text-only judges"
            )
        if caps.max_audio_parts is not None and len(clips) > caps.max_audio_parts:
            raise ParauditError(
                f"{judge.label} takes at most {caps.max_audio_parts} audio parts, but "
                f"{inst.instance_id} has {len(clips)}; limit --protocols or --probes"
            )
        if caps.max_audio_seconds is not None:
            seconds = audio_seconds([inst])
            if seconds > caps.max_audio_seconds:
                raise ParauditError(
                    f"{judge.label} takes at most {caps.max_audio_seconds:g} s of audio, but "
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
        self._finished: dict[str, CallRecord] = {}
        self._inflight: dict[str, asyncio.Future[CallRecord]] = {}
        self._checked: list[Judge] = []
        """Judges whose start-up check already passed in this run."""
        self.notes: list[str] = []
        """Things the user should know that are not errors (dropped duplicates, skipped
        model listings), for the CLI to print."""
        self.spec: RunSpec | None = None
        """The run's spec once run() has claimed the folder."""

    async def _instance(
        self,
        judge: Judge,
        inst: Instance,
        store: CallStore,
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
        self.progress.refused += row["status"] == "refused"
        if self.on_progress:
            self.on_progress(self.progress)
        return row

    async def _call_once(
        self,
        judge: Judge,
        inst: Instance,
        key: str,
        sample: int,
        store: CallStore,
        limiter: RateLimiter,
        sem: asyncio.Semaphore,
    ) -> CallRecord:
        """Make the call for `key`, or wait for the same call already in flight: identical
        prompts (e.g. the transcript-only control for both branches) are paid for once."""
        if key in self._inflight:
            return await self._inflight[key]
        future: asyncio.Future[CallRecord] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            async with sem:
                if self.progress.first_call_at is None:
                    self.progress.first_call_at = time.perf_counter()
                tokens = estimated_tokens(inst) if limiter.tpm else 0.0
                out: CallOutcome = await call_with_retries(
                    judge, inst.prompt, sample, limiter, self.cfg.retry, tokens, inst.question
                )
            self.progress.calls_made += 1
            self.progress.last_call_at = time.perf_counter()
            audio = (
                list(out.sent_audio_sha256)
                if out.sent_audio_sha256 is not None
                else [p.sha256 for p in inst.prompt if isinstance(p, AudioPart)]
            )
            stored = CallRecord(
                key=key,
                judge=judge.label,
                status=out.status,
                raw=out.raw,
                reason=out.reason,
                latency_s=out.latency_s,
                attempts=out.attempts,
                usage=out.usage,
                audio_sent=audio,
                prompt=prompt_record(inst.prompt),
                finished_at=time.time(),
            )
            store.put(stored)
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
        self, judge: Judge, inst: Instance, key: str, stored: CallRecord, sample: int
    ) -> dict[str, Any]:
        status, pred, reason = stored.status, None, stored.reason
        if status == "ok":
            parsed = parse_reply(inst, stored.raw or "")
            pred, reason = parsed.pred, parsed.reason
            status = "ok" if pred is not None else "unparsed"
        return {
            "judge": judge.label,
            "task": inst.task,
            "item_id": inst.item_id,
            "branch": inst.branch,
            "probe": inst.probe,
            "protocol": inst.protocol,
            "cue": inst.cue,
            "order": inst.order,
            "context_order": inst.context_order,
            "pred": pred,
            "gold": inst.gold,
            "status": status,
            "correct": bool(pred == inst.gold) if status == "ok" else False,
            "raw": stored.raw,
            "reason": reason,
            "latency_s": stored.latency_s,
            "attempts": stored.attempts,
            "usage": stored.usage,
            "audio_sent_sha256": stored.audio_sent,
            "sample": sample,
            "key": key,
            "options": inst.options,
        }

    async def _run_judge(
        self, ds: Dataset, judge: Judge, store: CallStore, first: list[Instance]
    ) -> list[dict[str, Any]]:
        check_capabilities(judge, first)
        if judge not in self._checked:  # judges --extend brings back from run.json
            await self._preflight(judge)
        judge.calibrate(ds)
        # Per-judge limits in the spec (?rpm=…&tpm=…) override the run-wide --rpm.
        js = judge.judge_spec
        rpm = js.harness_float("rpm") or self.cfg.rpm
        tpm = js.harness_float("tpm")
        check_token_budget(judge.label, tpm, first)
        limiter = RateLimiter(rpm, tpm)
        sem = asyncio.Semaphore(self.cfg.concurrency)
        rows = await asyncio.gather(*(self._instance(judge, i, store, limiter, sem) for i in first))
        preds: dict[tuple[str, int, str], tuple[str, ...]] = {}
        for inst, row in zip(first, rows, strict=True):
            # P answers from whichever order ran (the "ab" one when both did).
            if inst.probe == "P" and row["status"] == "ok" and inst.branch is not None:
                k = (inst.item_id, inst.branch, inst.cue)
                if k not in preds or inst.order == "ab":
                    own = ds.item(inst.item_id).branches[inst.branch].emotions
                    preds[k] = p_labels(inst, row["pred"], own)
        staged = staging_instances(ds, self.cfg.plan, preds)
        check_token_budget(judge.label, tpm, staged)
        self.progress.total += len(staged)
        rows += await asyncio.gather(
            *(self._instance(judge, i, store, limiter, sem) for i in staged)
        )
        await release(judge)
        return list(rows)

    async def _preflight(self, judge: Judge) -> None:
        """The judge's own check, bounded by --timeout: a server that accepts the connection
        but never answers is named as such instead of holding the run."""
        self._checked.append(judge)
        limit = self.cfg.retry.timeout_s
        try:
            async with asyncio.timeout(limit):
                await judge.preflight()
        except TimeoutError:
            where = judge.judge_spec.base_url or judge.judge_spec.backend
            raise FatalJudgeError(
                f"{judge.label}: {where} is reachable but not answering (no reply to the "
                f"start-up check within --timeout {limit:g} s); check the server or raise "
                "--timeout"
            ) from None
        self.notes += [f"{judge.label}: {n}" for n in getattr(judge, "notes", [])]

    def _plan(self, ds: Dataset) -> list[Instance]:
        plan = self.cfg.plan
        if "S" in plan.probes and "P" not in plan.probes:
            raise ParauditError(
                "probe S (staging) asks about the judge's own P answers; add P (--probes P,S)"
            )
        planned = plan_instances(ds, plan)
        if not planned:
            raise ParauditError(
                f"the plan has no questions: probes {','.join(plan.probes)} × protocols "
                f"{','.join(plan.protocols)} × cues {','.join(plan.cues)} match nothing in "
                f"{ds.manifest.name} (T and O ask only some cues); widen --probes or --cues"
            )
        return planned

    def _record(self, ds: Dataset, spec: RunSpec, judges: list[Judge]) -> dict[str, Any]:
        """run.json: the RunSpec (identity) and what else an auditor wants to know."""
        return {
            "paraudit": __version__,
            "spec": spec.as_dict(),
            "dataset": str(self.cfg.dataset.resolve()),
            "dataset_name": ds.manifest.name,
            "judges": [j.judge_spec.text for j in judges],
            "judge_details": [j.describe() for j in judges],
            "plan": asdict(self.cfg.plan),
            "concurrency": self.cfg.concurrency,
            "rpm": self.cfg.rpm,
            "parse_retries": self.cfg.parse_retries,
            "retry": asdict(self.cfg.retry),
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "skipped": [s._asdict() for s in plan_skips(ds, self.cfg.plan)],
        }

    async def run(self) -> list[dict[str, Any]]:
        specs, self.notes = unique_judges(self.cfg.judges)
        # Built once, before the dataset is read: a bad spec fails fast.
        loaded = {s.label: self.cfg.judge_loader(s) for s in specs}
        ds = load_checked(self.cfg.dataset)
        out = self.cfg.out
        check_out(out)
        planned = self._plan(ds)  # a plan of nothing is refused before the folder is made
        # Each judge's start-up check (key, model, server) before anything is written: a typo
        # in a URL must not commit a new run folder to the broken spec.
        for judge in loaded.values():
            await self._preflight(judge)
        out.mkdir(parents=True, exist_ok=True)
        with RunLock(out):
            asked = run_spec(ds, self.cfg, specs)
            got = claim(out, asked, specs, self.cfg.extend)
            if got.spec != asked:  # --extend grew the run: its plan covers old and new
                p = self.cfg.plan
                self.cfg.plan = PlanSpec(
                    got.spec.probes,  # type: ignore[arg-type]
                    got.spec.protocols,  # type: ignore[arg-type]
                    got.spec.cues,
                    p.orders,
                    p.seed,
                    p.limit,
                )
                planned = self._plan(ds)
            self.spec = got.spec
            judges = [loaded.get(s.label) or self.cfg.judge_loader(s) for s in got.judges]
            if got.history is not None:
                record = self._record(ds, got.spec, judges)
                old = read_run_json(out) or {}
                if "started_at" in old and got.history[-1]["event"] == "extended":
                    record["started_at"] = old["started_at"]
                write_run_json(out, {**record, "history": got.history})
            self.progress.total = len(planned) * len(judges)
            store = CallStore(out / CALLS)
            self._finished = store.finished()
            try:
                rows: list[dict[str, Any]] = []
                for judge in judges:
                    rows += await self._run_judge(ds, judge, store, planned)
            finally:
                store.close()
            write_rows(out, rows)
        return rows


def run_spec(ds: Dataset, cfg: RunConfig, judges: list[JudgeSpec]) -> RunSpec:
    return RunSpec(
        dataset_fingerprint=dataset_fingerprint(cfg.dataset),
        dataset_name=ds.manifest.name,
        judges=tuple(j.label for j in judges),
        probes=tuple(cfg.plan.probes),
        protocols=tuple(cfg.plan.protocols),
        cues=tuple(cfg.plan.cues),
        orders=cfg.plan.orders,
        seed=cfg.plan.seed,
        limit=cfg.plan.limit,
        parse_retries=cfg.parse_retries,
    )


def check_token_budget(label: str, tpm: float | None, instances: list[Instance]) -> None:
    """Refuse up front a token budget that one call alone exceeds: it could never be spent."""
    if not tpm or not instances:
        return
    biggest = max(instances, key=estimated_tokens)
    need = estimated_tokens(biggest)
    if need > tpm:
        raise ParauditError(
            f"{label}: tpm={tpm:g} is below what one call needs (about {need:.0f} estimated "
            f"input tokens for {biggest.instance_id}); raise tpm to at least {need:.0f}"
        )


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
    specs, _ = unique_judges(cfg.judges)
    for js in specs:
        load_judge(js)
    ds = load_checked(cfg.dataset)
    inst = plan_instances(ds, cfg.plan)
    seconds = audio_seconds(inst)
    tokens = text_tokens(inst)
    table = prices if prices is not None else load_prices(None)
    return {
        "instances_per_judge": len(inst),
        "calls": len(inst) * len(specs),
        "audio_seconds_per_judge": round(seconds, 1),
        "text_tokens_per_judge": tokens,
        "staging": "asked after P, one per parsed P answer (not counted above)"
        if "S" in cfg.plan.probes
        else "not requested",
        "cost": {js.label: estimate(js, tokens, seconds, len(inst), table) for js in specs},
    }
