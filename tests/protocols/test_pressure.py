"""The misleading cue: what it states, where it exists, and that the default plan is untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paraudit.items.dataset import load_dataset
from paraudit.protocols import paper_prompts as pp
from paraudit.protocols.instances import CUES, PROBES, PROTOCOLS, j_instance
from paraudit.protocols.parts import TextPart
from paraudit.protocols.pressure import can_mislead, misleading_cue, misleading_value
from paraudit.runner.plan import PlanSpec, plan_instances
from tests.conftest import make_dataset
from tests.dimensions.plugins import install_plugin


def test_the_cue_states_the_other_branchs_value_worded_like_the_hard_cue(
    tiny_dataset: Path,
) -> None:
    ds = load_dataset(tiny_dataset)
    item = next(i for i in ds.items if i.id == "st-1")  # branch 0 angry, branch 1 sad
    assert misleading_value(item, 0) == "sad" and misleading_value(item, 1) == "angry"
    for branch, other in ((0, "sad"), (1, "angry")):
        inst = j_instance(ds, item, "pointwise", "misleading", "ab", branch)
        head = inst.prompt[0]
        assert isinstance(head, TextPart)
        cue = f"The user sounds *{other}*; focus on that when making your decision.\n"
        assert misleading_cue(item, branch) == cue
        # The paper's J template with only its cue slot filled differently.
        assert head.text == pp.fill(pp.SINGLE_J_POINTWISE, cue=cue)
        assert inst.question.cue_value == other
        # The gold stays the audio's branch: following the cue is the wrong answer.
        assert inst.gold == ("R1" if branch == 0 else "R2")
    hard = j_instance(ds, item, "pointwise", "hard", "ab", 0)
    assert hard.question.cue_value is None


def test_only_pointwise_j_of_items_that_can_state_the_value(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    positional = next(i for i in ds.items if i.id == "pos-1")
    assert not can_mislead(positional)  # its branches change value within the conversation
    plan = PlanSpec(("J", "P", "O", "T"), PROTOCOLS, ("none", "misleading"))
    misled = [i for i in plan_instances(ds, plan) if i.cue == "misleading"]
    assert {(i.item_id, i.probe, i.protocol) for i in misled} == {("st-1", "J", "pointwise")}
    assert len(misled) == 4  # 2 branches × 2 response orders


def test_the_default_plan_asks_what_it_asked_before(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    assert CUES == ("none", "soft", "hard", "transition")
    before = plan_instances(ds, PlanSpec(PROBES, PROTOCOLS, CUES))
    with_cue = plan_instances(ds, PlanSpec(PROBES, PROTOCOLS, (*CUES, "misleading")))
    same = [i for i in with_cue if i.cue != "misleading"]
    assert [(i.instance_id, i.prompt) for i in same] == [(i.instance_id, i.prompt) for i in before]


# Emotion's values under another dimension's name, with its own misleading sentence.
PACE = """
import dataclasses
from paraudit.dimensions.emotion import EMOTION
PACE = dataclasses.replace(
    EMOTION,
    name="pacewords",
    questions=dataclasses.replace(
        EMOTION.questions, misleading="The speaker's delivery is *{value}*; decide by that.\\n"
    ),
)
"""


def test_another_dimension_states_the_value_in_its_own_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(tmp_path, monkeypatch, "pace_words", PACE, "pacewords = pace_words:PACE\n")
    root = tmp_path / "ds"
    make_dataset(root, tmp_path / "src")
    manifest = json.loads((root / "dataset.json").read_text())
    (root / "dataset.json").write_text(json.dumps({**manifest, "dimension": "pacewords"}))
    ds = load_dataset(root)
    plan = PlanSpec(("J",), ("pointwise",), ("misleading",))
    texts = {i.branch: i.prompt[0].text for i in plan_instances(ds, plan)}  # type: ignore[union-attr]
    assert "The speaker's delivery is *sad*; decide by that." in texts[0]
    assert "The speaker's delivery is *angry*; decide by that." in texts[1]
    assert "The user sounds" not in texts[0]
