"""The ties preset: one more answer on pointwise J, tie items asked only under it."""

from __future__ import annotations

from pathlib import Path

from paraudit.items.dataset import load_dataset
from paraudit.protocols import paper_prompts as pp
from paraudit.protocols.instances import CUES, PROBES, PROTOCOLS
from paraudit.protocols.parsing import parse_answer
from paraudit.protocols.parts import TextPart
from paraudit.protocols.ties import JSON_CHOICE_TIE, is_tie
from paraudit.runfolder.spec import RunSpec
from paraudit.runner.plan import PlanSpec, plan_instances
from tests.stats.pressure_sets import single_turn_set


def _head(inst: object) -> str:
    part = inst.prompt[0]  # type: ignore[attr-defined]
    assert isinstance(part, TextPart)
    return part.text


def test_the_ties_preset_changes_only_the_answer_format(tmp_path: Path) -> None:
    ds = load_dataset(single_turn_set(tmp_path / "ds", tmp_path / "src", n=2, ties=1))
    assert [is_tie(i) for i in ds.items] == [False, False, True]
    paper = plan_instances(ds, PlanSpec(("J",), ("pointwise",), ("none", "hard")))
    ties = plan_instances(ds, PlanSpec(("J",), ("pointwise",), ("none", "hard"), prompts="ties"))
    assert {i.item_id for i in paper} == {"st-00", "st-01"}  # the tie item needs the preset
    assert {i.item_id for i in ties} == {"st-00", "st-01", "tie-00"}
    for a, b in zip(paper, ties, strict=False):
        assert _head(b) == _head(a).replace(pp.JSON_CHOICE, JSON_CHOICE_TIE) != _head(a)
        assert b.prompt[1:] == a.prompt[1:] and b.gold == a.gold
        assert b.question.options == {"R1": "", "R2": "", "tie": "tie"}
    on_tie = [i for i in ties if i.item_id == "tie-00"]
    assert len(on_tie) == 8 and {i.gold for i in on_tie} == {"tie"}
    parsed = parse_answer(on_tie[0].question, '{"reasoning": "same", "pred": "tie"}')
    assert parsed.pred == "tie"


def test_the_paper_preset_and_its_run_spec_are_unchanged(tmp_path: Path) -> None:
    ds = load_dataset(single_turn_set(tmp_path / "ds", tmp_path / "src", n=2))
    default = plan_instances(ds, PlanSpec(PROBES, PROTOCOLS, CUES))
    assert all(JSON_CHOICE_TIE not in _head(i) for i in default)
    assert all("tie" not in i.question.options for i in default)
    spec = RunSpec("f" * 64, "x", ("builtin:random",), ("J",), ("pointwise",), ("none",),
                   "both", 0, None, 0)  # fmt: skip
    assert "prompts" not in spec.as_dict()  # run.json as it was written before presets
    assert RunSpec.from_dict(spec.as_dict()) == spec
    tied = RunSpec.from_dict({**spec.as_dict(), "prompts": "ties"})
    assert tied.as_dict()["prompts"] == "ties" and tied.differences(spec) == [
        "prompts: ties → paper"
    ]


def test_constrained_decoding_offers_the_tie_answer_too(tmp_path: Path) -> None:
    """`?constrain=labels` restricts a local model to the question's labels, so under the ties
    preset it may still abstain: nothing has to be refused."""
    from paraudit.judges.constrain import answer_strings

    ds = load_dataset(single_turn_set(tmp_path / "ds", tmp_path / "src", n=1, ties=1))
    plan = PlanSpec(("J",), ("pointwise",), ("none",), prompts="ties")
    (first, *_) = plan_instances(ds, plan)
    assert answer_strings(first.question) == ['{"pred": "R1"}', '{"pred": "R2"}', '{"pred": "tie"}']


def test_pairwise_j_offers_tie_in_place_of_a_matching(tmp_path: Path) -> None:
    from paraudit.judges.constrain import answer_strings
    from paraudit.protocols.ties import JSON_MATCHING_TIE

    ds = load_dataset(single_turn_set(tmp_path / "ds", tmp_path / "src", n=2, ties=1))
    paper = plan_instances(ds, PlanSpec(("J",), ("pairwise",), ("none",)))
    ties = plan_instances(ds, PlanSpec(("J",), ("pairwise",), ("none",), prompts="ties"))
    assert {i.item_id for i in paper} == {"st-00", "st-01"}
    assert {i.item_id for i in ties} == {"st-00", "st-01", "tie-00"}
    for a, b in zip(paper, ties, strict=False):
        assert _head(b) == _head(a).replace(pp.JSON_MATCHING, JSON_MATCHING_TIE) != _head(a)
        assert b.prompt[1:] == a.prompt[1:] and b.gold == a.gold
    on_tie = [i for i in ties if i.item_id == "tie-00"]
    assert on_tie and {i.gold for i in on_tie} == {"tie"}
    q = on_tie[0].question
    assert parse_answer(q, '{"reasoning": "same", "pred": "tie"}').pred == "tie"
    both = '{"reasoning": "x", "pred": {"CA": "R2", "CB": "R1"}}'
    assert parse_answer(q, both).pred == {"CA": "R2", "CB": "R1"}
    # "tie" is an answer in place of a matching, never a value inside one.
    half = parse_answer(q, '{"reasoning": "x", "pred": {"CA": "R1", "CB": "tie"}}')
    assert half.pred is None
    # ?constrain=labels keeps the abstention and offers only valid matchings.
    matchings = ['{"pred": {"CA": "R1", "CB": "R2"}}', '{"pred": {"CA": "R2", "CB": "R1"}}']
    assert answer_strings(q) == [*matchings, '{"pred": "tie"}']
    assert answer_strings(paper[0].question) == matchings


def test_multi_turn_pairwise_j_gets_the_tie_option_too() -> None:
    from paraudit.protocols.ties import with_tie_option

    head = pp.fill(pp.MULTI_J_PAIRWISE, cue="")
    tied = with_tie_option(head)
    assert tied != head and 'or the string "tie"' in tied
    assert tied.replace(', or the string "tie" if neither matching is more appropriate than '
                        "the other or you cannot tell", "") == head  # fmt: skip
