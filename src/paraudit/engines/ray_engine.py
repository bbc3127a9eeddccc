"""`--engine ray`: each judge's calls are answered by a pool of Ray actors.

The runner keeps everything that makes an audit exact and resumable: the plan, the cache keys,
the global rate limits, retries, the SQLite store and results.jsonl, all in the driver. It sees
each judge through `RayJudge`, a proxy with the real judge's identity (spec, options,
parameters, capabilities), whose `generate()` sends the call to the least-busy actor of the
judge's pool and awaits the answer. So a run on Ray makes the same calls with the same keys as
a local run and writes each finished call once; resume and reruns read the same store.

Faults: a worker process that dies fails its calls in flight with `RayActorError`; the proxy
turns that into a retryable `JudgeError`, so the runner's retry loop asks again, on another
worker while Ray restarts the dead one (`max_restarts`). Nothing is written for the failed
attempt, and the retried answer is written once.
"""

from __future__ import annotations

import asyncio
import importlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from paraudit.engines.ray_data import answer_with_ray_data
from paraudit.errors import MissingExtraError, ParauditError
from paraudit.judges.base import FatalJudgeError, Judge, JudgeError, Reply
from paraudit.judges.identity import State
from paraudit.judges.registry import load_judge
from paraudit.judges.spec import JudgeSpec
from paraudit.protocols.parts import Prompt
from paraudit.runfolder import CallRecord
from paraudit.runner.engine import Phase

STOP_WAIT_S = 30.0
"""How long a cancelled run waits for a Ray Data pass to stop (at its next chunk or batch)
before it closes the store; a later write is refused by the closed store."""
READY_TIMEOUT_S = 1800.0
"""How long a pool may take to start (a large vLLM model loads in minutes, not hours)."""
WAIT_FOR_WORKER_S = 0.05


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingExtraError("--engine ray", "ray", "ray") from None
    return ray


@dataclass(frozen=True)
class RayOptions:
    address: str | None = None
    """None: start a local Ray instance; 'auto' or 'ray://host:10001': join that cluster."""
    num_workers: int = 1
    """Actors per judge (one judge instance each)."""
    gpus_per_worker: float = 0.0
    cpus_per_worker: float = 1.0
    max_restarts: int = 3
    """How often Ray restarts a dead worker before its pool gives up on it."""
    ray_data: bool = True
    """Make each phase's unanswered calls as a Ray Dataset (engines.ray_data) when the judge
    has no rate limit; False: every call goes through the judge's actor pool."""

    def __post_init__(self) -> None:
        if self.num_workers < 1:
            raise ParauditError("--num-workers must be at least 1")
        if self.gpus_per_worker < 0 or self.cpus_per_worker < 0:
            raise ParauditError("--gpus-per-worker and CPUs per worker cannot be negative")


@dataclass
class _Slot:
    actor: Any
    state: str = "up"
    """up | restarting | dead"""
    inflight: int = 0
    pid: int | None = None


def _cause(e: BaseException) -> BaseException:
    """The judge's own exception inside a Ray task error (so FatalJudgeError stays fatal and a
    JudgeError keeps its retry_after), or the Ray error itself when there is none."""
    cause = getattr(e, "cause", None)
    return cause if isinstance(cause, BaseException) else e


