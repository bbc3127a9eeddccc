"""The actor class on its own (no Ray): loading, calibration, clear failures."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from paraudit.engines.ray_worker import JudgeWorker
from paraudit.errors import ParauditError
from paraudit.items.dataset import load_dataset
from paraudit.judges.base import FatalJudgeError
from paraudit.judges.registry import load_judge
from paraudit.runner.plan import PlanSpec, plan_instances

PLAN = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))


def test_worker_answers_like_the_judge_itself(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    inst = plan_instances(ds, PLAN)[0]
    worker = JudgeWorker("builtin:prosody", tiny_dataset)
    assert asyncio.run(worker.ready()) == os.getpid()
    local = load_judge("builtin:prosody")
    local.calibrate(ds)
    mine = asyncio.run(worker.generate(inst.prompt, 0, inst.question))
    assert mine == asyncio.run(local.generate(inst.prompt, question=inst.question))


def test_unknown_judge_is_reported_by_ready_not_by_a_crash() -> None:
    worker = JudgeWorker("builtin:nope", None)
    with pytest.raises(ParauditError, match="unknown builtin judge 'nope'"):
        asyncio.run(worker.ready())


def test_dataset_missing_on_the_worker_is_a_clear_error(tiny_dataset: Path, tmp_path: Path) -> None:
    with pytest.raises(FatalJudgeError, match="cannot read the dataset at .*elsewhere"):
        asyncio.run(JudgeWorker("builtin:random", tmp_path / "elsewhere").ready())


def test_engine_options_and_a_missing_ray_are_one_clear_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from paraudit.engines.ray_engine import RayEngine, RayOptions
    from paraudit.errors import MissingExtraError

    with pytest.raises(ParauditError, match="--num-workers must be at least 1"):
        RayOptions(num_workers=0)
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    with pytest.raises(MissingExtraError, match=r"pip install 'paraudit\[ray\]'"), RayEngine():
        pass


def test_a_worker_keys_calls_by_its_folders_formula(tiny_dataset: Path) -> None:
    """Ray workers get the driver's JudgeSpec pickled; an older folder's formula travels with it
    (runner.keys), so a Ray resume finds the calls a local run stored there."""
    import pickle

    from paraudit.judges.spec import parse_judge_spec
    from paraudit.runner.calls import call_key
    from paraudit.runner.keys import PARAMS_KEYS

    s = parse_judge_spec("builtin:random?seed=1").with_call_keys(PARAMS_KEYS)
    worker = JudgeWorker(pickle.loads(pickle.dumps(s)), tiny_dataset)
    assert worker.judge is not None and worker.judge.judge_spec.call_keys == PARAMS_KEYS
    inst = plan_instances(load_dataset(tiny_dataset), PLAN)[0]
    here = call_key(load_judge(s), inst.prompt, 0)
    assert call_key(worker.judge, inst.prompt, 0) == here
    assert here != call_key(load_judge("builtin:random?seed=1"), inst.prompt, 0)
