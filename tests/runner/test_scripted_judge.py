"""A scripted third-party judge (entry point) replays queued replies through the real runner."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from paraudit.errors import ParauditError
from paraudit.judges import registry
from paraudit.judges.base import Capabilities, Judge, Reply
from paraudit.protocols.parts import Prompt
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner

J_ONLY = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))


class Scripted(Judge):
    """Answers sample 0 with junk and later samples with a valid reply."""

    replies: list[str] = []
    calls: list[int] = []

    async def generate(self, prompt: Prompt, *, sample: int = 0) -> Reply:
        Scripted.calls.append(sample)
        return Reply(Scripted.replies[min(sample, len(Scripted.replies) - 1)])


class TextOnly(Scripted):
    capabilities = Capabilities(audio_in=False)


class _EP:
    def __init__(self, cls: type[Judge]) -> None:
        self.cls = cls

    def load(self) -> type[Judge]:
        return self.cls


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> type[Scripted]:
    eps: dict[str, Any] = {"scripted": _EP(Scripted), "textonly": _EP(TextOnly)}
    monkeypatch.setattr(registry, "_third_party", lambda: eps)
    Scripted.calls = []
    return Scripted


def _run(ds: Path, out: Path, judge: str, parse_retries: int) -> list[dict[str, Any]]:
    cfg = RunConfig(ds, [judge], out, J_ONLY, parse_retries=parse_retries)
    return asyncio.run(Runner(cfg).run())


def test_malformed_replies_become_unparsed_rows(
    starter_small: Path, tmp_path: Path, scripted: type[Scripted]
) -> None:
    scripted.replies = ["I cannot decide {not json", '{"pred": "R3"}']
    rows = _run(starter_small, tmp_path / "r", "scripted:v1", 0)
    assert {r["status"] for r in rows} == {"unparsed"}
    assert all(r["raw"] == "I cannot decide {not json" and r["reason"] for r in rows)
    assert not any(r["correct"] for r in rows)


def test_parse_retries_reask_and_are_recorded(
    starter_small: Path, tmp_path: Path, scripted: type[Scripted]
) -> None:
    scripted.replies = ["no idea", '{"reasoning": "x", "pred": "R1"}']
    rows = _run(starter_small, tmp_path / "r", "scripted:v1", 2)
    assert {r["status"] for r in rows} == {"ok"}
    assert {r["sample"] for r in rows} == {1}
    assert sorted(set(scripted.calls)) == [0, 1]


def test_text_only_judge_is_refused_audio_before_any_call(
    starter_small: Path, tmp_path: Path, scripted: type[Scripted]
) -> None:
    scripted.replies = ['{"pred": "R1"}']
    with pytest.raises(ParauditError, match="takes no audio"):
        _run(starter_small, tmp_path / "r", "textonly:v1", 0)
    assert scripted.calls == []
