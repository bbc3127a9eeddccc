from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from paraudit.protocols.instances import CUES, PROBES, PROTOCOLS
from paraudit.report.build import write_report
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner

JUDGES = ["builtin:random", "builtin:first", "builtin:transcript", "builtin:prosody"]


@pytest.fixture(scope="session")
def small_run(starter_small: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run") / "run"
    plan = PlanSpec(probes=PROBES, protocols=PROTOCOLS, cues=CUES)
    asyncio.run(Runner(RunConfig(starter_small, JUDGES, out, plan, concurrency=16)).run())
    return out


@pytest.fixture(scope="session")
def small_report(small_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    write_report([small_run], out, replicates=2000)
    return out
