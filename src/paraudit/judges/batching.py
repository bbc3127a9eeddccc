"""Gather concurrent generate() calls into batches for local models (transformers, vLLM)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from paraudit.judges.base import Reply
from paraudit.protocols.parts import Prompt

RunBatch = Callable[[list[Prompt]], list[Reply]]


class Batcher:
    """Calls arriving within `wait_s` of each other (up to `batch_size`) run as one batch, in
    a worker thread, so the event loop keeps queueing while the model works."""

    def __init__(self, run_batch: RunBatch, batch_size: int, wait_s: float) -> None:
        self.run_batch = run_batch
        self.batch_size = max(1, batch_size)
        self.wait_s = wait_s
        self._queue: asyncio.Queue[tuple[Prompt, asyncio.Future[Reply]]] | None = None
        self._worker: asyncio.Task[None] | None = None

    async def _serve(self) -> None:
        assert self._queue is not None
        loop = asyncio.get_running_loop()
        while True:
            batch = [await self._queue.get()]
            deadline = loop.time() + self.wait_s
            while len(batch) < self.batch_size and (left := deadline - loop.time()) > 0:
                try:
                    batch.append(await asyncio.wait_for(self._queue.get(), left))
                except TimeoutError:
                    break
            try:
                replies = await asyncio.to_thread(self.run_batch, [p for p, _ in batch])
            except Exception as e:  # every caller in the batch sees the failure (and retries)
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(e)
                continue
            for (_, fut), reply in zip(batch, replies, strict=True):
                if not fut.done():
                    fut.set_result(reply)

    async def submit(self, prompt: Prompt) -> Reply:
        loop = asyncio.get_running_loop()
        # A new event loop (each asyncio.run) needs its own queue and worker.
        if self._queue is None or self._worker is None or self._worker.get_loop() is not loop:
            self._queue = asyncio.Queue()
            self._worker = loop.create_task(self._serve())
        fut: asyncio.Future[Reply] = loop.create_future()
        await self._queue.put((prompt, fut))
        return await fut
