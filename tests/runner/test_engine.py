"""The runner reaches judges only through the Engine on its configuration (runner.engine)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from paraudit.judges.base import Judge
from paraudit.judges.builtin.simple import FirstJudge
from paraudit.judges.spec import JudgeSpec
from paraudit.runfolder import CallRecord
from paraudit.runner.engine import LocalEngine, Phase
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner

PLAN = PlanSpec(probes=("J", "P", "S"), protocols=("pointwise",), cues=("none",), limit=2)


class Recording(LocalEngine):
    """The local engine, with a log of what the runner asked of it."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []
        self.phases: list[set[str]] = []

    def load_judge(self, spec: str | JudgeSpec) -> Judge:
        judge = super().load_judge(spec)
        self.log.append(("load", judge.label))
        return judge

    async def answer_ahead(self, judge: Judge, phase: Phase) -> dict[str, CallRecord] | None:
        self.log.append(("ahead", judge.label))
        self.phases.append({i.probe for i in phase.instances})
        return None

    async def release(self, judge: Judge) -> None:
        self.log.append(("release", judge.label))


def test_the_runner_loads_bulk_answers_and_releases_through_the_configured_engine(
    starter_small: Path, tmp_path: Path
) -> None:
    engine = Recording()
    cfg = RunConfig(
        starter_small, ["builtin:random", "builtin:first"], tmp_path / "r", PLAN, engine=engine
    )
    rows = asyncio.run(Runner(cfg).run())
    assert {r["probe"] for r in rows} == {"J", "P", "S"}
    per_judge = [
        ("load", "builtin:random"),
        ("load", "builtin:first"),
        ("ahead", "builtin:random"),
        ("ahead", "builtin:random"),
        ("release", "builtin:random"),
        ("ahead", "builtin:first"),
        ("ahead", "builtin:first"),
        ("release", "builtin:first"),
    ]
    assert engine.log == per_judge
    # Each judge's two phases: every question but Staging, then Staging.
    assert engine.phases == [{"J", "P"}, {"S"}] * 2


def test_a_rate_limited_judge_is_never_answered_in_bulk(
    starter_small: Path, tmp_path: Path
) -> None:
    engine = Recording()
    cfg = RunConfig(starter_small, ["builtin:random?rpm=60000"], tmp_path / "r", PLAN)
    cfg.engine = engine
    asyncio.run(Runner(cfg).run())
    assert [e for e, _ in engine.log] == ["load", "release"]


class WithHooks(FirstJudge):
    """A judge that happens to have methods named like the hooks an engine's proxy once had:
    the runner must not find and call them."""

    async def answer_ahead(self, *args: Any) -> dict[str, CallRecord]:
        raise AssertionError("the runner called a judge's own answer_ahead")

    async def aclose(self) -> None:
        raise AssertionError("the runner called a judge's own aclose")


class HookedEngine(LocalEngine):
    def load_judge(self, spec: str | JudgeSpec) -> Judge:
        inner = super().load_judge(spec)
        judge = WithHooks(inner.spec, inner.options)
        judge.judge_spec = inner.judge_spec
        return judge


def test_the_runner_does_not_probe_judges_for_engine_methods(
    starter_small: Path, tmp_path: Path
) -> None:
    cfg = RunConfig(starter_small, ["builtin:first"], tmp_path / "r", PLAN, engine=HookedEngine())
    rows = asyncio.run(Runner(cfg).run())
    assert rows and {r["status"] for r in rows} == {"ok"}
