"""`run --sequential` through the real runner: built-in judges stop early with their usual
verdicts, the folder records why each cell stopped, and a resumed run asks no call twice."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from paraudit.runfolder import CALLS, RESULTS
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner, RunOutcome
from paraudit.runner.sequential import RECORD, SequentialSpec
from paraudit.stats.rowgroups import read_groups
from paraudit.stats.sequential import bounds, item_scores
from paraudit.stats.sequential_record import annotate
from paraudit.stats.sequential_rule import decisions
from paraudit.stats.summary import summarize
from tests.runner.sequential_sets import tone_set

ITEMS = 120
JUDGES = ["builtin:random", "builtin:first"]
PLAN = PlanSpec(("J", "P", "O", "T"), ("pointwise", "pairwise"), ("none", "hard"))


@pytest.fixture(scope="module")
def tones(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("tones")
    return tone_set(tmp / "ds", tmp / "src", ITEMS)


def _run(ds: Path, out: Path, judges: list[str], seq: bool, extend: bool = False) -> RunOutcome:
    cfg = RunConfig(ds, judges, out, PLAN, concurrency=16, extend=extend,
                    sequential=SequentialSpec() if seq else None)  # fmt: skip
    return asyncio.run(Runner(cfg).execute())


def _verdicts(out: Path) -> dict[str, dict[str, str]]:
    raw = summarize(list(read_groups(out).rows()), replicates=200, permutations=100)
    annotate(raw, [out])
    return {v["judge"]: v for v in raw["verdicts"]}


@pytest.fixture(scope="module")
def runs(tones: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("runs")
    _run(tones, tmp / "full", JUDGES, seq=False)
    _run(tones, tmp / "seq", JUDGES, seq=True)
    return tmp / "full", tmp / "seq"


def test_random_and_first_stop_early_with_their_usual_verdicts(runs: tuple[Path, Path]) -> None:
    full, seq = runs
    record = json.loads((seq / RECORD).read_text())
    assert record["rule"]["batch"] == SequentialSpec().batch
    want = {"builtin:random": "at chance", "builtin:first": "position-biased"}
    full_v, seq_v = _verdicts(full), _verdicts(seq)
    for judge, diagnosis in want.items():
        entry = record["judges"][judge]["single-turn-emotions"]
        assert entry["stopped_early"] and entry["items_asked"] < ITEMS
        assert entry["items_planned"] == ITEMS
        assert full_v[judge]["diagnosis"] == seq_v[judge]["diagnosis"] == diagnosis
        assert "stopped early after" in seq_v[judge]["headline"]
        assert f"{entry['items_asked']} of {ITEMS} items" in seq_v[judge]["text"]
        assert "Sequential" not in full_v[judge]["text"]
        # why and when each cell stopped; the last ones when every step was settled
        cells = entry["cells"].values()
        assert max(c["items"] for c in cells) == entry["items_asked"]
        assert all("settled" in c["why"] for c in cells if c["items"] == entry["items_asked"])
        hard = entry["cells"]["P|pointwise|hard"]  # read by no step: the minimum sample
        assert hard["items"] == SequentialSpec().min_items and "reads it" in hard["why"]
    asked = sum(1 for _ in (seq / RESULTS).open())
    assert asked < sum(1 for _ in (full / RESULTS).open()) / 2


def test_a_judge_near_the_bar_settles_native_once_the_plan_cannot_call_it_reliable(
    tmp_path: Path,
) -> None:
    """The prosody judge on tones where every third item's branches are a hertz apart: about
    77 % native J, at the reliable bar, where neither sequence settles in 120 items. The
    runner gives the rule the plan's size, so native settles "usable" as soon as even a
    perfect rest of the plan could not lift the full plan's lower bound to 80 % (curtailment),
    and the verdict is the full plan's."""
    ds = tone_set(tmp_path / "ds", tmp_path / "src", ITEMS, unclear=3)
    _run(ds, tmp_path / "full", ["builtin:prosody"], seq=False)
    _run(ds, tmp_path / "seq", ["builtin:prosody"], seq=True)
    entry = json.loads((tmp_path / "seq" / RECORD).read_text())["judges"]["builtin:prosody"]
    native = entry["single-turn-emotions"]["steps"]["native"]
    assert native["outcome"] == "usable" and native["items"] < ITEMS
    full_v = _verdicts(tmp_path / "full")["builtin:prosody"]
    seq_v = _verdicts(tmp_path / "seq")["builtin:prosody"]
    assert full_v["native"]["outcome"] == "usable"
    assert full_v["native"]["evidence"]["J"]["ci_high"] > 0.8  # the bar is inside its interval
    assert seq_v["diagnosis"] == full_v["diagnosis"]
    # Neither sequence settles native even on all 120 items: the stop was the curtailment's.
    rows = [r for r in read_groups(tmp_path / "full").rows() if r.judge == "builtin:prosody"]
    order = sorted({r.item_id for r in rows})
    b = bounds(item_scores(rows, "none", order))
    assert decisions(b, "none", ["hard"])["native"] is None
    assert decisions(b, "none", ["hard"], planned=ITEMS)["native"] == "usable"


def _stored_calls(out: Path) -> int:
    with sqlite3.connect(out / CALLS) as db:
        tables = [t for (t,) in db.execute("select name from sqlite_master where type='table'")]
        return int(
            db.execute(
                f"select count(*) from {'calls' if 'calls' in tables else tables[0]}"
            ).fetchone()[0]
        )


def test_a_resumed_sequential_run_asks_no_call_twice(tones: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = _run(tones, out, ["builtin:random"], seq=True)
    # T's two branches are one prompt (one call); every other row is a call of its own
    assert first.calls_made == _stored_calls(out) > first.rows * 0.9
    record = (out / RECORD).read_text()
    (out / RESULTS).unlink()  # as if the run died before it finished writing its rows
    again = _run(tones, out, ["builtin:random"], seq=True)
    assert again.calls_made == 0 and again.rows == first.rows
    assert (out / RECORD).read_text() == record  # the same looks, the same stops
    # --extend with another judge: the first judge's questions all come from the store
    grown = _run(tones, out, ["builtin:random", "builtin:first"], seq=True, extend=True)
    assert 0 < grown.calls_made == _stored_calls(out) - first.calls_made
    # the same folder without --sequential asks only the rest of the plan
    before = _stored_calls(out)
    rest = _run(tones, out, ["builtin:random", "builtin:first"], seq=False)
    assert rest.rows > grown.rows and rest.calls_made == _stored_calls(out) - before
    assert not (out / RECORD).exists()


def test_the_progress_total_ends_at_what_the_run_asked(tones: Path, tmp_path: Path) -> None:
    """The bar starts at the full plan (the worst case) and loses every question left
    unasked, so a run that stopped early ends with its total at the rows it wrote."""
    seen: list[tuple[int, int]] = []
    cfg = RunConfig(tones, ["builtin:first"], tmp_path / "run", PLAN, concurrency=16,
                    sequential=SequentialSpec())  # fmt: skip
    outcome = asyncio.run(Runner(cfg, lambda p: seen.append((p.done, p.total))).execute())
    full = max(total for _, total in seen)
    done, total = seen[-1]
    assert done == total == outcome.rows < full / 2
