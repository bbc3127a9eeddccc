"""The sequential stopping rule over simulated judges (stats/judge_model.py)."""

from __future__ import annotations

import numpy as np

from paraudit.stats.judge_model import TYPES, JudgeModel, audit_rows
from paraudit.stats.sequential import FAILED, Bounds, item_scores, native_cue
from paraudit.stats.sequential_rule import decisions, open_steps, replay
from paraudit.stats.summary import summarize

ORDER = [f"i{i}" for i in range(189)]


def _replay(name: str, seed: int = 0, items: int = 189):  # type: ignore[no-untyped-def]
    model, task = TYPES[name].model, TYPES[name].task
    rows = audit_rows(model, items, np.random.default_rng(seed), task=task)
    return rows, replay(rows, ORDER[:items])


def test_a_perfect_judge_stops_at_the_minimum_sample_reliable() -> None:
    rows, r = _replay("perfect")
    assert r.items == 30 and r.settled["native"] == 30
    assert r.last is not None and r.last.decisions["native"] == "reliable"
    assert len(r.rows) < len(rows) / 5
    assert all(s.items == 30 for s in r.stops.values())


def test_a_random_judge_stops_early_at_chance_with_its_full_verdict() -> None:
    rows, r = _replay("random", seed=1)
    assert r.items < 189 and r.last is not None
    assert r.last.decisions["native"] == "at chance" and not r.last.needed
    full = summarize(rows, replicates=200, permutations=100)["verdicts"][0]["diagnosis"]
    seq = summarize(r.rows, replicates=200, permutations=100)["verdicts"][0]["diagnosis"]
    assert full == seq == "at chance"


def test_a_judge_at_the_reliable_bar_is_asked_until_the_plan_cannot_call_it_reliable() -> None:
    """78 % per answer: neither sequence settles it at 189 items, but once even a perfect rest
    of the plan could not lift the full plan's lower bound to 80 %, the full plan's verdict is
    "usable" whatever is left (curtailment), and native stops there with that verdict."""
    rows, r = _replay("just under the bar")
    assert r.last is not None and r.last.decisions["native"] == "usable"
    assert 30 < r.settled["native"] < 189
    full = summarize(rows, replicates=200, permutations=100)["verdicts"][0]
    assert full["native"]["outcome"] == "usable"
    # Without the plan's size there is no curtailment: the same bounds leave native open.
    j = Bounds(0.70, 0.86, 150, 0.72, 0.84, mean=0.78, se=0.02)
    assert decisions({"J|pointwise|none": j}, "none", [])["native"] is None
    assert decisions({"J|pointwise|none": j}, "none", [], planned=160)["native"] == "usable"
    assert decisions({"J|pointwise|none": j}, "none", [], planned=2000)["native"] is None


def test_no_curtailment_while_an_item_has_a_failed_native_call() -> None:
    """The report pools native J over answers; an item with failed calls weighs less there
    than in the rule's mean of item means. Hard items (J 40 %) that lose half their calls
    drag the rule's mean below the report's pooled J: curtailed on that mean, the rule said
    "usable" where the full plan says "reliable" (a review found 4 diagnoses of 15 changed)."""
    order = ORDER[:120]
    model = JudgeModel("deaf P", p=0.5)  # once native settles, nothing else is read
    reliable = 0
    for a in range(6):
        rng = np.random.default_rng(500 + a)
        hard = {i for i in order if rng.random() < 0.3}
        rows = []
        for r in audit_rows(model, 120, rng, task="single-turn-emotions"):
            if (r.probe, r.protocol, r.cue) == ("J", "pointwise", "none"):
                if r.item_id in hard and rng.random() < 0.5:
                    r = r._replace(status="error", pred=None, correct=False)
                else:
                    r = r._replace(
                        correct=bool(rng.random() < (0.4 if r.item_id in hard else 0.95))
                    )
            rows.append(r)
        full = summarize(rows, replicates=500, permutations=20)["verdicts"][0]["native"]
        if full["outcome"] == "reliable":
            reliable += 1
            r = replay(rows, order)
            assert r.last is not None and r.last.decisions["native"] != "usable"
    assert reliable >= 3
    j = Bounds(0.70, 0.86, 150, 0.72, 0.84, mean=0.78, se=0.02)
    one = Bounds(1.0, 1.0, 150, 1.0, 1.0, mean=1.0)  # one item so far with a failed call
    b = {"J|pointwise|none": j, FAILED: one}
    assert decisions(b, "none", [], planned=160)["native"] is None


