"""`?samples=N` through the real runner: N answers stored per question, the majority as its
answer, each draw a call of its own (keyed by its sample index), a single draw unchanged."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

from paraudit.runfolder.rows import ResultRow
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.runner.samples import majority_row, sample_index

PLAN = PlanSpec(probes=("J", "P"), protocols=("pointwise", "pairwise"), cues=("none",))


def _key(pred: object) -> str:
    return json.dumps(pred, sort_keys=True)


def test_samples_5_stores_5_answers_and_the_majority(tiny_dataset: Path, tmp_path: Path) -> None:
    spec = "builtin:random?samples=5&seed=1"
    rows = asyncio.run(Runner(RunConfig(tiny_dataset, [spec], tmp_path / "r", PLAN)).run())
    assert rows and {r["judge"] for r in rows} == {"builtin:random?seed=1"}  # not in the label
    keys = set()
    spread = 0
    for r in rows:
        draws = r["samples"]
        assert [d["sample"] for d in draws] == [0, 1, 2, 3, 4]
        keys |= {d["key"] for d in draws}
        votes = Counter(_key(d["pred"]) for d in draws if d["status"] == "ok")
        top = max(votes.values())
        assert r["majority_votes"] == top and votes[_key(r["pred"])] == top
        assert r["correct"] == (r["pred"] == r["gold"])
        spread += len(votes) > 1
    assert len(keys) == 5 * len(rows)  # every draw its own call
    assert spread > 0  # the random judge's draws do disagree somewhere


def test_one_sample_is_the_plain_run(tiny_dataset: Path, tmp_path: Path) -> None:
    plain = asyncio.run(
        Runner(RunConfig(tiny_dataset, ["builtin:random"], tmp_path / "a", PLAN)).run()
    )
    one = asyncio.run(
        Runner(RunConfig(tiny_dataset, ["builtin:random?samples=1"], tmp_path / "b", PLAN)).run()
    )
    assert [(r["key"], r["pred"]) for r in plain] == [(r["key"], r["pred"]) for r in one]
    assert all("samples" not in r for r in one)


def test_draw_and_retry_indices_never_collide() -> None:
    for n in (1, 2, 5):
        seen = {sample_index(d, k, n) for d in range(n) for k in range(4)}
        assert len(seen) == 4 * n
    assert [sample_index(0, k, 1) for k in range(3)] == [0, 1, 2]  # the plain run's retries


def test_a_tie_goes_to_the_first_drawn_and_nothing_answered_stays_unanswered() -> None:
    def row(i: int, pred: str | None, status: str = "ok") -> ResultRow:
        return ResultRow(judge="j", task="t", item_id="i", branch=0, probe="J",
                         protocol="pointwise", cue="none", order="ab", sample=i, key=f"k{i}",
                         status=status, pred=pred, gold="R1", correct=pred == "R1",
                         raw="")  # type: ignore[arg-type]  # fmt: skip

    tie = majority_row([row(0, "R2"), row(1, "R1"), row(2, None, "unparsed"), row(3, "R1"),
                        row(4, "R2")])  # fmt: skip
    extra = tie.model_dump()
    assert tie.pred == "R2" and tie.sample == 0 and extra["majority_votes"] == 2
    assert [d["sample"] for d in extra["samples"]] == [0, 1, 2, 3, 4]
    none = majority_row([row(0, None, "error"), row(1, None, "unparsed")])
    assert none.status == "error" and len(none.model_dump()["samples"]) == 2
