"""The analysis registry (stats/analyses.py): the summary, the verdict and the report iterate
over it, and the sections that existed before it keep their values byte for byte."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from paraudit.stats.analyses import ANALYSES
from paraudit.stats.summary import SECTIONS, summarize
from paraudit.stats.summary_model import Summary
from tests.stats.registry_rows import golden_delivery, golden_rows

GOLDEN = Path(__file__).parent / "data" / "summary_golden.json"
NEW = {"accounting", "strata", "reask", "served", "text_dominance", "ties", "conflict"}
"""Sections added since the golden summary was written."""


def _now() -> dict[str, Any]:
    raw = summarize(golden_rows(), replicates=200, seed=3, permutations=200,
                    delivery=golden_delivery())  # fmt: skip
    out: dict[str, Any] = json.loads(Summary.of(raw).to_json())
    return out


def _same(a: Any, b: Any) -> bool:
    """Equal, with floats equal to 1e-6 relative: the percentile bootstrap's ends move in the
    8th digit between numpy releases (2.4 against the golden's), which is not what this guards."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and type(a) is type(b)


DECIDED = ("decision_low", "decision_high", "versus")
"""Widened on few items since the golden was written (itemboot.expanded_level, tested in
test_itemboot.py), and added to the order gaps and turn positions, with the turn positions'
paired comparisons (`versus`, tested in test_summary.py): not what this guards."""


def _undecided(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _undecided(v) for k, v in x.items() if k not in DECIDED}
    if isinstance(x, list):
        return [_undecided(v) for v in x]
    return x


def _widened(now: Any, before: Any) -> int:
    """Every decision interval the golden holds is still there and holds the golden's (the
    same replicates read at a higher level); returns how many were compared."""
    if isinstance(before, dict) and isinstance(now, dict):
        n = 0
        if before.get("decision_low") is not None:
            assert now["decision_low"] <= before["decision_low"] + 1e-12, (now, before)
            assert now["decision_high"] >= before["decision_high"] - 1e-12, (now, before)
            n += 1
        return n + sum(_widened(now[k], v) for k, v in before.items() if k in now)
    if isinstance(before, list) and isinstance(now, list) and len(before) == len(now):
        return sum(_widened(a, b) for a, b in zip(now, before, strict=True))
    return 0


def test_old_sections_are_byte_identical_to_the_summary_before_the_registry() -> None:
    golden, raw = json.loads(GOLDEN.read_text()), _now()
    assert _widened({k: raw[k] for k in golden if k != "verdicts"}, golden) > 0
    before, now = _undecided(golden), _undecided(raw)
    assert set(now) - set(before) == NEW
    for key in before:
        if key in ("verdicts", "intervals"):
            continue
        assert _same(now[key], before[key]), key
    # The new unit's own intervals are the only ones added.
    given = [r.get("given_accuracy") or {} for r in now["accounting"]]
    added = sum(1 for g in given if g.get("ci_low") is not None)
    assert now["intervals"] == before["intervals"] + added


def test_every_registered_analysis_has_a_typed_section() -> None:
    names = [a.name for a in ANALYSES]
    assert len(set(names)) == len(names)
    for name in names:
        assert name in SECTIONS and name in Summary.model_fields, name


def test_verdicts_are_unchanged_where_no_new_rule_applies() -> None:
    """The golden rows refuse, fail and go unparsed about 5 % each (under the 10 % the
    accounting names): their verdicts read as before."""
    before = {(v["judge"], v["task"]): v for v in json.loads(GOLDEN.read_text())["verdicts"]}
    for v in _now()["verdicts"]:
        assert not any(b["kind"] == "answers not given" for b in v["behaviours"])
        old = before[(v["judge"], v["task"])]
        if old["diagnosis"] == "hears only some turns":
            # `mixed` has one skill at every turn; "hears only the middle human turn" (P 53 %,
            # 63 %, 52 %) was named from each position's own interval. Compared pair by pair
            # (verdicts._below), no turn is below another: the habit was noise.
            assert (v["diagnosis"], v["behaviours"]) == ("at chance", []), v["text"]
            continue
        assert (v["diagnosis"], v["behaviours"]) == (old["diagnosis"], old["behaviours"])