class RayJudge(Judge):
    """A judge whose calls run on a pool of Ray actors; identical identity to the real judge."""

    def __init__(self, inner: Judge, engine: RayEngine) -> None:
        # A proxy, not a second judge: Judge.__init__ is not run; the identity is the real
        # judge's, as built (the same JudgeSpec object, nothing re-parsed).
        self.spec, self.options = inner.spec, inner.options
        self.judge_spec = inner.judge_spec
        self.notes = inner.notes
        self.inner = inner
        self.engine = engine
        self.capabilities = inner.capabilities
        # Forward the structured question only to judges that read it (see the runner).
        self.reads_question = inner.reads_question
        self._slots: list[_Slot] = []
        self._watchers: set[asyncio.Task[None]] = set()
        self._dataset: Any = None
        """The dataset the pool calibrates on when it starts after a bulk pass."""

    # -- identity: the real judge's, so cache keys and run.json match a local run -------------
    def state(self) -> State:
        return self.inner.state()  # a proxy: the real judge's declared state

    def served(self) -> dict[str, str] | None:
        return self.inner.served()  # who answers when a reply does not say: the real judge

    def describe(self) -> dict[str, Any]:
        o = self.engine.options
        return {
            **self.inner.describe(),
            "engine": {
                "name": "ray",
                "num_workers": o.num_workers,
                "gpus_per_worker": o.gpus_per_worker,
                "cpus_per_worker": o.cpus_per_worker,
                "ray_data": o.ray_data,
            },
        }

    # -- the pool ---------------------------------------------------------------------------
    async def preflight(self) -> None:
        self.engine.check_fits()

    def calibrate(self, dataset: Any) -> None:
        """Start the pool with the dataset the run calibrates on, and wait until every worker
        has loaded and calibrated its judge (no call timeout runs while a model loads)."""
        self.start(dataset)
        ray = self.engine.ray
        refs = [s.actor.ready.remote() for s in self._slots]
        try:
            pids = ray.get(refs, timeout=READY_TIMEOUT_S)
        except ray.exceptions.GetTimeoutError:
            self.close()
            raise FatalJudgeError(
                f"{self.spec}: Ray workers not ready after {READY_TIMEOUT_S:g} s; "
                f"the cluster may lack the resources ({self.engine.resources_text()})"
            ) from None
        except Exception as e:
            self.close()
            cause = _cause(e)
            if isinstance(cause, ParauditError):
                raise cause from None
            raise FatalJudgeError(f"{self.spec}: a Ray worker failed to start ({cause})") from None
        for slot, pid in zip(self._slots, pids, strict=True):
            slot.pid = pid

    async def answer_ahead(self, phase: Phase) -> dict[str, CallRecord] | None:
        """The runner's bulk pass for one phase (engines.ray_data): the phase's unanswered
        calls made on Ray Data and stored; the failed calls' records. None when this engine
        does not answer in bulk (the runner then calibrates this proxy's pool as usual)."""
        if not self.engine.options.ray_data:
            return None
        dataset = self._dataset = phase.dataset
        o = self.engine.options
        # A GPU worker is sized by its GPU alone (Ray Data calls CPUs and GPUs together on one
        # map experimental).
        pool: dict[str, float] = {"workers": o.num_workers, "max_restarts": o.max_restarts}
        if o.gpus_per_worker:
            pool["num_gpus"] = o.gpus_per_worker
        else:
            pool["num_cpus"] = o.cpus_per_worker
        # In a thread, so the event loop stays free: Ctrl-C cancels this await at once and the
        # pass stops at its next chunk or batch (a pass still waiting for its first batch, a
        # model loading, is waited for when the run's event loop closes).
        stop = threading.Event()
        work = asyncio.ensure_future(
            asyncio.to_thread(
                answer_with_ray_data,
                self.engine.ray,
                self.inner,
                _root(dataset),
                phase.instances,
                phase.store,
                phase.settings,
                pool,
                phase.progress,
                phase.on_progress,
                stop,
            )
        )
        try:
            return await asyncio.shield(work)
        except asyncio.CancelledError:
            stop.set()
            # Let the pass end before the runner closes the store under it.
            await asyncio.wait({work}, timeout=STOP_WAIT_S)
            if work.done() and not work.cancelled():
                work.exception()  # seen: the cancellation is what the run reports
            raise

    def start(self, dataset: Any) -> None:
        if self._slots:
            return
        root = _root(dataset)
        self._slots = [
            _Slot(self.engine.worker_class.remote(self.judge_spec, root))
            for _ in range(self.engine.options.num_workers)
        ]

    @property
    def pids(self) -> list[int | None]:
        """Worker process ids as last reported (None: not yet known)."""
        return [s.pid for s in self._slots]

    def close(self) -> None:
        """Kill the pool's workers (their CPUs/GPUs go back to the cluster)."""
        for s in self._slots:
            try:
                self.engine.ray.kill(s.actor, no_restart=True)
            except Exception:  # an already-dead actor needs no killing
                pass
        self._slots = []

    async def _pick(self) -> _Slot:
        while True:
            up = [s for s in self._slots if s.state == "up"]
            if up:
                return min(up, key=lambda s: s.inflight)
            if all(s.state == "dead" for s in self._slots):
                raise FatalJudgeError(
                    f"{self.spec}: every Ray worker died and none could be restarted "
                    f"(max_restarts={self.engine.options.max_restarts}); see the Ray logs"
                )
            await asyncio.sleep(WAIT_FOR_WORKER_S)

    async def _watch_restart(self, slot: _Slot) -> None:
        """Take a dead worker back into the pool once Ray has restarted it."""
        try:
            slot.pid = await slot.actor.ready.remote()
            slot.state = "up"
        except Exception:
            slot.state = "dead"

    def _worker_died(self, slot: _Slot) -> None:
        if slot.state != "up":
            return
        slot.state = "restarting"
        task = asyncio.get_running_loop().create_task(self._watch_restart(slot))
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    # -- calls ------------------------------------------------------------------------------
    async def generate(self, prompt: Prompt, *, sample: int = 0, question: Any = None) -> Reply:
        if not self._slots:
            # A runner that never calibrates (or a call a bulk pass left): workers load now.
            self.start(self._dataset)
        ray = self.engine.ray
        slot = await self._pick()
        slot.inflight += 1
        ref = slot.actor.generate.remote(prompt, sample, question)
        try:
            reply: Reply = await ref
            return reply
        except ray.exceptions.RayActorError as e:
            self._worker_died(slot)
            raise JudgeError(
                f"Ray worker (pid {slot.pid}) died during the call; retried on another worker "
                f"({type(e).__name__})",
                retry_after=0.0,
            ) from None
        except ray.exceptions.RayTaskError as e:
            raise _cause(e) from None
        except asyncio.CancelledError:  # the runner's timeout: stop the work on the worker too
            try:
                ray.cancel(ref)
            except Exception:
                pass
            raise
        finally:
            slot.inflight -= 1


