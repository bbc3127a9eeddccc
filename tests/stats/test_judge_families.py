"""Issue 27's judge families in the simulated judge model (stats/judge_model.py): the rows each
writes do what its field says, and the verdict of each (tests/stats/test_judge_model.py runs
them all through summarize) rests on those rows; the marks a verdict carries."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from paraudit.stats.judge_model import (
    FALLBACK,
    REQUESTED,
    TYPES,
    JudgeModel,
    audit_attributes,
    audit_rows,
    item_facts,
    judged_right,
    verdict_marks,
)
from paraudit.stats.statrow import StatRow

ST, POS = "single-turn-emotions", "positional-emotion"


def _accuracy(rows: list[StatRow], key: object) -> dict[object, float]:
    tally: dict[object, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        k = key(r)  # type: ignore[operator]
        if k is not None:
            tally[k][0] += r.correct
            tally[k][1] += 1
    return {k: a / n for k, (a, n) in tally.items()}


def _j(r: StatRow) -> bool:
    return r.probe == "J" and r.protocol == "pointwise"


def test_attributes_come_from_the_item_index_alone() -> None:
    attrs = audit_attributes(8, ST)
    assert attrs == audit_attributes(8, ST)  # never the audit's random stream
    a = attrs[(ST, "i0")]
    assert set(a.item) == {"contrast", "voice", "turns"} and a.item["turns"] == "1"
    assert {a.branches[0]["label"], a.branches[1]["label"]} == set(
        str(a.item["contrast"]).split("/")
    )
    pos = audit_attributes(8, POS)[(POS, "i3")]
    early, late = pos.branches
    assert early["shift turn"] == "human turn 2" and late["shift turn"] == "human turn 3"
    assert 0 < float(early["shift time"]) < float(late["shift time"]) < float(late["duration"])
    contrasts = {attrs[(ST, f"i{i}")].item["contrast"] for i in range(8)}
    assert len(contrasts) == 4


def test_subgroup_specialists_answer_by_their_items() -> None:
    rng = np.random.default_rng(0)
    facts = {f"i{i}": item_facts(i, ST) for i in range(200)}
    rows = audit_rows(JudgeModel("c", only_contrast="angry/sad"), 200, rng)
    by = _accuracy(rows, lambda r: "/".join(sorted(facts[r.item_id].pair)) if _j(r) else None)
    assert by["angry/sad"] == 1.0
    assert all(0.4 < v < 0.6 for k, v in by.items() if k != "angry/sad")
    rows = audit_rows(JudgeModel("m", misheard="angry"), 200, rng)
    label = _accuracy(rows, lambda r: facts[r.item_id].pair[r.branch] if _j(r) else None)
    assert label["angry"] == 0.0 and all(v == 1.0 for k, v in label.items() if k != "angry")
    rows = audit_rows(JudgeModel("p", prior=0.5), 200, rng)
    label = _accuracy(rows, lambda r: facts[r.item_id].pair[r.branch] if _j(r) else None)
    # The calmer of the two offered is always right; the other, half the time (the prior).
    assert label["neutral"] == label["sad"] == 1.0 and 0.4 < label["angry"] < 0.6


def test_a_time_limited_listener_misses_late_shifts() -> None:
    rng = np.random.default_rng(1)
    attrs = audit_attributes(200, POS)
    rows = audit_rows(JudgeModel("l", listens_s=8.0), 200, rng, task=POS)

    def late(r: StatRow) -> bool | None:
        if not _j(r) or r.branch is None:
            return None
        return float(attrs[(POS, r.item_id)].branches[r.branch]["shift time"]) >= 8

    by = _accuracy(rows, late)
    assert by[False] == 1.0 and 0.4 < by[True] < 0.6


def test_a_routed_provider_names_its_models_per_row() -> None:
    rows = audit_rows(JudgeModel("openai:gpt-4o", routed=0.3, fallback=0.0), 60,
                      np.random.default_rng(2))  # fmt: skip
    scored = [r for r in rows if r.probe != "T"]
    served = [r.served_call for r in scored]
    assert all(s is not None for s in served)
    routed = [r for r in scored if r.served_call and r.served_call[0] == FALLBACK]
    assert 0.25 < len(routed) / len(scored) < 0.35 and not any(r.correct for r in routed)
    assert all(r.correct for r in scored if r.served_call and r.served_call[0] == REQUESTED)
    assert {r.served_call[2] for r in scored if r.item_id == "i7" and r.served_call} == {7}


@pytest.mark.parametrize(("fixed", "expected"), [(False, 0.32), (True, 0.0)])
def test_reasked_rows_keep_the_first_answer(fixed: bool, expected: float) -> None:
    model = JudgeModel("r", noise=0.2, reask=0.5, fixed_errors=fixed)
    rows = audit_rows(model, 150, np.random.default_rng(3))
    twice = [r for r in rows if r.reask is not None]
    assert all(r.protocol == "pointwise" and r.probe != "T" for r in twice)
    pointwise = [r for r in rows if r.protocol == "pointwise" and r.probe != "T"]
    assert 0.45 < len(twice) / len(pointwise) < 0.55
    differ = sum(r.reask[0] for r in twice if r.reask) / len(twice)
    assert differ == pytest.approx(expected, abs=0.04)
    for r in twice:  # the row is the first ask: its hit is one of the two draws' hits
        assert r.draw_hits is not None and r.agreement is not None
        assert r.agreement == (2 - r.reask[0], 2) if r.reask else False
        assert r.draw_hits[0] >= int(r.correct) and r.draw_hits[0] - r.correct <= 1
    sampled = audit_rows(JudgeModel("s", noise=0.2, samples=5, fixed_errors=fixed), 20,
                         np.random.default_rng(4))  # fmt: skip
    pairs = [r.reask for r in sampled if r.probe != "T"]
    assert all(p is not None and p[1] == 10 for p in pairs)
    assert (sum(p[0] for p in pairs if p) == 0) == fixed


def test_marks_and_what_counts_as_right() -> None:
    jt = TYPES["refuses 30 %"]
    verdict = {
        "diagnosis": "usable, no systematic failure mode",
        "behaviours": [{"kind": "answers not given"}],
        "components": [{"inverted": []}],
    }
    assert verdict_marks(verdict) == {"answers not given"}
    assert judged_right(jt, verdict) == (True, True, True)
    verdict["behaviours"] = [{"kind": "fails in a subgroup"}]
    assert judged_right(jt, verdict) == (True, False, False)  # missed one, a false alarm
    verdict = {"diagnosis": "reliable", "behaviours": [], "components": [{"inverted": ["P"]}]}
    assert verdict_marks(verdict) == {"P inverted"}
    assert judged_right(TYPES["inverted P convention"], verdict) == (True, True, True)
    assert judged_right(TYPES["perfect"], verdict) == (True, True, False)
