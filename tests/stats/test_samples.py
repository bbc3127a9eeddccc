"""Self-consistency of sampled rows: agreement with the majority, unanimity, item intervals."""

from __future__ import annotations

import asyncio
import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest

from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.judge_model import JudgeModel, audit_rows
from paraudit.stats.rowgroups import read_groups
from paraudit.stats.samples import self_consistency
from paraudit.stats.statrow import draw_agreement
from paraudit.stats.summary import summarize_groups
from paraudit.stats.summary_model import Summary
from tests.stats.synthetic import Row, row

PLAN = PlanSpec(probes=("J", "P"), protocols=("pointwise", "pairwise"), cues=("none",))


def _draws(preds: list[str | None]) -> list[dict[str, str | None]]:
    return [{"pred": p, "status": "ok" if p else "unparsed"} for p in preds]


def _row(item: str, preds: list[str | None]) -> Row:
    return row(judge="j", task="t", probe="J", item=item)._replace(
        agreement=draw_agreement(_draws(preds))
    )


def test_agreement_counts_answered_draws_only() -> None:
    assert draw_agreement(_draws(["R1", "R1", "R2", None])) == (2, 3)
    assert draw_agreement(_draws([None, None])) is None
    assert draw_agreement(None) is None
    # A row nobody sampled has no agreement and no record.
    assert self_consistency([row(judge="j", task="t", probe="J", item="a")]) == []


def test_self_consistency_by_hand() -> None:
    rows = [
        _row("a", ["R1"] * 5),
        _row("a", ["R1", "R1", "R1", "R2", "R2"]),
        _row("b", ["R2", "R1", "R2", "R2", "R2"]),
    ]
    [s] = self_consistency(rows, replicates=500)
    assert s["agreement"]["rate"] == pytest.approx((1 + 0.6 + 0.8) / 3)
    assert s["unanimous"] == pytest.approx(1 / 3) and (s["questions"], s["items"]) == (3, 2)
    # Both items agree 0.8 on average (a: 1.0 and 0.6; b: 0.8), so every resample of whole
    # items gives 0.8: the interval is that point.
    assert s["agreement"]["ci_low"] == pytest.approx(0.8)
    assert s["agreement"]["ci_high"] == pytest.approx(0.8)
    rows.append(_row("c", ["R1", "R2"]))
    [s] = self_consistency(rows, replicates=500)
    assert s["agreement"]["ci_low"] < s["agreement"]["rate"] < s["agreement"]["ci_high"]


def _by_hand(results: Path) -> dict[tuple[str, str, str], tuple[int, int, float, float]]:
    """(judge, task, probe) → (questions, items, mean agreement, unanimous share), straight
    from the draws results.jsonl stores (an independent recount of what the statistics carry)."""
    shares: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    items: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for line in results.read_text().splitlines():
        r = json.loads(line)
        preds = [json.dumps(d["pred"]) for d in r.get("samples", []) if d["status"] == "ok"]
        if preds:
            key = (r["judge"], r["task"], r["probe"])
            shares[key].append(max(Counter(preds).values()) / len(preds))
            items[key].add(r["item_id"])
    return {k: (len(v), len(items[k]), sum(v) / len(v), sum(x == 1 for x in v) / len(v))
            for k, v in shares.items()}  # fmt: skip


def test_a_real_run_sampled_5_times_reaches_the_summary(tiny_dataset: Path, tmp_path: Path) -> None:
    """Through the runner: each sampled judge gets a record per probe, equal to a recount of
    the stored draws; a judge that was not sampled gets none. Self-consistency is not skill:
    the always-R1 judge agrees with itself every time, the coin about 69 % of its 5 draws."""
    specs = ["builtin:random?samples=5&seed=1", "builtin:first?samples=5", "builtin:random"]
    out = tmp_path / "r"
    asyncio.run(Runner(RunConfig(tiny_dataset, specs, out, PLAN)).run())
    groups = read_groups(out)
    summary = Summary.of(summarize_groups(((g.judge, g.task, g) for g in groups), replicates=500))
    want = _by_hand(out / "results.jsonl")
    got = {(s.judge, s.task, s.probe): s for s in summary.self_consistency}
    tasks = {g.task for g in groups}
    assert (
        set(got)
        == set(want)
        == {
            (j, t, p)
            for j in ("builtin:random?seed=1", "builtin:first")
            for t in tasks
            for p in ("J", "P")
        }
    )
    for key, (questions, n_items, agreement, unanimous) in want.items():
        s = got[key]
        assert (s.questions, s.items) == (questions, n_items)
        assert s.agreement.rate == pytest.approx(agreement)
        assert s.unanimous == pytest.approx(unanimous)
        assert s.agreement.ci_low is not None and s.agreement.ci_high is not None
        assert s.agreement.ci_low <= s.agreement.rate <= s.agreement.ci_high
    for _, task, probe in want:
        first = got[("builtin:first", task, probe)]
        assert first.agreement.rate == 1.0 and first.unanimous == 1.0
    coin = [s for (j, _, _), s in got.items() if j == "builtin:random?seed=1"]
    pooled = sum(s.agreement.rate * s.questions for s in coin) / sum(s.questions for s in coin)
    assert 0.55 < pooled < 0.85 and all(s.unanimous < 1 for s in coin)


def test_simulated_judges_self_consistency_is_not_skill() -> None:
    """The rule: agreement with the majority measures repeatability only. The always-R1 judge
    (no skill) is 100 % and unanimous; a coin on two answers agrees with its majority of 5 on
    E[max(k, 5 − k)] / 5 = 0.6875 (interval covers it); a perfect judge is 100 % too; a judge
    that is never sampled gets no record."""
    rng = np.random.default_rng(7)
    rows = audit_rows(JudgeModel("first", first=True, samples=5), 150, rng)
    rows += audit_rows(JudgeModel("coin", p=0.5, o=0.5, j=0.5, samples=5), 150, rng)
    rows += audit_rows(JudgeModel("perfect", samples=5), 150, rng)
    rows += audit_rows(JudgeModel("unsampled", p=0.5, o=0.5, j=0.5), 150, rng)
    got = {(s["judge"], s["probe"]): s for s in self_consistency(rows, replicates=2000)}
    assert {j for j, _ in got} == {"first", "coin", "perfect"}
    for probe in ("J", "P", "O"):
        for judge in ("first", "perfect"):
            s = got[(judge, probe)]
            assert s["agreement"]["rate"] == 1.0 and s["unanimous"] == 1.0
        a = got[("coin", probe)]["agreement"]
        assert a["ci_low"] < 0.6875 < a["ci_high"] and a["ci_high"] - a["ci_low"] < 0.05
        assert got[("coin", probe)]["unanimous"] == pytest.approx(2 / 32, abs=0.03)
