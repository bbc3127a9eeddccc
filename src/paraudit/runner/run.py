"""Run an audit: plan → calls (concurrent, cached, resumable) → results.jsonl."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from paraudit import __version__
from paraudit.errors import ParauditError
from paraudit.items.conflict import FIELD as CONFLICT_FIELD
from paraudit.items.conflict import ConflictError
from paraudit.items.dataset import Dataset, load_dataset, sha256_file
from paraudit.items.validate import dataset_errors
from paraudit.judges.base import FatalJudgeError, Judge
from paraudit.judges.prices import Price, estimate, load_prices
from paraudit.judges.registry import load_judge
from paraudit.judges.spec import JudgeSpec, parse_judge_spec
from paraudit.protocols.instances import Instance
from paraudit.protocols.null_probe import NULL_DIR
from paraudit.runfolder import (
    CALLS,
    RESULTS,
    CallRecord,
    CallStore,
    ResultRow,
    RunLock,
    RunSpec,
    dataset_fingerprint,
    read_run_json,
    write_run_json,
)
from paraudit.runfolder.calls import Completion
from paraudit.runfolder.rows import RowWriter
from paraudit.runner.asking import LOOKUP, Asker, BulkSettings, Progress, chunks
from paraudit.runner.calls import RateLimiter, RetryPolicy, call_key
from paraudit.runner.checks import (
    audio_seconds,
    check_capabilities,
    check_token_budget,
    text_characters,
)
from paraudit.runner.dimension_fit import check_judge_dimensions
from paraudit.runner.engine import Engine, LocalEngine, Phase
from paraudit.runner.folder import check_out, claim, unique_judges
from paraudit.runner.keys import IDENTITY_KEYS, folder_call_keys
from paraudit.runner.plan import (
    PlanSpec,
    count_instances,
    iter_instances,
    iter_staging,
    p_labels,
    plan_skips,
)
from paraudit.runner.reask import reasked
from paraudit.runner.sequential import (
    Monitor,
    SequentialSpec,
    ask_sequentially,
    planned_items,
    write_record,
)
from paraudit.runner.served import ServedCounts
from paraudit.specs import redact
from paraudit.stats.accuracy import CellTally, read_results
from paraudit.stats.sequential_record import RECORD

__all__ = [
    "Engine",
    "LocalEngine",
    "Progress",
    "RunConfig",
    "RunOutcome",
    "Runner",
    "dry_run",
    "load_checked",
]


@dataclass
class RunConfig:
    dataset: Path
    judges: Sequence[JudgeSpec | str]
    """The judges, as the CLI parsed them (or their text: see judge_specs); every stage after
    receives the same JudgeSpec objects."""
    out: Path
    plan: PlanSpec
    concurrency: int = 8
    rpm: float | None = None
    parse_retries: int = 0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    extend: bool = False
    """Add judges/probes/protocols/cues to the run already in `out` (same dataset)."""
    engine: Engine = field(default_factory=LocalEngine)
    """Where the judges run: in this process, or on a cluster (engines.ray_engine)."""
    parse: str = "strict"
    """The reply parser's preset (protocols.parsing.PARSE_PRESETS; recorded in the RunSpec when
    not the default). Parsing follows the call, so call keys and the cache do not change."""
    sequential: SequentialSpec | None = None
    """--sequential: ask in batches and stop what the verdict no longer needs
    (runner/sequential.py). Not part of the RunSpec: every call it makes is a call of the full
    plan, with the same key."""
    reask: float | None = None
    """--reask SHARE (runner.reask): this seeded share of pointwise questions asked a second
    time on identical audio; None: never (recorded in the RunSpec only when set)."""

    @property
    def judge_specs(self) -> list[JudgeSpec]:
        """The judges as objects. The CLI hands them in parsed; text (library callers, tests)
        is parsed here, once per run, since the runner reads this once."""
        return [j if isinstance(j, JudgeSpec) else parse_judge_spec(j) for j in self.judges]


def load_checked(path: Path) -> Dataset:
    problems = dataset_errors(path)  # warnings (balance, mixed formats) never stop a run
    if problems:
        # Declared word–tone conflict items whose words and voice agree (and nothing else
        # wrong): the items the user asked to be audited as conflicts are not, a usage mistake.
        only_conflict = all(p.field == CONFLICT_FIELD for p in problems)
        raise (ConflictError if only_conflict else ParauditError)(
            f"{path} does not validate ({len(problems)} problem(s), first: {problems[0]}); "
            "no judge was called"
        )
    return load_dataset(path)


class Runner:
    def __init__(
        self, cfg: RunConfig, on_progress: Callable[[Progress], None] | None = None
    ) -> None:
        self.cfg = cfg
        self.on_progress = on_progress
        self.progress = Progress()
        self._checked: list[Judge] = []
        """Judges whose start-up check already passed in this run."""
        self.notes: list[str] = []
        """Things the user should know that are not errors (dropped duplicates, skipped
        model listings), for the CLI to print."""
        self.spec: RunSpec | None = None
        """The run's spec once run() has claimed the folder."""
        self.call_keys = IDENTITY_KEYS
        """The formula of the folder's call keys (runner.keys), read when the run starts."""
        self.served = ServedCounts()
        """The models the replies say answered, per judge (the end-of-run line)."""
        self.sequential: dict[str, dict[str, Any]] = {}
        """--sequential: per judge, sequential.json's record (runner/sequential.py)."""

    async def _run_judge(
        self, ds: Dataset, judge: Judge, store: CallStore, out: RowWriter, tally: CellTally
    ) -> str | None:
        """Every question to one judge, rows written as they come; the last call error."""
        plan = self.cfg.plan
        if judge.capabilities.restricts():
            check_capabilities(judge, iter_instances(ds, plan))
        if judge not in self._checked:  # judges --extend brings back from run.json
            await self._preflight(judge)
        # Per-judge limits in the spec (?rpm=…&tpm=…) override the run-wide --rpm.
        js = judge.judge_spec
        rpm = js.harness_float("rpm") or self.cfg.rpm
        tpm = js.harness_float("tpm")
        check_token_budget(judge.label, tpm, iter_instances(ds, plan))
        # An engine that answers a phase's calls in bulk (Ray Data) does it before the phase is
        # asked; its workers calibrate their own judges. A judge with a rate limit is asked
        # call by call here, where the limit holds for every worker at once.
        engine = self.cfg.engine
        bulk = BulkSettings(self.cfg.concurrency, self.cfg.retry, self.cfg.parse_retries)

        async def answer_ahead(instances: Iterable[Instance]) -> dict[str, CallRecord] | None:
            if rpm or tpm:
                return None
            phase = Phase(ds, instances, store, bulk, self.progress, self.on_progress)
            return await engine.answer_ahead(judge, phase)

        monitor = (
            Monitor(judge.label, self.cfg.sequential, planned_items(ds, plan))
            if self.cfg.sequential
            else None
        )
        # A sequential run decides after each batch what to ask next: never in bulk ahead.
        failed = None if monitor else await answer_ahead(iter_instances(ds, plan, asking=True))
        if failed is None:
            judge.calibrate(ds)
        asker = Asker(
            judge,
            store,
            RateLimiter(rpm, tpm),
            concurrency=self.cfg.concurrency,
            retry=self.cfg.retry,
            parse_retries=self.cfg.parse_retries,
            parse=self.cfg.parse,
            reask=self.cfg.reask,
            seed=self.cfg.plan.seed,
            progress=self.progress,
            on_progress=self.on_progress,
        )
        asker.failed_earlier = failed or {}
        last_error: str | None = None
        # The judge's perception answers, which Staging asks about: one per (item, branch,
        # cue), from whichever order ran (the "ab" one when both did).
        preds: dict[tuple[str, int, str], tuple[str, ...]] = {}
        # Items in asking order (runner.plan.asking_order): call order is not dataset order.
        asked = (
            ask_sequentially(ds, plan, asker, monitor)
            if monitor
            else asker.rows(iter_instances(ds, plan, asking=True))
        )
        async for inst, row in asked:
            last_error = self._keep(row, out, tally) or last_error
            if inst.probe == "P" and row.pred is not None and inst.branch is not None:
                k = (inst.item_id, inst.branch, inst.cue)
                if k not in preds or inst.order == "ab":
                    own = ds.item(inst.item_id).branches[inst.branch].emotions
                    preds[k] = p_labels(inst, row.pred, own)
        check_token_budget(judge.label, tpm, iter_staging(ds, plan, preds))
        self.progress.total += sum(1 for _ in iter_staging(ds, plan, preds))
        staged = iter_staging(ds, plan, preds, asking=True)
        asker.failed_earlier = await answer_ahead(staged) or {}
        async for _, row in asker.rows(iter_staging(ds, plan, preds, asking=True)):
            last_error = self._keep(row, out, tally) or last_error
        await engine.release(judge)
        if monitor:
            self.sequential[judge.label] = monitor.record(monitor.planned)
        return last_error

    def _keep(self, row: ResultRow, out: RowWriter, tally: CellTally) -> str | None:
        out.write(row)
        tally.add(row)
        self.served.add(row)
        return row.reason if row.status == "error" else None

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
        except FatalJudgeError as e:
            shown = redact(str(e), getattr(judge, "secrets", ()))
            if shown != str(e):  # the server echoed the key in its refusal
                raise FatalJudgeError(shown) from None
            raise
        self.notes += [f"{judge.label}: {n}" for n in judge.notes]

    def _check_plan(self, ds: Dataset) -> None:
        """Refuse a plan of nothing (found by planning its first question only)."""
        plan = self.cfg.plan
        if "S" in plan.probes and "P" not in plan.probes:
            raise ParauditError(
                "probe S (staging) asks about the judge's own P answers; add P (--probes P,S)"
            )
        if next(iter_instances(ds, plan), None) is None:
            raise ParauditError(
                f"the plan has no questions: probes {','.join(plan.probes)} × protocols "
                f"{','.join(plan.protocols)} × cues {','.join(plan.cues)} match nothing in "
                f"{ds.manifest.name} (T and O ask only some cues); widen --probes or --cues"
            )

    def _record(self, ds: Dataset, spec: RunSpec, judges: list[Judge]) -> dict[str, Any]:
        """run.json: the RunSpec (identity) and what else an auditor wants to know."""
        return {
            "paraudit": __version__,
            "spec": spec.as_dict(),
            "dataset": str(self.cfg.dataset.resolve()),
            "dataset_name": ds.manifest.name,
            "judges": [j.judge_spec.text for j in judges],
            # The same judges as structure (JudgeSpec.as_dict): --extend reads them back
            # without parsing text ("judges" alone: folders written before).
            "judge_specs": [j.judge_spec.as_dict() for j in judges],
            "judge_details": [j.describe() for j in judges],
            # How this folder's call keys are made (runner.keys): kept by every later run.
            "call_keys": self.call_keys,
            "plan": {  # the default preset left out: run.json as before presets existed
                k: v
                for k, v in asdict(self.cfg.plan).items()
                if not (k == "prompts" and v == "paper")
            },
            "concurrency": self.cfg.concurrency,
            "rpm": self.cfg.rpm,
            "parse_retries": self.cfg.parse_retries,
            "retry": asdict(self.cfg.retry),
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "skipped": [s._asdict() for s in plan_skips(ds, self.cfg.plan)],
        } | ({"sequential": self.cfg.sequential.as_dict()} if self.cfg.sequential else {})

    async def run(self) -> list[dict[str, Any]]:
        """Run the audit and return its rows (read back from results.jsonl: for small runs and
        tests; `execute` returns only counts, whatever the run's size)."""
        await self.execute()
        return read_results(self.cfg.out)

    async def execute(self) -> RunOutcome:
        """Run the audit; results.jsonl is written row by row and renamed into place at the end,
        so memory does not grow with the number of rows."""
        specs, self.notes = unique_judges(self.cfg.judge_specs)
        # A folder written before call keys hashed the identity keeps its formula: its calls
        # are found (runner.keys).
        self.call_keys = folder_call_keys(self.cfg.out)
        specs = [s.with_call_keys(self.call_keys) for s in specs]
        # Built once, before the dataset is read: a bad spec fails fast.
        loaded = {s.label: self.cfg.engine.load_judge(s) for s in specs}
        ds = load_checked(self.cfg.dataset)
        check_judge_dimensions(specs, ds, str(self.cfg.dataset))
        out = self.cfg.out
        check_out(out)
        self._check_plan(ds)  # a plan of nothing is refused before the folder is made
        finished = self._finished_before_start(ds, specs, loaded)
        if finished is not None:
            return finished
        # Each judge's start-up check (key, model, server) before anything is written: a typo
        # in a URL must not commit a new run folder to the broken spec.
        for judge in loaded.values():
            await self._preflight(judge)
            # A ?tpm= too small for one call is refused here too, before the folder is made
            # (checked again per judge below, for judges --extend brings back).
            check_token_budget(
                judge.label,
                judge.judge_spec.harness_float("tpm"),
                iter_instances(ds, self.cfg.plan),
            )
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
                    prompts=p.prompts,
                )
                self._check_plan(ds)
            self.spec = got.spec
            if "N" in self.cfg.plan.probes:  # null clips live in the claimed folder from now on
                self.cfg.plan = replace(self.cfg.plan, null_dir=str(out / NULL_DIR))
            judges = [
                loaded.get(s.label) or self.cfg.engine.load_judge(s.with_call_keys(self.call_keys))
                for s in got.judges
            ]
            if got.history is not None:
                record = self._record(ds, got.spec, judges)
                old = read_run_json(out) or {}
                if "started_at" in old and got.history[-1]["event"] == "extended":
                    record["started_at"] = old["started_at"]
                write_run_json(out, {**record, "history": got.history})
            remove_stale_rows(out)
            store = CallStore(out / CALLS)
            try:
                key = run_key(got.spec, self.cfg.plan, judges, self.cfg.sequential)
                done = finished_audit(store, out, key)
                if done is not None:  # e.g. --extend that adds nothing
                    return self._already_done(done, judges)
                # Counted only now: a finished audit's rerun does not plan at all.
                self.progress.total = count_instances(ds, self.cfg.plan) * len(judges)
                tally, last_error = CellTally(), None
                with RowWriter(out) as rows:
                    for judge in judges:
                        last_error = (
                            await self._run_judge(ds, judge, store, rows, tally) or last_error
                        )
                    outcome = RunOutcome.of(tally.table(), last_error, self.progress.calls_made)
                    outcome = replace(outcome, served=self.served.as_dict())
                    rows.commit()
                if self.cfg.sequential:
                    write_record(out, self.cfg.sequential, self.sequential)
                else:  # the full plan now: an earlier sequential run's record no longer holds
                    (out / RECORD).unlink(missing_ok=True)
                store.complete(
                    Completion(
                        key,
                        rows.rows,
                        outcome.statuses.get("error", 0),
                        rows.size,
                        rows.sha256,
                        outcome.stored(),
                        time.time(),
                    )
                )
            finally:
                store.close()
        return outcome

    def _finished_before_start(
        self, ds: Dataset, specs: list[JudgeSpec], loaded: dict[str, Judge]
    ) -> RunOutcome | None:
        """A rerun of a finished audit, found before any judge's start-up check (which may load
        a model, need a key or call a server): nothing is asked, so nothing needs them."""
        out = self.cfg.out
        old = read_run_json(out) if out.is_dir() else None
        if not old or "spec" not in old:
            return None
        asked = run_spec(ds, self.cfg, specs)
        if RunSpec.from_dict(old["spec"]) != asked:
            return None  # a new, extended or refused run: claim() decides, after the checks
        judges = [loaded[label] for label in asked.judges]
        with RunLock(out):
            remove_stale_rows(out)
            store = CallStore(out / CALLS)
            try:
                key = run_key(asked, self.cfg.plan, judges, self.cfg.sequential)
                done = finished_audit(store, out, key)
            finally:
                store.close()
        if done is None:
            return None
        self.spec = asked
        return self._already_done(done, judges)

    def _already_done(self, done: Completion, judges: list[Judge]) -> RunOutcome:
        self.progress.total = self.progress.done = done.rows
        self.notes.append(
            f"this audit is already complete in {self.cfg.out} ({done.rows} rows, "
            f"{RESULTS} unchanged since); no question was asked again"
        )
        for judge in judges:
            self._checked.append(judge)
        return RunOutcome.from_stored(done.outcome, already_complete=True)


