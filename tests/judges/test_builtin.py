"""Built-in judges answer from the structured question, never from the prompt's wording."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paraudit.items.dataset import load_dataset
from paraudit.judges.base import FatalJudgeError
from paraudit.judges.registry import load_judge
from paraudit.protocols.instances import Instance
from paraudit.protocols.parsing import parse_answer
from paraudit.protocols.parts import TextPart
from paraudit.runner.plan import PlanSpec, plan_instances

PLAN = PlanSpec(
    probes=("J", "P", "O", "T"),
    protocols=("pointwise", "pairwise"),
    cues=("none", "transition"),
)
JUDGES = ("builtin:random", "builtin:first", "builtin:transcript", "builtin:prosody")


def _reworded(inst: Instance) -> Instance:
    """The same question with every text part rewritten (a new template, new clip captions)."""
    prompt = tuple(
        TextPart(f"[part {k}] " + p.text[::-1]) if isinstance(p, TextPart) else p
        for k, p in enumerate(inst.prompt)
    )
    return replace(inst, prompt=prompt)


def _ask(spec: str, insts: list[Instance], ds_root: Path) -> list[str]:
    judge = load_judge(spec)
    judge.calibrate(load_dataset(ds_root))

    async def go() -> list[str]:
        return [(await judge.generate(i.prompt, sample=0, question=i.question)).text for i in insts]

    return asyncio.run(go())


@pytest.mark.parametrize("spec", JUDGES)
def test_rewording_the_prompt_changes_no_answer(spec: str, tiny_dataset: Path) -> None:
    insts = plan_instances(load_dataset(tiny_dataset), PLAN)
    plain = _ask(spec, insts, tiny_dataset)
    if spec != "builtin:random":  # random hashes the prompt bytes for its coin, by design
        assert _ask(spec, [_reworded(i) for i in insts], tiny_dataset) == plain
    for inst, raw in zip(insts, plain, strict=True):
        assert parse_answer(inst.question, raw).pred is not None, (inst.instance_id, raw)


def test_first_judge_answers_the_first_offered_label(tiny_dataset: Path) -> None:
    insts = plan_instances(load_dataset(tiny_dataset), PLAN)
    for inst, raw in zip(insts, _ask("builtin:first", insts, tiny_dataset), strict=True):
        pred = json.loads(raw)["pred"]
        if inst.answer == "turns":
            assert pred == dict.fromkeys(inst.question.human_keys, "E1")
        elif inst.answer == "matching":
            assert pred == {"CA": "R1", "CB": "R2"}
        else:
            assert pred == "R1"


def test_builtins_refuse_a_call_without_the_question(tiny_dataset: Path) -> None:
    judge = load_judge("builtin:first")
    assert judge.reads_question
    inst = plan_instances(load_dataset(tiny_dataset), PLAN)[0]
    with pytest.raises(FatalJudgeError, match="structured question"):
        asyncio.run(judge.generate(inst.prompt))


def test_transcript_judge_breaks_j_ties_by_item_not_by_position(tmp_path: Path) -> None:
    """The words-only judge hears no J clip: its pick is one position per item (hashed from the
    item's words), the same for both renderings and both response orders — deaf and order-blind
    — but not the same position for every item, so no cell reads as position-biased."""
    from tests.annotate.conftest import make_many

    make_many(tmp_path / "ds", tmp_path / "tones", 40)
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))
    insts = plan_instances(load_dataset(tmp_path / "ds"), plan)
    picks: dict[str, set[str]] = {}
    for inst, raw in zip(insts, _ask("builtin:transcript", insts, tmp_path / "ds"), strict=True):
        picks.setdefault(inst.item_id, set()).add(json.loads(raw)["pred"])
    assert len(picks) == 40 and all(len(p) == 1 for p in picks.values()), picks
    first = sum(p == {"R1"} for p in picks.values()) / len(picks)
    assert 0.25 <= first <= 0.75, first  # 40 fair coins: outside this 1 time in 400


def test_prosody_judge_hears_joined_clips_as_it_hears_them_separately(tiny_dataset: Path) -> None:
    """`?clips=joined`: the prosody judge gets one joined clip and cuts the parts out again at
    the joining record's offsets; joining loses no sample it reads, so every answer is the
    separate judge's, each joined call records its joining, and no joined file is left."""
    insts = plan_instances(load_dataset(tiny_dataset), PLAN)
    joined = load_judge("builtin:prosody?clips=joined")
    assert joined.label == "builtin:prosody?clips=joined"
    joined.calibrate(load_dataset(tiny_dataset))

    async def go() -> list[Any]:
        return [await joined.generate(i.prompt, sample=0, question=i.question) for i in insts]

    replies = asyncio.run(go())
    assert [r.text for r in replies] == _ask("builtin:prosody", insts, tiny_dataset)
    many = [(i, r) for i, r in zip(insts, replies, strict=True) if len(i.question.clips) >= 2]
    assert many and all(r.usage["joined"]["clips"] == "joined" for _, r in many)
    for inst, r in many:
        info = r.usage["joined"]
        assert len(info["parts_s"]) == len(inst.question.clips)
        gaps = info["marker_gap_s"] * len(info["parts_s"]) + info["pause_s"] * (
            len(info["parts_s"]) - 1
        )
        want = sum(info["parts_s"]) + sum(info["markers_s"]) + gaps
        assert abs(info["joined_s"] - want) < 2 / info["sample_rate"] * len(info["parts_s"])
    assert all("joined" not in r.usage for i, r in zip(insts, replies, strict=True)
               if len(i.question.clips) < 2)  # fmt: skip
    left = joined._joined_dir  # type: ignore[attr-defined]
    assert left is not None and not any(Path(left.name).iterdir())


def test_prosody_judge_cuts_what_the_joined_clip_holds(
    tiny_dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cuts are measured afresh from the joined clip, not looked up by the original
    clip: a record that misplaces the parts changes what the judge hears."""
    from paraudit.judges.builtin import prosody

    insts = [
        i
        for i in plan_instances(load_dataset(tiny_dataset), PLAN)
        if i.probe == "J" and len(i.question.clips) >= 3
    ]
    judge = load_judge("builtin:prosody?clips=joined")
    judge.calibrate(load_dataset(tiny_dataset))
    parts, info = judge._unjoin(insts[0].prompt)  # type: ignore[attr-defined]
    assert info is not None and all(p.sha256.startswith("cut:") for p in parts)
    real = [judge._feature(p.path, p.sha256) for p in parts]  # type: ignore[attr-defined]
    original = [
        judge._feature(p.path, p.sha256)  # type: ignore[attr-defined]
        for p in insts[0].prompt
        if isinstance(p, prosody.AudioPart)
    ]
    assert all(np.allclose(a, b) for a, b in zip(real, original, strict=True))
    shifted = replace(info, marker_gap_s=info.marker_gap_s + 0.2)
    real_join = prosody.join_prompt
    monkeypatch.setattr(prosody, "join_prompt", lambda p, f=None: (real_join(p, f)[0], shifted))
    moved, _ = judge._unjoin(insts[0].prompt)  # type: ignore[attr-defined]
    assert [p.sha256 for p in moved] != [p.sha256 for p in parts]


def _count_measures(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The keys the prosody judges measure from now on (Praat features, no shared cache)."""
    from paraudit.judges.builtin import prosody

    monkeypatch.setattr(prosody, "_MEASURED", {})
    measured: list[str] = []
    real = prosody.ProsodyJudge._measure

    def counting(self: Any, x: np.ndarray, rate: int, sha: str) -> np.ndarray:
        measured.append(sha)
        return real(self, x, rate, sha)

    monkeypatch.setattr(prosody.ProsodyJudge, "_measure", counting)
    return measured


def test_a_joined_clip_sent_again_is_joined_cut_and_measured_once(
    tiny_dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan sends the same clips in the same order for every cue and response order: the
    second time they are not joined, read back or measured again, and the parts that come
    back sample for sample as sent take the sent clips' features (the separate judge's)."""
    from paraudit.judges import joining
    from paraudit.judges.builtin import prosody

    joining._join.cache_clear()
    measured = _count_measures(monkeypatch)
    insts = [
        i
        for i in plan_instances(load_dataset(tiny_dataset), PLAN)
        if i.probe == "J" and len(i.question.clips) >= 3
    ]
    prompt = insts[0].prompt
    other = tuple(TextPart(p.text + " (a cue)") if isinstance(p, TextPart) else p for p in prompt)
    judge = load_judge("builtin:prosody?clips=joined")
    judge.calibrate(load_dataset(tiny_dataset))
    calibrated = len(measured)
    first, info = judge._unjoin(prompt)  # type: ignore[attr-defined]
    again, info_again = judge._unjoin(other)  # type: ignore[attr-defined]
    assert info == info_again and first == again
    assert joining._join.cache_info().hits == 1 and joining._join.cache_info().misses == 1
    sent = [p for p in prompt if isinstance(p, prosody.AudioPart)]
    for cut, clip in zip(first, sent, strict=True):
        assert np.array_equal(
            judge._feature(cut.path, cut.sha256),  # type: ignore[attr-defined]
            judge._feature(clip.path, clip.sha256),  # type: ignore[attr-defined]
        )
    # Every part came back as sent: what calibration did not measure (the responses) is
    # measured once, under the sent clip's own key, never under a cut's.
    assert not any(k.startswith("cut:") for k in measured[calibrated:])
    assert len(set(measured)) == len(measured)


def test_prosody_judges_measure_each_clip_once_per_process(
    tiny_dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo audits builtin:prosody twice (clips separate and joined): the second judge's
    calibration reuses the first one's Praat features (content-addressed) instead of tracking
    every clip's pitch again, and answers the same."""

    measured = _count_measures(monkeypatch)
    first, second = load_judge("builtin:prosody"), load_judge("builtin:prosody?clips=joined")
    first.calibrate(load_dataset(tiny_dataset))
    once = len(measured)
    assert once > 0 and len(set(measured)) == once
    second.calibrate(load_dataset(tiny_dataset))
    assert len(measured) == once  # nothing measured again
    assert np.array_equal(first.mean, second.mean)  # type: ignore[attr-defined]
