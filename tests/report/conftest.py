from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from paraudit.protocols.instances import CUES, PROBES, PROTOCOLS
from paraudit.report.build import write_report
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from tests.conftest import built_once

JUDGES = ["builtin:random", "builtin:first", "builtin:transcript", "builtin:prosody"]


# Built once per test run and shared by the workers (tests/conftest.py): read-only for tests.
@pytest.fixture(scope="session")
def small_run(starter_small: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    def make(folder: Path) -> None:
        plan = PlanSpec(probes=PROBES, protocols=PROTOCOLS, cues=CUES)
        cfg = RunConfig(starter_small, JUDGES, folder / "run", plan, concurrency=16)
        asyncio.run(Runner(cfg).run())

    return built_once(tmp_path_factory, "small-run", make) / "run"


@pytest.fixture(scope="session")
def small_report(small_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    def make(folder: Path) -> None:
        write_report([small_run], folder, replicates=2000)

    return built_once(tmp_path_factory, "small-report", make)