@dataclass(frozen=True)
class RunOutcome:
    """What a run did, whatever its size: counts and the terminal table, no rows."""

    table: list[dict[str, Any]]
    """stats.accuracy.CellTally's table: one record per judge × task × probe × protocol."""
    statuses: dict[str, int]
    """Rows by status (ok, unparsed, refused, error)."""
    last_error: str | None
    """The reason of the last call error, if any."""
    calls_made: int
    """Judge calls this invocation made (the rest came from the store)."""
    already_complete: bool = False
    served: dict[str, dict[str, int]] = field(default_factory=dict)
    """judge → model the replies named → answers (runner.served; {} in older records)."""
    """The store recorded this very audit as finished, and results.jsonl is as written then."""

    @property
    def rows(self) -> int:
        return sum(self.statuses.values())

    @classmethod
    def of(cls, table: list[dict[str, Any]], last_error: str | None, calls: int) -> RunOutcome:
        statuses = {"ok": 0, "unparsed": 0, "refused": 0, "error": 0}
        for c in table:
            statuses["unparsed"] += c["unparsed"]
            statuses["refused"] += c["refused"]
            statuses["error"] += c["errors"]
            # probe N's "I can't hear anything" (absent from tables stored before N)
            no_audio = c.get("no_audio", 0)
            if no_audio:
                statuses["no-audio"] = statuses.get("no-audio", 0) + no_audio
            statuses["ok"] += c["n"] - c["unparsed"] - c["refused"] - c["errors"] - no_audio
        return cls(table, statuses, last_error, calls)

    def stored(self) -> dict[str, Any]:
        return {"table": self.table, "last_error": self.last_error, "served": self.served}

    @classmethod
    def from_stored(cls, data: dict[str, Any], *, already_complete: bool) -> RunOutcome:
        made = cls.of(data["table"], data.get("last_error"), 0)
        served = data.get("served") or {}  # absent in records written before it
        return cls(made.table, made.statuses, made.last_error, 0, already_complete, served)


