"""Harness options of the built-in judges: they shape how a call runs, never its answer."""

from __future__ import annotations

import asyncio
import time

from paraudit.judges.registry import load_judge
from paraudit.protocols.parts import TextPart


def test_burn_spends_cpu_and_leaves_answer_and_key_alone() -> None:
    prompt = (TextPart("R1: yes\nR2: no"),)
    plain, busy = load_judge("builtin:random"), load_judge("builtin:random?burn=0.2")
    assert busy.params() == plain.params()  # not part of the cache key
    cpu0 = time.process_time()
    reply = asyncio.run(busy.generate(prompt))
    assert time.process_time() - cpu0 >= 0.15  # computed, not slept
    assert reply == asyncio.run(plain.generate(prompt))
