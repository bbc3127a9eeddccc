"""summary.json of a real run (starter set, built-in judges) against an independent
recomputation from results.jsonl with plain loops."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest


def _results(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


def _summary(report: Path) -> dict[str, Any]:
    out: dict[str, Any] = json.loads((report / "summary.json").read_text())
    return out


def test_accuracy_rows(small_run: Path, small_report: Path) -> None:
    summary = _summary(small_report)
    counts: dict[tuple[Any, ...], list[int]] = defaultdict(lambda: [0, 0])
    items: dict[tuple[Any, ...], set[str]] = defaultdict(set)
    for r in _results(small_run):
        # T has no right answer; N (null audio) has its own section, no accuracy row
        if r["status"] == "error" or r["probe"] in ("T", "N"):
            continue
        key = (r["judge"], r["task"], r["probe"], r["protocol"], r["cue"])
        counts[key][0] += 1 if r["correct"] else 0
        counts[key][1] += 1
        items[key].add(r["item_id"])
    got = {
        (a["judge"], a["task"], a["probe"], a["protocol"], a["cue"]): a
        for a in summary["accuracy"]
        if a["cue"] != "all"
    }
    assert set(got) == set(counts)
    for key, (k, n) in counts.items():
        assert got[key]["n"] == n and got[key]["accuracy"] == pytest.approx(k / n)
        assert got[key]["items"] == len(items[key])
        assert got[key]["ci_low"] <= got[key]["accuracy"] <= got[key]["ci_high"]


def test_order_consistent_state_masses(small_run: Path, small_report: Path) -> None:
    summary = _summary(small_report)
    unit: dict[tuple[Any, ...], list[bool]] = defaultdict(list)
    for r in _results(small_run):
        if r["protocol"] == "pointwise" and r["probe"] in "POJ" and r["status"] != "error":
            key = (r["judge"], r["task"], r["item_id"], r["branch"], r["cue"])
            unit[(r["probe"], *key)].append(r["correct"])
    tally: dict[tuple[Any, ...], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for (probe, *key), js in unit.items():
        if probe == "J" and ("P", *key) in unit and ("O", *key) in unit:
            p, o = all(unit[("P", *key)]), all(unit[("O", *key)])
            tally[(key[0], key[1], key[4])][f"{int(p)}{int(o)}{int(all(js))}"] += 1
    rows = {(s["judge"], s["task"], s["cue"]): s for s in summary["states"] if s["cue"] != "all"}
    assert set(rows) == set(tally)
    for key, t in tally.items():
        n = sum(t.values())
        assert rows[key]["units"] == n
        for state, m in rows[key]["masses"].items():
            assert m["rate"] == pytest.approx(t.get(state, 0) / n)


def test_protocol_gap_position_bias_and_verdicts(small_run: Path, small_report: Path) -> None:
    summary = _summary(small_report)
    rows = _results(small_run)
    for g in summary["protocol_gap"]:

        def acc(protocol: str, g: dict[str, Any] = g) -> float:
            rs = [
                r
                for r in rows
                if (r["judge"], r["task"], r["probe"], r["protocol"])
                == (g["judge"], g["task"], "J", protocol)
                and (g["cue"] == "all" or r["cue"] == g["cue"])
            ]  # fmt: skip
            return sum(r["correct"] for r in rs) / len(rs)

        assert g["delta"] == pytest.approx(acc("pairwise") - acc("pointwise"))
        assert g["ci_low"] <= g["delta"] + 1e-12 and g["delta"] <= g["ci_high"] + 1e-12
    for p in summary["position_bias"]:
        picks = [
            r["pred"]
            for r in rows
            if (r["judge"], r["task"], r["probe"], r["protocol"], r["cue"])
            == (p["judge"], p["task"], p["probe"], p["protocol"], p["cue"])
            and r["status"] == "ok"
            and isinstance(r["pred"], str)
        ]
        if picks:
            assert p["rate"] == pytest.approx(sum(x in ("R1", "E1") for x in picks) / len(picks))
    first = [v for v in summary["verdicts"] if v["judge"] == "builtin:first"]
    assert first and all(v["kind"] == "at chance" for v in first)
    assert all(
        any(b["text"].startswith("position-biased towards the first") for b in v["behaviours"])
        for v in first
    )
    # No judge at chance gets a component diagnosis unless its components are above chance.
    for v in summary["verdicts"]:
        if v["kind"] == "at chance" and v["diagnosis"] in ("Potemkin", "perception bottleneck"):
            here = next(c for c in v["components"] if c["cue"] == v["native"]["cue"])
            assert here["above"]["O"]
