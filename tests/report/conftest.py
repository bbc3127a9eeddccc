from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
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


LONG_MODEL = "gpt-4o-audio-preview-2025-06-03-extended-context-experimental"
"""A real-looking judge name: with its endpoint (`openai:MODEL@http://127.0.0.1:PORT/v1`) it
squeezed the state figure's bars to ~38 px before labels were shortened."""


@pytest.fixture(scope="session")
def long_name_report(
    starter_small: Path, small_run: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The small run's four built-ins beside a judge with a long name, served by a loopback
    OpenAI-compatible server (it picks the first option), in one report."""
    pytest.importorskip("openai", reason="the 'openai' extra is not installed")
    from tests.judges.loopback import Loopback

    def make(folder: Path) -> None:
        plan = PlanSpec(probes=PROBES, protocols=PROTOCOLS, cues=CUES)
        with Loopback((LONG_MODEL,)) as lb:
            spec = f"openai:{LONG_MODEL}@{lb.url}/v1"
            cfg = RunConfig(starter_small, [spec], folder / "long", plan, concurrency=16)
            # In a thread of its own: the browser tests' Playwright holds this one's loop.
            with ThreadPoolExecutor(1) as pool:
                pool.submit(asyncio.run, Runner(cfg).run()).result()
        write_report([small_run, folder / "long"], folder / "report", replicates=500)

    return built_once(tmp_path_factory, "long-name-report", make) / "report"
