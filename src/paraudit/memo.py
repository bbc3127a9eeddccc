"""A thread-safe cache of loaded values, bounded by the bytes they hold (least recently used
first out). Used for the clips a judge sends (judges.payloads) and the renderings a Piper voice
has made (render.piper_voice)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedMemo(Generic[K, V]):
    """`load(key)` once per key while it stays among the most recently used, up to `budget`
    bytes (as `size` counts them; the newest value is kept even when it alone is larger).
    Loading runs outside the lock: two threads asking for one new key may both load it."""

    def __init__(self, load: Callable[[K], V], size: Callable[[V], int], budget: int) -> None:
        self.load, self.size, self.budget = load, size, budget
        self._held: OrderedDict[K, V] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.loads = 0
        """How many times a value was loaded (for tests: once per key while it fits)."""

    def get(self, key: K) -> V:
        with self._lock:
            got = self._held.get(key)
            if got is not None:
                self._held.move_to_end(key)
                return got
        got = self.load(key)
        with self._lock:
            self.loads += 1
            if key not in self._held:
                self._held[key] = got
                self._bytes += self.size(got)
            while self._bytes > self.budget and len(self._held) > 1:
                _, old = self._held.popitem(last=False)
                self._bytes -= self.size(old)
        return got

    def keys(self) -> list[K]:
        """The keys held, least recently used first."""
        with self._lock:
            return list(self._held)
