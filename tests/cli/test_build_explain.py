"""`paraudit build` says what retries may cost before, and why QC dropped pairs after."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paraudit.builders.card import card_data
from paraudit.cli.build import _summary
from paraudit.qc.rules import Miss
from tests.builders.conftest import cli
from tests.builders.fakes import ChatServer, QuickVoicer, quick_build, write_emocf


@pytest.mark.parametrize(
    ("extra", "shown"),
    [
        ((), "308 (28 clips × 11)"),  # piper + scorer: 1 neutral + 10 tries per clip
        (("--max-tries", "4", "--tts", "openai:gpt-4o-mini-tts"), "196 (28 clips × 7)"),
        (("--qc", "direction"), "112 (28 clips × 4)"),  # 1 neutral + 3 strengths
    ],
)
def test_dry_run_states_the_most_renders_retries_may_cost(
    tmp_path: Path, extra: tuple[str, ...], shown: str
) -> None:
    code, out = cli(
        "build",
        "single-turn",
        "--source",
        str(write_emocf(tmp_path / "e.jsonl")),
        "--llm",
        "openai:gpt-4o",
        "--out",
        str(tmp_path / "ds"),
        "--dry-run",
        *extra,
    )
    assert code == 0, out
    assert "renders at most (retry policy)" in out and shown in out, out


class MostFail(QuickVoicer):
    """Every turn but one sentence's fails the end-slope rule."""

    def voice_all(self, jobs: Any, on_done: Any = None) -> Any:
        out = super().voice_all(jobs, on_done)
        keep = next(j.text for j in jobs if j.role == "human")
        for j, v in list(out.items()):
            if j.role == "human" and j.text != keep:
                miss = (Miss("end_slope", 2.5, "≥", 6.0, " st/s"),)
                out[j] = type(v)(None, False, 10, ("try 10: x",), {}, 0.0, miss)
        return out


def test_a_build_that_keeps_little_explains_its_qc_rejections(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "clips").mkdir()
    with ChatServer() as chat:
        r = quick_build(chat, tmp_path, MostFail(tmp_path / "clips"))
    capsys.readouterr()
    _summary(r, card_data(r))
    out = capsys.readouterr().out
    assert "only 1 of 5 composed pairs survived audio QC" in out, out
    assert "end_slope ≥ 6 st/s missed by" in out and "(measured 2.5 st/s)" in out
    assert "CARD.md" in out
