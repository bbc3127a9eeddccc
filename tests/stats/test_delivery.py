"""The audio-delivery check's rules, and the judges that must and must not trip it.

No-skill judges (random, always-first, text-only, the prosody scorer) report no usage: they
are "not checked", never flagged and never "delivered". builtin:drops-audio reports usage the
way a provider that dropped the audio would (audio_tokens 0): every call that sent audio is
flagged, and its verdict says so."""

from __future__ import annotations

import asyncio
import enum
from pathlib import Path
from typing import Any

import pytest

from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.delivery import (
    FEW_FRACTION,
    call_status,
    counted_audio,
    delivery_note,
    tally_rows,
)
from paraudit.stats.rowgroups import merge_runs, read_groups
from paraudit.stats.summary import summarize
from paraudit.stats.summary_model import Summary

PLAN = PlanSpec(probes=("J", "P", "O", "T"), protocols=("pointwise", "pairwise"), cues=("none",))
NO_SKILL = ["builtin:random", "builtin:first", "builtin:transcript", "builtin:prosody"]


def _openai(audio: int | None, seconds: float | None = 2.0) -> dict[str, Any]:
    details = {"cached_tokens": 0} if audio is None else {"audio_tokens": audio}
    u: dict[str, Any] = {"prompt_tokens": 50, "prompt_tokens_details": details}
    if seconds is not None:
        u["audio_sent_s"] = seconds
    return u


def test_each_providers_count_is_read_from_its_own_shape() -> None:
    c = counted_audio(_openai(20))
    assert c is not None and (c.source, c.counted, c.expected) == ("openai", 20, 20.0)
    modalities = [{"modality": "TEXT", "token_count": 9}, {"modality": "AUDIO", "token_count": 48}]
    gemini = {"audio_sent_s": 1.5, "prompt_tokens_details": modalities}
    c = counted_audio(gemini)
    assert c is not None and (c.source, c.counted, c.expected) == ("gemini", 48, 48.0)

    class Modality(enum.Enum):  # the SDK's enum, before the row was stored as JSON
        AUDIO = "AUDIO"

    c = counted_audio({"prompt_tokens_details": [{"modality": Modality.AUDIO, "token_count": 7}]})
    assert c is not None and c.counted == 7 and c.expected is None
    # A per-modality list without AUDIO: the provider counted none.
    c = counted_audio({"prompt_tokens_details": [{"modality": "TEXT", "token_count": 9}]})
    assert c is not None and c.counted == 0
    c = counted_audio({"audio_features": 300, "audio_features_expected": 310})
    assert c is not None and (c.source, c.counted, c.expected) == ("local", 300, 310)
    # No count at all: not checked (never "delivered").
    for usage in ({}, {"prompt_tokens": 5}, _openai(None), {"prompt_tokens_details": None}):
        assert counted_audio(usage) is None
        assert call_status(usage)[0] == "not checked"


def test_the_flag_rule() -> None:
    assert call_status(_openai(0))[0] == "none counted"
    assert call_status(_openai(20))[0] == "delivered"  # 2 s at 10 per second
    edge = FEW_FRACTION * 20
    assert call_status(_openai(int(edge)))[0] == "delivered"  # at the bound: not flagged
    assert call_status(_openai(int(edge) - 1))[0] == "too few"
    # Without a recorded duration only "none" can be told (runs stored before the check).
    assert call_status(_openai(1, seconds=None))[0] == "delivered"
    assert call_status(_openai(0, seconds=None))[0] == "none counted"
    assert call_status({"audio_features": 0, "audio_features_expected": 900})[0] == "none counted"
    local = [_row("t", {"audio_features": 0, "audio_features_expected": 900}),
             _row("t", {"audio_features": 300, "audio_features_expected": 300})]  # fmt: skip
    c = tally_rows(local).cells()[("j", "t")]
    assert c.text == "the processor produced no audio features for 1 of 2 calls"
    assert c.unit == "audio feature frames" and c.rate_per_s is None


