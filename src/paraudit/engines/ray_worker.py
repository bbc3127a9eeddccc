"""The Ray actor behind a judge proxy: one real judge, loaded once, in a worker process.

The actor is asynchronous, so concurrent calls share its event loop: a batching judge (`hf:`,
`vllm:`) gathers them into batches with its own `Batcher`, exactly as it does in-process, and a
CPU-bound judge answers one call at a time on the worker's CPU.

This module imports no Ray: the engine wraps `JudgeWorker` with `ray.remote` at run time, so
the class stays a plain, testable Python class.
"""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path
from typing import Any

from paraudit.errors import ParauditError
from paraudit.items.dataset import Dataset, load_dataset
from paraudit.judges.base import FatalJudgeError, Judge, Reply
from paraudit.judges.registry import load_judge
from paraudit.judges.spec import JudgeSpec
from paraudit.protocols.parts import Prompt


class JudgeWorker:
    """Holds one judge built from `spec` (the driver's JudgeSpec, pickled: never re-parsed),
    calibrated on the dataset folder `dataset_root` (None: the run calibrates nothing). The
    worker reads the dataset itself, so it also proves the clips are reachable from its node.
    Ray re-runs this constructor when it restarts a dead worker, and the next call loads and
    calibrates the judge again before answering."""

    def __init__(self, spec: JudgeSpec | str, dataset_root: Path | None) -> None:
        # Text only from callers outside a run (tests): the engine always sends the object.
        self.spec = spec.text if isinstance(spec, JudgeSpec) else spec
        self.dataset_root = dataset_root
        self.judge: Judge | None = None
        self.failure: Exception | None = None
        try:
            self.judge = load_judge(spec)
        except Exception as e:  # reported by ready() as the judge's own error, not a crash
            self.failure = e
        self._ready = False
        self._lock: asyncio.Lock | None = None

    async def _ensure_ready(self) -> Judge:
        if self.failure is not None:
            raise self.failure
        assert self.judge is not None
        if self._ready:
            return self.judge
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if not self._ready:
                dataset = self._dataset()
                await self.judge.preflight()
                if dataset is not None:
                    self.judge.calibrate(dataset)
                self._ready = True
        return self.judge

    def _dataset(self) -> Dataset | None:
        if self.dataset_root is None:
            return None
        if not self.dataset_root.is_dir():
            raise FatalJudgeError(
                f"a Ray worker on {socket.gethostname()} cannot read the dataset at "
                f"{self.dataset_root}: put it on storage every node mounts at that path"
            )
        return load_dataset(self.dataset_root)

    async def ready(self) -> int:
        """Load and calibrate the judge; the worker's process id (for fault tests and logs)."""
        try:
            await self._ensure_ready()
        except ParauditError:
            raise
        except Exception as e:  # a load failure is the user's to fix: one clear line
            raise FatalJudgeError(f"{self.spec} cannot start on a Ray worker ({e})") from None
        return os.getpid()

    async def pid(self) -> int:
        return os.getpid()

    async def generate(self, prompt: Prompt, sample: int, question: Any) -> Reply:
        judge = await self._ensure_ready()
        if question is None:
            return await judge.generate(prompt, sample=sample)
        # Only judges that read the structured question are handed one (see the runner).
        ask: Any = judge.generate
        reply: Reply = await ask(prompt, sample=sample, question=question)
        return reply