def test_tie_rows_are_left_out_as_the_report_leaves_them_out() -> None:
    """A tie (`--prompts ties`) has no right answer: the report's figures skip its rows, so
    the rule's statistics must too (a judge missing ties would otherwise look worse to the
    rule than in the report, and could be curtailed "usable" where the report says reliable)."""
    rows = audit_rows(TYPES["perfect"].model, 40, np.random.default_rng(0))
    ties = [r._replace(gold="tie", pred="R1", correct=False) for r in rows if r.probe == "J"]
    order = ORDER[:40]
    with_ties = item_scores(rows + ties, "none", order).scores
    assert with_ties == item_scores(rows, "none", order).scores


def _normal_low(x: np.ndarray) -> float:
    return float(x.mean() - 1.96 * x.std(ddof=1) / np.sqrt(len(x)))


def _bounds_of(x: np.ndarray) -> Bounds:
    se = float(x.std(ddof=1) / np.sqrt(len(x)))
    return Bounds(0.0, 1.0, len(x), mean=float(x.mean()), se=se)


def test_best_low_is_never_beaten_by_any_way_of_answering_the_rest() -> None:
    """The curtailment's bound: over item scores seen (coins, items of four answers, items
    nearly all alike) and many completions (all right, all at the mean, random, a few
    wrong), no completion's fixed-sample lower bound exceeds `best_low`, and the all-right
    completion meets it whenever the scores vary."""
    rng = np.random.default_rng(3)
    seen = [
        rng.binomial(1, 0.8, 60).astype(float),
        rng.binomial(4, 0.78, 100) / 4,
        np.full(40, 0.75) + rng.choice([0.0, 0.25], 40, p=[0.95, 0.05]),
        np.full(30, 0.75),
        rng.binomial(2, 0.9, 120) / 2,
    ]
    for x in seen:
        for left in (0, 5, 40, 150):
            best = _bounds_of(x).best_low(left)
            assert best is not None
            rests = [np.ones(left), np.full(left, x.mean()), np.full(left, 0.75)]
            rests += [rng.binomial(4, p, left) / 4 for p in (0.7, 0.9, 0.97) for _ in range(20)]
            rests += [np.where(rng.random(left) < 0.03, 0.75, 1.0) for _ in range(20)]
            lows = [_normal_low(np.concatenate([x, rest])) for rest in rests]
            assert max(lows) <= best + 1e-9
            if x.std() > 0:
                assert abs(_normal_low(np.concatenate([x, np.ones(left)])) - best) < 1e-9


def test_curtailment_agrees_with_the_full_plan_reports_interval() -> None:
    """Wherever the rule settles native "usable" by curtailment, the report's own item-bootstrap
    lower bound over the full plan stays below 80 % even when every item left is answered
    right: the full plan could not have said "reliable"."""
    settled = 0
    for seed in range(6):
        rows, r = _replay("just under the bar", seed=seed, items=120)
        if r.last is None or r.settled.get("native", 120) >= 120:
            continue
        asked = set(ORDER[: r.settled["native"]])
        best = [
            row
            if row.item_id in asked
            or (row.probe, row.protocol, row.cue) != ("J", "pointwise", "none")
            else row._replace(pred=row.gold, correct=True)
            for row in rows
        ]
        native = summarize(best, replicates=400, permutations=20)["verdicts"][0]["native"]
        assert native["evidence"]["J"]["ci_low"] < 0.8
        settled += 1
    assert settled >= 3


def test_cells_no_step_reads_stop_at_the_minimum_sample() -> None:
    _, r = _replay("noise 20 %")
    # P and O under the hard cue decide nothing in the diagnosis: asked on 30 items only.
    assert r.stops[("P", "pointwise", "hard")].items == 30
    assert "reads it" in r.stops[("P", "pointwise", "hard")].why


def test_a_usable_judge_whose_components_work_keeps_them_for_the_dependence_test() -> None:
    d = {"native": "usable", "P": "above", "O": "above"}
    assert open_steps({**_settled(), **d}) == {"dependence"}
    assert open_steps({**_settled(), **d, "O": "at"}) == set()


