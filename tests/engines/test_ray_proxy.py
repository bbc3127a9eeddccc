"""The Ray proxy on its own (no cluster): the real judge's identity, taken as built, and the
engine's side of runner.engine.Engine."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from paraudit.engines.ray_engine import RayEngine, RayJudge
from paraudit.items.dataset import load_dataset
from paraudit.judges import base
from paraudit.judges.registry import load_judge
from paraudit.runfolder import CallStore
from paraudit.runner.asking import BulkSettings, Progress
from paraudit.runner.calls import RetryPolicy
from paraudit.runner.engine import Phase
from paraudit.runner.plan import PlanSpec, iter_instances


def test_the_proxy_takes_the_judges_identity_without_parsing_its_spec_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    inner = load_judge("builtin:random?seed=5&delay=0")
    inner.notes.append("a note from the judge")
    parsed: list[str] = []
    real = base.parse_judge_spec
    monkeypatch.setattr(base, "parse_judge_spec", lambda s: parsed.append(s) or real(s))
    proxy = RayJudge(inner, RayEngine())
    assert parsed == []  # Judge.__init__ was not run again
    assert proxy.judge_spec is inner.judge_spec and proxy.label == inner.label
    assert proxy.identity() == inner.identity() and proxy.capabilities == inner.capabilities
    assert proxy.reads_question == inner.reads_question
    assert proxy.notes == ["a note from the judge"]


def test_the_engine_answers_ahead_only_for_its_own_proxies(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    engine = RayEngine()
    ds = load_dataset(tiny_dataset)
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))
    store = CallStore(tmp_path / "calls.sqlite")
    settings = BulkSettings(2, RetryPolicy(), 0)
    try:
        got = asyncio.run(
            engine.answer_ahead(
                load_judge("builtin:first"),
                Phase(ds, iter_instances(ds, plan), store, settings, Progress()),
            )
        )
    finally:
        store.close()
    assert got is None  # a judge it did not make: the runner asks it itself
