"""Where a run's judge calls are made: the one interface the runner asks of an engine.

The runner keeps the plan, the keys, the store and the rows whatever the engine; an engine only
decides where judges run. `LocalEngine` runs them in this process; `--engine ray`
(engines.ray_engine.RayEngine) runs them on a Ray cluster behind proxies with the judges'
identity, and may answer a phase's calls in bulk before the runner asks it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from paraudit.items.dataset import Dataset
from paraudit.judges.base import Judge
from paraudit.judges.registry import load_judge
from paraudit.judges.spec import JudgeSpec
from paraudit.protocols.instances import Instance
from paraudit.runfolder import CallRecord, CallStore
from paraudit.runner.asking import BulkSettings, Progress


@dataclass(frozen=True)
class Phase:
    """One phase of a judge's plan (every question but Staging, or Staging), as a bulk pass
    needs it."""

    dataset: Dataset
    instances: Iterable[Instance]
    """The phase's questions in plan order (a stream: read once)."""
    store: CallStore
    """Where the answers go (the run's single writer is this process)."""
    settings: BulkSettings
    progress: Progress
    on_progress: Callable[[Progress], None] | None = None


class Engine(Protocol):
    def load_judge(self, spec: str | JudgeSpec) -> Judge:
        """The judge the runner asks: its identity (label, parameters, cache keys) is the
        judge's own, wherever its calls run."""
        ...

    async def answer_ahead(self, judge: Judge, phase: Phase) -> dict[str, CallRecord] | None:
        """Make one phase's unanswered calls in bulk and store them, before the runner asks the
        phase (which then finds them in the store); the records of the calls that failed. None:
        this engine does not answer in bulk, and the runner calibrates the judge and makes every
        call itself. Never called for a judge with a rate limit (the runner keeps limits)."""
        ...

    async def release(self, judge: Judge) -> None:
        """Free what the judge holds once the run has asked it everything (workers, GPUs)."""
        ...


class LocalEngine:
    """Judges built and called in this process, on the runner's event loop."""

    def load_judge(self, spec: str | JudgeSpec) -> Judge:
        return load_judge(spec)

    async def answer_ahead(self, judge: Judge, phase: Phase) -> dict[str, CallRecord] | None:
        return None

    async def release(self, judge: Judge) -> None:
        """Nothing to free: a local judge lives as long as the run's objects."""