@functools.cache
def code_digest() -> str:
    """sha256 of paraudit's own source files. Any change to the code (prompts, planning,
    parsing, a built-in judge) may change rows, and the version number is not bumped for each,
    so a finished audit is trusted only by the code that finished it; other code replays the
    plan from the store (no call is repeated)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def run_key(
    spec: RunSpec, plan: PlanSpec, judges: list[Judge], sequential: SequentialSpec | None = None
) -> str:
    """The identity of an audit's rows: its spec and plan, each judge's identity (spec and
    declared state), the paraudit version and its code (code_digest); a sequential run's rows
    are another audit's (its rule is added; a full run's key is as before)."""
    seq = {"sequential": sequential.as_dict()} if sequential else {}
    blob = json.dumps(
        seq
        | {
            "paraudit": __version__,
            "code": code_digest(),
            "spec": spec.as_dict(),
            # where probe N's clips are stored is no part of the audit (calls key clips by hash)
            # the default preset is left out, so run keys of runs before presets stay the same
            "plan": {
                k: v
                for k, v in asdict(plan).items()
                if k != "null_dir" and not (k == "prompts" and v == "paper")
            },
            "judges": [j.identity().as_dict() for j in judges],
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def remove_stale_rows(out: Path) -> None:
    """Delete RowWriter files left by a run that was killed (-9, out of memory): at a million
    rows each is a hidden gigabyte. Called under the folder's lock, so none is in use."""
    for stale in out.glob(f".{RESULTS}.*.tmp"):
        stale.unlink()


