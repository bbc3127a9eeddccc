"""Counterbalanced presentation: both context orders × both response orders, golds that follow."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from paraudit.items.dataset import Dataset, load_dataset
from paraudit.protocols.instances import Instance, j_instance, presentations, text_instance
from paraudit.protocols.parts import AudioPart, TextPart
from paraudit.protocols.questions import FORMS, shape_of
from paraudit.runner.plan import PlanSpec, plan_instances

ALL = PlanSpec(
    probes=("J", "P", "O", "T"),
    protocols=("pointwise", "pairwise"),
    cues=("none", "soft", "hard", "transition"),
)


def _clips(inst: Instance) -> dict[tuple[str, int | None], str]:
    """(role, turn) → audio file hash, read through the question's clip roles."""
    audio = [p for p in inst.prompt if isinstance(p, AudioPart)]
    assert len(audio) == len(inst.question.clips)
    return {(r.role, r.turn): a.sha256 for r, a in zip(inst.question.clips, audio, strict=True)}


def _stem(rel: str) -> str:
    return Path(rel).stem


def test_pairwise_j_runs_four_presentations_with_golds_that_follow_the_audio(
    tiny_dataset: Path,
) -> None:
    ds = load_dataset(tiny_dataset)
    insts = [i for i in plan_instances(ds, ALL) if i.probe == "J" and i.protocol == "pairwise"]
    per_cell = Counter((i.item_id, i.cue) for i in insts)
    assert set(per_cell.values()) == {4}
    assert {(i.context_order, i.order) for i in insts} == {
        ("ab", "ab"),
        ("ab", "ba"),
        ("ba", "ab"),
        ("ba", "ba"),
    }
    for inst in insts:
        item = ds.item(inst.item_id)
        clips = _clips(inst)
        assert isinstance(inst.gold, dict)
        b0, b1 = item.branches
        # A context turn whose clip tells the branches apart.
        tell = next(t for t in range(len(item.context)) if b0.audio[t] != b1.audio[t]) + 1
        for conv in ("CA", "CB"):
            heard = clips[(conv, tell)]
            branch = next(b for b in (0, 1) if _stem(item.branches[b].audio[tell - 1]) == heard)
            turns = sorted(t for (r, t) in clips if r == conv and t is not None)
            assert [clips[(conv, t)] for t in turns] == [
                _stem(a) for a in item.branches[branch].audio
            ]
            # The gold sends this conversation to the response clip of that same branch.
            gold_clip = clips[(inst.gold[conv], None)]
            assert gold_clip == _stem(item.branches[branch].response.audio)
            if conv == "CA":
                assert branch == (0 if inst.context_order == "ab" else 1)


def test_a_fixed_matching_habit_is_right_on_exactly_half(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    pair = [i for i in plan_instances(ds, ALL) if i.protocol == "pairwise"]
    assert pair
    for habit in ({"CA": "R1", "CB": "R2"}, {"CA": "R2", "CB": "R1"}):
        right = sum(i.gold == habit for i in pair)
        assert right * 2 == len(pair)


def test_orders_one_draws_one_presentation_per_question_stably(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    one = PlanSpec(probes=("J", "O"), protocols=("pairwise",), cues=ALL.cues, orders="one")
    a = plan_instances(ds, one)
    assert [i.instance_id for i in a] == [i.instance_id for i in plan_instances(ds, one)]
    assert len(Counter((i.item_id, i.probe, i.cue) for i in a)) == len(a)
    item = ds.items[0]
    drawn = Counter(
        tuple(presentations(item, "pairwise", "one", seed, "J|pairwise|none|None"))
        for seed in range(200)
    )
    assert len(drawn) == 4 and min(drawn.values()) > 20


def test_text_pairwise_shows_ca_as_the_branch_the_context_order_names(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    item = ds.item("st-1")
    for ctx, ca in (("ab", 0), ("ba", 1)):
        inst = text_instance(item, "O", "pairwise", "none", "ab", None, None, ctx)
        text = inst.prompt[0]
        assert isinstance(text, TextPart)
        ca_emotion = item.branches[ca].emotions[0]
        assert f"CA: transcript: {item.context[0].text} emotion: {ca_emotion}" in text.text
        ca_turn = next(t for t in inst.question.context if t.conversation == "CA")
        assert ca_turn.emotion == ca_emotion
        want = "R1" if ca == 0 else "R2"  # response order "ab": R1 is branch 0's response
        assert inst.gold == {"CA": want, "CB": "R2" if want == "R1" else "R1"}
        assert inst.question.options["R1"] == item.branches[0].response.text


def test_multi_turn_transcript_control_has_its_own_wording(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    t_multi = text_instance(ds.item("pos-1"), "T", "pointwise", "none", "ab", 0)
    t_single = text_instance(ds.item("st-1"), "T", "pointwise", "none", "ab", 0)
    multi_text, single_text = (i.prompt[0] for i in (t_multi, t_single))
    assert isinstance(multi_text, TextPart) and isinstance(single_text, TextPart)
    assert multi_text.text.startswith("You will be given a conversation between a human user")
    assert "C turn 3 (human): transcript: Order a taxi for six." in multi_text.text
    assert "emotion" not in multi_text.text.replace('("emotion")', "")
    assert single_text.text.startswith("You will be given a user input C")
    assert all(t.emotion is None for t in t_multi.question.context)


def test_every_planned_question_has_a_form_and_matching_answer_kind(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    for inst in plan_instances(ds, ALL):
        form = FORMS[(shape_of(inst.task), inst.probe, inst.protocol)]
        assert inst.answer == form.answer == inst.question.answer
        assert isinstance(inst.gold, dict) == (inst.answer != "choice")
        q = inst.question
        assert (q.task, q.probe, q.protocol, q.cue) == (
            inst.task,
            inst.probe,
            inst.protocol,
            inst.cue,
        )
        if inst.answer == "turns":
            assert isinstance(inst.gold, dict) and q.human_keys == tuple(inst.gold)
        assert "CA" not in q.options and set(q.labels) in ({"R1", "R2"}, {"E1", "E2"})


def test_instance_ids_are_unique(tiny_dataset: Path) -> None:
    ds: Dataset = load_dataset(tiny_dataset)
    ids = [i.instance_id for i in plan_instances(ds, ALL)]
    assert len(ids) == len(set(ids))
    j = j_instance(ds, ds.item("st-1"), "pairwise", "none", "ab", None, "ba")
    assert "ctx-ba" in j.instance_id
