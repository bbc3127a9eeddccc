"""Harness options of the built-in judges: they shape how a call runs, never its answer."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from paraudit.items.dataset import load_dataset
from paraudit.judges.registry import load_judge
from paraudit.runner.plan import PlanSpec, plan_instances


def test_burn_spends_cpu_and_leaves_answer_and_key_alone(tiny_dataset: Path) -> None:
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))
    inst = plan_instances(load_dataset(tiny_dataset), plan)[0]
    plain, busy = load_judge("builtin:random"), load_judge("builtin:random?burn=0.2")
    assert busy.identity() == plain.identity()  # not part of the cache key
    cpu0 = time.process_time()
    reply = asyncio.run(busy.generate(inst.prompt, question=inst.question))
    assert time.process_time() - cpu0 >= 0.15  # computed, not slept
    assert reply == asyncio.run(plain.generate(inst.prompt, question=inst.question))
