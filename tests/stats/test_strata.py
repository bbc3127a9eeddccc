"""The subgroup scan (stats/strata.py), validated by simulation over a parametrised judge
family: homogeneous judges (random, skilled, position-biased, noisy with item difficulty,
text-preferring deaf) get no subgroup named in ≥ 95 % of audits, and the issue's specialists
(perfect on one contrast and guessing elsewhere; every negative emotion heard as the calmest;
hears only the first 8 s) get theirs named, at the 189 items the verdict study uses."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from paraudit.stats.analysis import GroupContext, Record
from paraudit.stats.model import Behaviour
from paraudit.stats.statrow import StatRow
from paraudit.stats.strata import (
    STRATA,
    ItemAttributes,
    holm,
    item_attributes,
    read_attributes,
    split_test,
)
from tests.conftest import tone

PAIRS = [("angry", "sad"), ("happy", "sad"), ("angry", "neutral"), ("surprised", "neutral")]
CALM = {"neutral": 0, "sad": 1, "happy": 2, "surprised": 3, "angry": 4}
Judge = Callable[[np.random.Generator, dict[str, object]], bool]
"""(rng, the question) → right?"""


def synth(n: int, judge: Judge, seed: int) -> tuple[list[StatRow], dict[str, ItemAttributes]]:
    """One audit of `n` items: pointwise J, P, O under no cue, both branches and orders."""
    rng = np.random.default_rng(seed)
    rows: list[StatRow] = []
    attrs: dict[str, ItemAttributes] = {}
    for i in range(n):
        item = f"i{i}"
        pair = PAIRS[i % len(PAIRS)]
        if rng.random() < 0.5:
            pair = (pair[1], pair[0])
        shifts = rng.uniform(2, 14, 2)
        branches: tuple[dict[str, str | float], ...] = tuple(
            {"label": pair[b], "shift time": round(float(shifts[b]), 2),
             "duration": round(float(shifts[b] + rng.uniform(2, 5)), 2)}
            for b in (0, 1)
        )  # fmt: skip
        attrs[item] = ItemAttributes(
            {"contrast": "/".join(sorted(pair)), "voice": f"v{i % 2}", "turns": "5"},
            (branches[0], branches[1]),
        )
        ease = rng.uniform(-0.15, 0.15)
        pref = int(rng.integers(2))
        for probe in ("J", "P", "O"):
            for b in (0, 1):
                for order in ("ab", "ba"):
                    first = (b == 0) == (order == "ab")
                    gold = ("R" if probe != "P" else "E") + ("1" if first else "2")
                    q: dict[str, object] = {"probe": probe, "branch": b, "order": order,
                                            "ease": ease, "pref": pref, "first": first,
                                            "pair": pair, **branches[b]}  # fmt: skip
                    right = judge(rng, q)
                    wrong = gold[0] + ("2" if gold[1] == "1" else "1")
                    rows.append(StatRow("j", "t", item, b, probe, "pointwise", "none", order,
                                        gold if right else wrong, gold, "ok", right))  # fmt: skip
    return rows, attrs


def coin(rng: np.random.Generator) -> bool:
    return bool(rng.random() < 0.5)


HOMOGENEOUS: dict[str, Judge] = {
    "random": lambda rng, q: coin(rng),
    "skilled": lambda rng, q: bool(rng.random() < 0.92),
    "first": lambda rng, q: bool(q["first"]),
    "noisy": lambda rng, q: bool(rng.random() < 0.7 + float(q["ease"])),  # type: ignore[arg-type]
    "deaf": lambda rng, q: q["branch"] == q["pref"] if q["probe"] == "J" else q["probe"] == "O",
}


def _contrast(rng: np.random.Generator, q: dict[str, object]) -> bool:
    # Perfect on angry/sad, a coin on every other contrast (P and J alike).
    return set(q["pair"]) == {"angry", "sad"} or coin(rng)  # type: ignore[call-overload]


def _calmest(rng: np.random.Generator, q: dict[str, object]) -> bool:
    # Hears every negative emotion as the calmest option offered: angry is never heard.
    if q["probe"] == "O":
        return True
    pair = q["pair"]
    calm = min(pair, key=lambda e: CALM[e])  # type: ignore[call-overload]
    return q["label"] == calm if "angry" in pair else True  # type: ignore[operator]


def _first8(rng: np.random.Generator, q: dict[str, object]) -> bool:
    # Hears only the first 8 s: right on shifts before, a coin after.
    if q["probe"] == "O":
        return True
    return float(q["shift time"]) < 8 or coin(rng)  # type: ignore[arg-type]


def scan(
    rows: list[StatRow], attrs: dict[str, ItemAttributes], replicates: int = 50
) -> tuple[list[Record], list[Behaviour]]:
    tally = STRATA.start("j", "t")
    for r in rows:
        tally.add(r)
    ctx = GroupContext("j", "t", len(attrs), replicates, 0, attributes=attrs)
    records = tally.records(ctx)
    return records, STRATA.behaviours(records, ctx)


AUDITS = 100


@pytest.mark.parametrize("kind", sorted(HOMOGENEOUS))
def test_homogeneous_judges_get_no_subgroup_named(kind: str) -> None:
    alarms = 0
    for seed in range(AUDITS):
        rows, attrs = synth(189, HOMOGENEOUS[kind], seed)
        alarms += bool(scan(rows, attrs)[1])
    assert alarms / AUDITS <= 0.05, (kind, alarms)


@pytest.mark.parametrize(
    ("judge", "phrase"),
    [
        (_contrast, "succeeds only on the angry/sad contrast"),
        (_calmest, "fails when the user is angry: P recall 0 %"),
        (_first8, "misses shifts after 8 s"),
    ],
)
def test_specialists_are_named(judge: Judge, phrase: str) -> None:
    hits = 0
    runs = 20
    for seed in range(runs):
        rows, attrs = synth(189, judge, 1000 + seed)
        texts = [b.text for b in scan(rows, attrs)[1]]
        hits += any(phrase in t for t in texts)
    assert hits / runs >= 0.95, (phrase, hits, texts)


def test_the_named_stratum_carries_its_interval_and_confusion() -> None:
    rows, attrs = synth(189, _calmest, 7)
    records, found = scan(rows, attrs, replicates=500)
    angry = next(b for b in found if "angry" in b.text and b.probes == ["P"])
    assert angry.evidence is not None and angry.evidence.rate == 0.0
    assert angry.evidence.ci_high == 0.0  # never right: no resample is either
    conf = next(r for r in records if r["kind"] == "confusion")["confusion"]
    assert conf["angry"].get("angry", 0) == 0 and conf["angry"]["sad"] > 0
    assert conf["sad"].get("angry", 0) == 0  # the others are heard
    strata = [r for r in records if r["kind"] == "stratum" and r["attribute"] == "label"]
    assert {r["stratum"] for r in strata} == set(CALM)
    assert all(r["items"] >= 1 and "J" in r and "states" in r for r in strata)


def test_small_strata_are_shown_but_never_named() -> None:
    # 16 items: four per contrast, below MIN_ITEMS a side — the specialist is not named.
    rows, attrs = synth(16, _contrast, 3)
    records, found = scan(rows, attrs)
    assert not found
    splits = [r for r in records if r["kind"] == "split" and r["attribute"] == "contrast"]
    assert splits and not any(r["testable"] for r in splits)


def test_split_test_and_holm() -> None:
    # Side a on items 0-19, side b on items 20-39, ten answers each.
    zero, ten = np.zeros(20), np.full(20, 10.0)
    ka, na = np.r_[ten, zero], np.r_[ten, zero]
    d, z, p = split_test(ka, na, np.r_[zero, ten / 2], np.r_[zero, ten])
    # No spread within either side: the sandwich alone would call it certain (z = inf); the
    # null's pooled spread (items 10/10 against items 5/10) still makes it overwhelming.
    assert d == pytest.approx(0.5) and p < 1e-8 and z > 6
    d, z, p = split_test(ka, na, np.r_[zero, (np.arange(20) % 2) * 10.0], np.r_[zero, ten])
    assert d == pytest.approx(0.5) and 0 < p < 1e-3 and z > 3.3
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def test_attributes_are_read_from_the_dataset_a_run_recorded(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    (ds / "audio").mkdir(parents=True)
    names = []
    for k, secs in enumerate((2.0, 3.0, 1.5, 2.5, 4.0)):
        name = f"c{k}.wav"
        tone(ds / "audio" / name, 100.0 + k, seconds=secs)
        names.append("audio/" + name)
    ctx = [{"speaker": s, "text": f"t{k}"} for k, s in enumerate(["human", "assistant", "human"])]
    raw = {
        "id": "pos-1", "task": "positional-emotion", "context": ctx,
        "branches": [
            {"emotions": ["neutral", "neutral", "angry"], "audio": names[:3]},
            {"emotions": ["angry", "neutral", "angry"], "audio": [names[3], names[1], names[4]]},
        ],
        "meta": {"voices": {"human": "joe", "assistant": "amy"}, "generator": {"spec": "openai:x"}},
    }  # fmt: skip
    (ds / "items.jsonl").write_text(json.dumps(raw) + "\n")
    (ds / "dataset.json").write_text("{}")
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"dataset": str(ds)}))
    got = read_attributes([run, tmp_path / "missing"])[("positional-emotion", "pos-1")]
    assert got == item_attributes(raw, ds, {})
    assert got.item == {"turns": "3", "contrast": "angry/neutral", "voice": "joe",
                        "generator": "openai:x"}  # fmt: skip
    # Branch 0 shifts at the second human turn, after 2 + 3 s of audio; branch 1 never shifts
    # after its first turn (angry from the start), so it has no shift.
    assert got.branches[0] == {"label": "neutral", "duration": 6.5, "shift turn": "human turn 2",
                               "shift time": 5.0}  # fmt: skip
    assert got.branches[1] == {"label": "angry", "duration": 9.5}