def _settled() -> dict[str, str | None]:
    steps = ("recoverable", "cue", "position", "order", "audio", "jt", "turns")
    return {"native": None, "P": None, "O": None} | dict.fromkeys(steps, "no")


def test_an_unsettled_native_reads_every_path() -> None:
    need = open_steps(_settled() | {"recoverable": None})
    assert {"native", "recoverable", "components"} <= need


def test_a_behaviour_settled_present_ends_the_path() -> None:
    d = _settled() | {"native": "at chance", "position": "yes", "order": None}
    assert open_steps(d) == set()  # position comes before order in the diagnosis


def test_decisions_at_the_bars() -> None:
    def b(lo: float, hi: float) -> Bounds:
        return Bounds(lo, hi, 50, lo, hi)

    d = decisions({"J|pointwise|none": b(0.82, 0.99)}, "none", [])
    assert d["native"] == "reliable"
    d = decisions({"J|pointwise|none": b(0.6, 0.79)}, "none", [])
    assert d["native"] == "usable"
    d = decisions({"J|pointwise|none": b(0.4, 0.6)}, "none", [])
    assert d["native"] == "at chance"
    d = decisions({"J|pointwise|none": b(0.45, 0.7)}, "none", [])
    assert d["native"] is None  # a skill of 15 points is not ruled out yet
    assert native_cue(["hard", "none", "misleading"]) == "none"


def test_a_weak_skill_outside_the_margin_is_not_stopped_as_at_chance() -> None:
    # 70 % per answer (20 points above chance, beyond the 15-point margin): never "at chance".
    rows = audit_rows(JudgeModel("weak", p=0.7, o=0.7, j=0.7), 189, np.random.default_rng(4))
    r = replay(rows, ORDER)
    assert r.last is not None and r.last.decisions["native"] != "at chance"


def test_a_step_near_its_bar_keeps_drawing_while_the_report_would_claim_it() -> None:
    """ "At chance" and "no" wait while the report's fixed-sample interval over the same items
    would still claim the effect (the summary of a stopped cell must not contradict the
    rule): a coin's O at 56 % over tight items is not stopped, at 56 % over loose ones it is."""
    tight = Bounds(0.40, 0.62, 50, 0.40, 0.62, mean=0.56, se=0.02)  # 99 %: 50.8 %, above ½
    loose = Bounds(0.40, 0.62, 50, 0.40, 0.62, mean=0.56, se=0.04)
    j = Bounds(0.4, 0.6, 50, 0.4, 0.6, mean=0.5, se=0.03)
    assert decisions({"J|pointwise|none": j, "O|pointwise|none": tight}, "none", [])["O"] is None
    assert decisions({"J|pointwise|none": j, "O|pointwise|none": loose}, "none", [])["O"] == "at"
    # a cue whose J and gain the report would call above: not "no" yet, however futile
    cued = Bounds(0.45, 0.62, 80, 0.47, 0.60, mean=0.57, se=0.02)
    gain = Bounds(-0.05, 0.2, 80, -0.02, 0.14, mean=0.08, se=0.03)
    b = {"J|pointwise|none": j, "J|pointwise|hard": cued, "cue|hard": gain}
    assert decisions(b, "none", ["hard"])["cue"] is None
    b["cue|hard"] = Bounds(-0.05, 0.2, 80, -0.02, 0.14, mean=0.03, se=0.03)
    assert decisions(b, "none", ["hard"])["cue"] == "no"


def test_j_stays_asked_while_the_components_are_read() -> None:
    """A judge settled usable before its P and O are: the pattern reads J beside them and the
    dependence step after them needs all three on the same items, so J's cell stays open
    (closed at the minimum sample, P and O had no units for the dependence step)."""
    from paraudit.stats.sequential_rule import look

    def b(lo: float, hi: float) -> Bounds:
        return Bounds(lo, hi, 40, lo, hi, mean=(lo + hi) / 2, se=0.05)

    cells = [("J", "pointwise", "none"), ("P", "pointwise", "none"), ("O", "pointwise", "none")]
    bounds = {"J|pointwise|none": b(0.6, 0.75), "P|pointwise|none": b(0.45, 0.8),
              "O|pointwise|none": b(0.45, 0.8)}  # fmt: skip
    lk = look(bounds, "none", cells, 40, set(cells))
    assert lk.decisions["native"] == "usable" and lk.decisions["P"] is None
    assert lk.open_cells == set(cells)