def _row(task: str, usage: dict[str, Any], status: str = "ok", clips: int = 1) -> dict[str, Any]:
    return {"judge": "j", "task": task, "status": status, "usage": usage,
            "audio_sent_sha256": ["a" * 64] * clips}  # fmt: skip


def test_counts_only_answered_calls_that_sent_audio() -> None:
    rows = [_row("t", _openai(0)) for _ in range(3)] + [_row("t", _openai(20)) for _ in range(7)]
    rows += [_row("t", {}, status="error"), _row("t", _openai(0), clips=0), _row("t", {})]
    c = tally_rows(rows).cells()[("j", "t")]
    assert (c.calls_with_audio, c.checked, c.not_checked) == (11, 10, 1)
    assert (c.none_counted, c.too_few, c.flagged) == (3, 0, 3)
    assert c.text == (
        "the provider counted no audio for 3 of 11 calls; 1 call not checked (no audio count "
        "in their usage)"
    )
    assert delivery_note([c]) == "audio delivery: j not delivered in 3 of 11 calls"


def _run(ds: Path, out: Path, judges: list[str]) -> list[dict[str, Any]]:
    return asyncio.run(Runner(RunConfig(ds, judges, out, PLAN, concurrency=8)).run())


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    from tests.conftest import make_dataset

    tmp = tmp_path_factory.mktemp("delivery")
    make_dataset(tmp / "ds", tmp / "src", positional=True)
    out = tmp / "run"
    return out, _run(tmp / "ds", out, [*NO_SKILL, "builtin:drops-audio"])


def test_no_skill_judges_are_not_checked_and_drops_audio_is_flagged(
    runs: tuple[Path, list[dict[str, Any]]],
) -> None:
    out, rows = runs
    summary = Summary.of(summarize(rows, replicates=200))
    cells = {(c.judge, c.task): c for c in summary.delivery}
    sent = {(r["judge"], r["task"]) for r in rows if r["audio_sent_sha256"]}
    assert set(cells) == sent
    for (judge, _), c in cells.items():
        if judge == "builtin:drops-audio":
            assert c.flagged == c.none_counted == c.checked == c.calls_with_audio > 0
        else:  # no usage: neither delivered nor flagged
            assert c.not_checked == c.calls_with_audio > 0 and c.checked == c.flagged == 0
            assert c.text.startswith("not checked")
    for v in summary.verdicts:
        lost = [b for b in v.behaviours if b.kind == "audio not delivered"]
        assert bool(lost) is (v.judge == "builtin:drops-audio")
        if lost:
            n = cells[(v.judge, v.task)].flagged
            assert lost[0].text.startswith(f"audio not delivered in {n} calls (the provider")
            assert lost[0].evidence is not None and lost[0].evidence.rate == 1.0
            assert "Audio not delivered in" in v.headline
    # The report's path (stored rows, compact groups) finds the same cells as the rows do.
    groups = read_groups(out)
    assert groups.delivery.cells() == {(c.judge, c.task): c for c in summary.delivery}
    # drops-audio answers blind: both branches of an item get the same answer.
    j = [r for r in rows if r["judge"] == "builtin:drops-audio" and r["probe"] == "J"
         and r["protocol"] == "pointwise"]  # fmt: skip
    by_unit: dict[tuple[str, str, str], set[Any]] = {}
    for r in j:
        by_unit.setdefault((r["item_id"], r["cue"], r["order"]), set()).add(str(r["pred"]))
    assert by_unit and all(len(p) == 1 for p in by_unit.values())


def test_merged_runs_keep_each_runs_cells_apart(runs: tuple[Path, list[dict[str, Any]]]) -> None:
    out, _ = runs
    merged = merge_runs([("a", read_groups(out)), ("b", read_groups(out))])
    cells = merged.delivery.cells()
    one = read_groups(out).delivery.cells()
    for (judge, task), c in one.items():
        for label in ("a", "b"):
            mine = cells[(f"{judge} [{label}]", task)]
            assert (mine.calls_with_audio, mine.flagged) == (c.calls_with_audio, c.flagged)
    assert len(cells) == 2 * len(one)