def _root(dataset: Any) -> Path | None:
    """Workers load the dataset from its folder (small to send, and a check that every node
    sees the clips): the same folder the driver's runner calibrates on."""
    root = getattr(dataset, "root", None)
    return Path(root).resolve() if root is not None else None


@dataclass
class RayEngine:
    """Connects to (or starts) a Ray cluster and builds judge proxies. Use as a context
    manager: leaving it kills every pool it made, and shuts Ray down if it started it."""

    options: RayOptions = field(default_factory=RayOptions)
    ray: Any = None
    worker_class: Any = None
    started_here: bool = False
    judges: list[RayJudge] = field(default_factory=list)

    def __enter__(self) -> RayEngine:
        ray = import_ray()
        self.ray = ray
        if self.options.ray_data:  # before starting Ray: nothing to undo
            try:
                importlib.import_module("ray.data")
            except ImportError:
                raise MissingExtraError(
                    "--engine ray (its calls as a Ray Dataset)", "ray", "ray[data]"
                ) from None
        if not ray.is_initialized():
            # No address: a private Ray instance in this process, even if `ray start` runs
            # here ('auto' joins that one, with the driver's code shipped to its workers).
            kwargs: dict[str, Any] = {
                "address": self.options.address or "local",
                "include_dashboard": False,
                "log_to_driver": False,
            }
            if self.options.address:
                # Workers on other machines run the driver's paraudit code, so both sides
                # agree on prompts, parsing and keys.
                import paraudit

                kwargs["runtime_env"] = {"py_modules": [paraudit]}
            try:
                ray.init(**kwargs)
            except (ConnectionError, RuntimeError, ValueError) as e:
                where = self.options.address or "a local Ray instance"
                raise ParauditError(f"cannot connect to {where}: {e}") from None
            self.started_here = True
        from paraudit.engines.ray_worker import JudgeWorker

        self.worker_class = ray.remote(
            num_cpus=self.options.cpus_per_worker,
            num_gpus=self.options.gpus_per_worker,
            max_restarts=self.options.max_restarts,
            max_task_retries=0,  # the proxy retries through the runner, which counts attempts
        )(JudgeWorker)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for j in self.judges:
            j.close()
        self.judges = []
        if self.started_here:
            self.ray.shutdown()
            self.started_here = False

    # -- runner.engine.Engine -----------------------------------------------------------------
    def load_judge(self, spec: str | JudgeSpec) -> Judge:
        """The real judge is built here too, so a bad spec or a missing extra fails at once,
        and its identity is what the proxy reports."""
        proxy = RayJudge(load_judge(spec), self)
        self.judges.append(proxy)
        return proxy

    async def answer_ahead(self, judge: Judge, phase: Phase) -> dict[str, CallRecord] | None:
        """A Ray Data pass over the phase (RayJudge.answer_ahead) for the proxies this engine
        made; None for any other judge (the runner asks it itself)."""
        if not isinstance(judge, RayJudge) or judge.engine is not self:
            return None
        return await judge.answer_ahead(phase)

    async def release(self, judge: Judge) -> None:
        """Kill the proxy's workers (their CPUs and GPUs go back to the cluster); the engine
        keeps the proxy, whose identity and last worker ids stay readable."""
        if isinstance(judge, RayJudge):
            judge.close()

    def drop(self, judge: Judge) -> None:
        """Kill a proxy's workers now (the engine forgets it)."""
        if isinstance(judge, RayJudge):
            judge.close()
            if judge in self.judges:
                self.judges.remove(judge)

    # -- the cluster ------------------------------------------------------------------------
    def nodes(self) -> list[dict[str, Any]]:
        alive = [n for n in self.ray.nodes() if n.get("Alive")]
        return [
            {
                "node": n.get("NodeManagerAddress", "?"),
                "cpus": float(n.get("Resources", {}).get("CPU", 0)),
                "gpus": float(n.get("Resources", {}).get("GPU", 0)),
                "memory_gb": round(float(n.get("Resources", {}).get("memory", 0)) / 1e9, 1),
            }
            for n in alive
        ]

    def resources_text(self) -> str:
        nodes = self.nodes()
        cpus = sum(n["cpus"] for n in nodes)
        gpus = sum(n["gpus"] for n in nodes)
        mem = sum(n["memory_gb"] for n in nodes)
        return f"{len(nodes)} node(s), {cpus:g} CPUs, {gpus:g} GPUs, {mem:.1f} GB memory"

    def check_fits(self) -> None:
        """Refuse a pool no node can host (it would wait forever for resources)."""
        o = self.options
        nodes = self.nodes()
        if not any(
            n["cpus"] >= o.cpus_per_worker and n["gpus"] >= o.gpus_per_worker for n in nodes
        ):
            raise FatalJudgeError(
                f"no Ray node has {o.cpus_per_worker:g} CPU(s) and {o.gpus_per_worker:g} GPU(s) "
                f"free for one worker (cluster: {self.resources_text()}); "
                "lower --gpus-per-worker or add nodes"
            )


def pool_capacity(engine: RayEngine) -> int:
    """How many workers of the engine's size the cluster can hold at once (whole nodes)."""
    o = engine.options
    total = 0
    for n in engine.nodes():
        by_cpu = int(n["cpus"] // o.cpus_per_worker) if o.cpus_per_worker else 10**6
        by_gpu = int(n["gpus"] // o.gpus_per_worker) if o.gpus_per_worker else 10**6
        total += min(by_cpu, by_gpu)
    return total
