"""`scaffold:` through the real runner: a Potemkin judge's 110 units move to 111, a
perception-bottlenecked judge's do not, and the report shows both side by side.

The wrapped judges are the known-behaviour judges (tests/stats/test_known_behaviour.py), which
answer every planned prompt by a fixed behaviour. The scaffold also asks them Staging prompts
built from their own P answers; this subclass answers those as a judge that maps the emotions
it is shown: right when they are the true ones, wrong when they are the flipped ones.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from paraudit.items.dataset import load_dataset
from paraudit.judges import registry
from paraudit.judges.base import FatalJudgeError, Judge, Reply
from paraudit.judges.scaffold import ScaffoldJudge, wrapped_spec
from paraudit.judges.spec import parse_judge_spec
from paraudit.protocols.instances import Instance
from paraudit.protocols.parts import Prompt
from paraudit.report.build import write_report
from paraudit.runner.plan import PlanSpec, iter_staging, p_labels, plan_instances
from paraudit.runner.run import RunConfig, Runner
from paraudit.specs import SpecError
from tests.stats.test_known_behaviour import PLAN, KnownJudge, _dataset, _key, _wrong

FULL = PlanSpec(("J", "P", "O", "S", "T"), PLAN.protocols, PLAN.cues)
JUDGES = ["known:potemkin", "scaffold:known:potemkin", "known:perception",
          "scaffold:known:perception"]  # fmt: skip


class StagedKnown(KnownJudge):
    """KnownJudge that also answers Staging prompts built from right or flipped P answers."""

    staged: ClassVar[dict[tuple[str, ...], tuple[Instance, bool]]] = {}

    @classmethod
    def build_staging(cls) -> None:
        ds = load_dataset(cls.dataset)
        preds: dict[bool, dict[tuple[str, int, str], tuple[str, ...]]] = {True: {}, False: {}}
        for inst in plan_instances(ds, PLAN):
            if inst.probe == "P" and inst.order == "ab" and inst.branch is not None:
                own = ds.item(inst.item_id).branches[inst.branch].emotions
                for right in (True, False):
                    pred = inst.gold if right else _wrong(inst.gold)
                    preds[right][(inst.item_id, inst.branch, inst.cue)] = p_labels(inst, pred, own)
        for right, p in preds.items():
            for s in iter_staging(ds, FULL, p):
                cls.staged[_key(s.prompt)] = (s, right)

    async def generate(self, prompt: Prompt, *, sample: int = 0, **_: Any) -> Reply:
        key = _key(prompt)
        if key not in self.staged:
            return await super().generate(prompt, sample=sample)
        inst, right = self.staged[key]
        # Both behaviours map what they are told (their O is right).
        pred = inst.gold if right else _wrong(inst.gold)
        return Reply(json.dumps({"reasoning": "staged", "pred": pred}))


class _EP:
    def load(self) -> type[Judge]:
        return StagedKnown


@pytest.fixture(scope="module")
def scaffold_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("scaffold")
    StagedKnown.dataset = _dataset(tmp / "ds", tmp / "clips")
    StagedKnown.build_staging()
    mp = pytest.MonkeyPatch()
    mp.setattr(registry, "_third_party", lambda: {"known": _EP()})
    try:
        cfg = RunConfig(StagedKnown.dataset, JUDGES, tmp / "run", FULL, concurrency=16)
        rows = asyncio.run(Runner(cfg).run())
    finally:
        mp.undo()
    return tmp / "run", rows


@pytest.fixture(scope="module")
def side(scaffold_run: tuple[Path, list[dict[str, Any]]], tmp_path_factory: pytest.TempPathFactory
         ) -> tuple[dict[tuple[str, str], dict[str, Any]], str]:  # fmt: skip
    out = tmp_path_factory.mktemp("scaffold-report")
    write_report([scaffold_run[0]], out, replicates=500)
    records = json.loads((out / "scaffold.json").read_text())
    by = {(r["judge"], r["task"]): r for r in records}
    return by, (out / "report.html").read_text()


def test_potemkin_units_move_from_110_to_111(side: Any) -> None:
    by, _ = side
    for task in ("single-turn-emotions", "positional-emotion"):
        r = by[("known:potemkin", task)]
        m = r["movement"]
        assert m["units"] > 0 and r["states"][0]["110"] == 1.0
        assert m["rate"] >= 0.9 and m["low"] <= m["rate"] <= m["high"]
        assert all(v == 1.0 for v in r["j_accuracy"][1].values())


def test_a_perception_bottleneck_does_not_improve(side: Any) -> None:
    by, _ = side
    for task in ("single-turn-emotions", "positional-emotion"):
        r = by[("known:perception", task)]
        assert r["movement"]["units"] == 0 and r["movement"]["rate"] is None  # no 110 units
        assert r["states"][0]["010"] == 1.0 and r["states"][1]["111"] == 0.0
        for cue, acc in r["j_accuracy"][1].items():
            assert acc <= r["j_accuracy"][0][cue] + 1e-9


def test_the_report_shows_both_with_calls_per_answer(side: Any) -> None:
    by, html = side
    assert "Mitigation: judge and scaffold side by side" in html
    assert "scaffold:known:potemkin" in html and "scaffold:known:perception" in html
    calls = by[("known:potemkin", "single-turn-emotions")]["calls_per_answer"]
    # P once per (item, branch, cue) and reused by the other order and by pairwise; S always.
    assert calls[0] == 1.0 and 1.0 < calls[1] < 3.0


def test_the_scaffold_is_a_judge_of_its_own(scaffold_run: Any) -> None:
    _, rows = scaffold_run
    by_judge: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_judge.setdefault(r["judge"], []).append(r)
    assert set(by_judge) == set(JUDGES)
    base, scaf = by_judge["known:potemkin"], by_judge["scaffold:known:potemkin"]
    assert not {r["key"] for r in base} & {r["key"] for r in scaf}
    # Every probe audits it; P, O and T pass through to the wrapped judge unchanged.
    assert {r["probe"] for r in scaf} == {"J", "P", "O", "S", "T"}
    same = {(r["item_id"], r["probe"], r["protocol"], r["cue"], r["order"], r["branch"],
             r["context_order"]): r["pred"] for r in base if r["probe"] != "J"}  # fmt: skip
    for r in scaf:
        if r["probe"] != "J":
            k = (r["item_id"], r["probe"], r["protocol"], r["cue"], r["order"], r["branch"],
                 r["context_order"])  # fmt: skip
            assert same[k] == r["pred"]
    j = [r for r in scaf if r["probe"] == "J"]
    assert all(r["usage"]["scaffold"]["perceived"] for r in j)
    assert all(len(r["usage"]["wrapped"]) == r["usage"]["scaffold"]["calls"] for r in j)
    assert all(r["status"] == "ok" and r["correct"] for r in j)


def test_spec_wraps_any_judge_spec_and_checks_its_options() -> None:
    s = parse_judge_spec("scaffold:builtin:random?seed=3")
    assert (s.backend, s.model, s.label) == ("scaffold", "builtin:random", s.text)
    with pytest.raises(SpecError, match="no option 'sed'"):
        parse_judge_spec("scaffold:builtin:random?sed=3")
    judge = registry.load_judge("scaffold:builtin:random?seed=3")
    assert isinstance(judge, ScaffoldJudge) and judge.inner.label == "builtin:random?seed=3"
    assert judge.state()["wrapped"] == judge.inner.state()


def test_the_api_key_variable_reaches_the_wrapped_hosted_judge() -> None:
    s = parse_judge_spec("scaffold:openai:gpt-audio").with_key_env("MY_KEY")
    assert s.key_env == "MY_KEY" and s.label == "scaffold:openai:gpt-audio"
    assert wrapped_spec(s).key_env == "MY_KEY"
    assert wrapped_spec(parse_judge_spec("scaffold:openai:m?key_env=OWN")).key_env == "OWN"
    assert parse_judge_spec("scaffold:builtin:random").with_key_env("K").key_env is None


def test_without_the_dataset_it_says_so(tmp_path: Path) -> None:
    judge = registry.load_judge("scaffold:builtin:random")
    ds = load_dataset(_dataset(tmp_path / "ds", tmp_path / "clips"))
    j = next(i for i in plan_instances(ds, PLAN) if i.probe == "J")
    with pytest.raises(FatalJudgeError, match="needs the dataset"):
        asyncio.run(judge.generate(j.prompt, question=j.question))


class _Mute(Judge):
    """Answers nothing readable (model 'mute') or refuses everything (model 'refuse')."""

    async def generate(self, prompt: Prompt, *, sample: int = 0, **_: Any) -> Reply:
        if self.judge_spec.model == "refuse":
            return Reply("", refused="safety block")
        return Reply("I cannot tell.")


class _MuteEP:
    def load(self) -> type[Judge]:
        return _Mute


@pytest.mark.parametrize(("model", "status"), [("mute", "unparsed"), ("refuse", "refused")])
def test_an_unreadable_or_refused_step_is_the_scaffolds_own_outcome(
    tiny_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str, status: str
) -> None:
    monkeypatch.setattr(registry, "_third_party", lambda: {"mute": _MuteEP()})
    plan = PlanSpec(("J",), ("pointwise",), ("none",))
    cfg = RunConfig(tiny_dataset, [f"scaffold:mute:{model}"], tmp_path / "r", plan)
    rows = asyncio.run(Runner(cfg).run())
    assert rows and {r["status"] for r in rows} == {status}
    for r in rows:
        if status == "unparsed":
            assert r["usage"]["scaffold"]["unparsed"] == f"P (branch {r['branch']})"
            assert "R1" not in r["raw"] and "R2" not in r["raw"]
        else:
            assert r["reason"] == f"scaffold P (branch {r['branch']}): safety block"
