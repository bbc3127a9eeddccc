"""Built-in judges answer from the structured question, never from the prompt's wording."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

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
