"""summary.json against an independent recomputation from results.jsonl with plain loops."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest


def _results(run: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


def test_accuracy_rows(small_run: Path, small_report: Path) -> None:
    summary = json.loads((small_report / "summary.json").read_text())
    counts: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])  # type: ignore[type-arg]
    for r in _results(small_run):
        key = (r["judge"], r["task"], r["probe"], r["protocol"], r["cue"])
        counts[key][0] += 1 if r["correct"] else 0
        counts[key][1] += 1
    got = {
        (a["judge"], a["task"], a["probe"], a["protocol"], a["cue"]): a
        for a in summary["accuracy"]
        if a["cue"] != "all"
    }
    assert set(got) == set(counts)
    for key, (k, n) in counts.items():
        assert got[key]["n"] == n and got[key]["accuracy"] == pytest.approx(k / n)


def test_state_masses(small_run: Path, small_report: Path) -> None:
    summary = json.loads((small_report / "summary.json").read_text())
    res: dict[str, dict] = defaultdict(dict)  # type: ignore[type-arg]
    for r in _results(small_run):
        if r["protocol"] == "pointwise" and r["probe"] in "POJ":
            res[r["probe"]][
                (r["judge"], r["task"], r["item_id"], r["branch"], r["cue"], r["order"])
            ] = r["correct"]
    tally: dict[tuple, dict[str, int]] = defaultdict(lambda: defaultdict(int))  # type: ignore[type-arg]
    for key, j in res["J"].items():
        if key in res["P"] and key in res["O"]:
            state = f"{int(res['P'][key])}{int(res['O'][key])}{int(j)}"
            tally[(key[0], key[1], key[4])][state] += 1
    rows = {(s["judge"], s["task"], s["cue"]): s for s in summary["states"] if s["cue"] != "all"}
    assert set(rows) == set(tally)
    for key, t in tally.items():
        n = sum(t.values())
        assert rows[key]["n"] == n
        for state, c in t.items():
            assert rows[key]["masses"][state] == pytest.approx(c / n)


def test_protocol_gap_and_position_bias(small_run: Path, small_report: Path) -> None:
    summary = json.loads((small_report / "summary.json").read_text())
    rows = _results(small_run)
    for g in summary["protocol_gap"]:

        def acc(protocol: str, g: dict = g) -> float:  # type: ignore[type-arg]
            rs = [
                r
                for r in rows
                if r["judge"] == g["judge"]
                and r["task"] == g["task"]
                and r["cue"] == g["cue"]
                and r["probe"] == "J"
                and r["protocol"] == protocol
            ]
            return sum(r["correct"] for r in rs) / len(rs)

        assert g["delta"] == pytest.approx(acc("pairwise") - acc("pointwise"))
        assert g["ci_low"] <= g["delta"] + 1e-12 and g["delta"] <= g["ci_high"] + 1e-12
    for b in summary["behaviour"]:
        picks = [
            r["pred"]
            for r in rows
            if r["judge"] == b["judge"]
            and r["task"] == b["task"]
            and r["status"] == "ok"
            and r["pred"] in ("R1", "R2")
        ]
        assert b["position_bias"]["rate"] == pytest.approx(picks.count("R1") / len(picks))
    first = [b for b in summary["behaviour"] if b["judge"] == "builtin:first"]
    assert all(b["position_bias"]["rate"] == 1.0 for b in first)
    assert "Position-biased" in summary["verdicts"]["builtin:first"]