def finished_audit(store: CallStore, out: Path, key: str) -> Completion | None:
    """The store's record of this audit when rerunning it would change nothing: it finished
    with no call error, and results.jsonl still holds exactly the bytes it wrote."""
    done = store.completion(key)
    if done is None or done.errors:
        return None
    path = out / RESULTS
    try:
        if path.stat().st_size != done.results_size:
            return None
    except OSError:
        return None
    return done if sha256_file(path) == done.results_sha256 else None


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
        parse=cfg.parse,
        prompts=cfg.plan.prompts,
        reask=cfg.reask,
    )


def dry_run(cfg: RunConfig, prices: dict[str, Price] | None = None) -> dict[str, Any]:
    """Plan size, audio seconds, text tokens, an estimated cost per judge and, when --out
    already holds a run, how many of each judge's questions are answered there (a resume pays
    only for the rest); no call is made and nothing is written. The plan is streamed."""
    specs, _ = unique_judges(cfg.judge_specs)
    scheme = folder_call_keys(cfg.out)  # an older folder's answered calls, by its own keys
    judges = [load_judge(js.with_call_keys(scheme)) for js in specs]
    ds = load_checked(cfg.dataset)
    check_judge_dimensions(specs, ds, str(cfg.dataset))
    store = cfg.out / CALLS
    answered = dict.fromkeys((j.label for j in judges), 0)
    size, seconds, chars = 0, 0.0, 0
    # --reask: the questions asked a second time, and what they send again.
    again, again_seconds, again_chars = 0, 0.0, 0
    for chunk in chunks(iter_instances(ds, cfg.plan), LOOKUP):
        size += len(chunk)
        seconds += audio_seconds(chunk)
        chars += text_characters(chunk)
        if cfg.reask:
            twice = [i for i in chunk if reasked(i, cfg.reask, cfg.plan.seed)]
            again += len(twice)
            again_seconds += audio_seconds(twice)
            again_chars += text_characters(twice)
        for j in judges:
            keys = [call_key(j, i.prompt, 0) for i in chunk]
            answered[j.label] += CallStore.count_finished(store, [keys])
    table = prices if prices is not None else load_prices(None)
    # What the runner asks of each judge (runner/asking.py): ?samples=N draws per question
    # (N calls, each sending the prompt); under --reask one more call per re-asked question,
    # only for a judge not already sampling (its draws are its re-ask baseline).
    calls, cost = 0, {}
    for js in specs:
        n = js.whole("samples") or 1
        extra = (again, again_seconds, again_chars) if n == 1 else (0, 0.0, 0)
        calls += size * n + extra[0]
        tokens_j = (chars * n + extra[2]) // 4
        cost[js.label] = estimate(js, tokens_j, seconds * n + extra[1], size * n + extra[0], table)
    reasking = [js.label for js in specs if (js.whole("samples") or 1) == 1] if cfg.reask else []
    out: dict[str, Any] = {
        "instances_per_judge": size,
        "calls": calls,
        "audio_seconds_per_judge": round(seconds, 1),
        "text_tokens_per_judge": chars // 4,
        "staging": "asked after P, one per parsed P answer (not counted above)"
        if "S" in cfg.plan.probes
        else "not requested",
        "cost": cost,
    }
    sampled = [js.label for js in specs if (js.whole("samples") or 1) > 1]
    if sampled:
        out["samples"] = (
            f"{', '.join(sampled)}: ?samples=N asks every question N times (counted in calls "
            "and cost)"
        )
    if cfg.reask:
        skipped = [js.label for js in specs if js.label not in reasking]
        out["reask"] = (
            f"{again} questions per judge asked a second time (--reask {cfg.reask:g}; "
            f"{again * len(reasking)} extra calls, counted in calls and cost)"
            + (
                f"; not re-asked: {', '.join(skipped)} (already sampled: its draws are its "
                "re-ask baseline)"
                if skipped
                else ""
            )
        )
    if store.is_file():
        out["already_answered"] = {
            label: f"{n} of {size} (in {store}: not asked again)" for label, n in answered.items()
        }
    return out
