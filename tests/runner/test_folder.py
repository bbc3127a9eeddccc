"""A reused --out: resumed when the spec matches, extended on request, refused otherwise;
two runs on one folder never both write; duplicate judges never double rows."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from paraudit.errors import ParauditError
from paraudit.runfolder import CALLS_VERSION
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner

J = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))


def run(ds: Path, out: Path, judges: list[str], plan: PlanSpec = J, **kw: Any) -> Runner:
    r = Runner(RunConfig(ds, judges, out, plan, **kw))
    asyncio.run(r.run())
    return r


def rows(out: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]


def test_resume_keeps_run_json_and_asks_nothing_again(tiny_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(tiny_dataset, out, ["builtin:random"])
    before = (out / "run.json").read_bytes()
    record = json.loads(before)
    assert record["spec"]["judges"] == ["builtin:random"]
    assert [h["event"] for h in record["history"]] == ["created"]
    time.sleep(1.1)  # a rewrite would change started_at
    again = run(tiny_dataset, out, ["builtin:random?rpm=600&timeout=30"], concurrency=2)
    assert again.progress.calls_made == 0  # harness options do not make another run
    assert (out / "run.json").read_bytes() == before


def test_a_different_spec_is_refused_naming_the_difference(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    run(tiny_dataset, out, ["builtin:random"])
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    with pytest.raises(ParauditError) as e:
        run(tiny_dataset, out, ["builtin:first"])
    msg = str(e.value)
    assert "judges: builtin:random → builtin:first" in msg
    assert "new --out" in msg and "--extend" in msg
    with pytest.raises(ParauditError, match="cues: none → none,hard"):
        run(
            tiny_dataset,
            out,
            ["builtin:random"],
            PlanSpec(("J",), ("pointwise",), ("none", "hard")),
        )
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert after["run.json"] == before["run.json"]
    assert after["results.jsonl"] == before["results.jsonl"]


def test_extend_adds_a_judge_and_a_cue_and_records_history(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    out, log = tmp_path / "run", tmp_path / "calls.log"
    run(tiny_dataset, out, [f"builtin:random?calllog={log}"])
    first_calls = len(log.read_text().splitlines())
    plan = PlanSpec(("J",), ("pointwise",), ("none", "hard"))
    run(tiny_dataset, out, ["builtin:first"], plan, extend=True)
    got = rows(out)
    assert {r["judge"] for r in got} == {"builtin:random", "builtin:first"}
    assert {(r["judge"], r["cue"]) for r in got} >= {
        ("builtin:random", "hard"),
        ("builtin:first", "none"),
    }
    record = json.loads((out / "run.json").read_text())
    assert record["spec"]["judges"] == ["builtin:random", "builtin:first"]
    assert record["spec"]["cues"] == ["none", "hard"]
    assert record["history"][-1]["event"] == "extended"
    assert record["history"][-1]["added"] == {"judges": ["builtin:first"], "cues": ["hard"]}
    # The old judge was re-run from its stored spec: only its new questions were asked.
    new_calls = len(log.read_text().splitlines()) - first_calls
    assert 0 < new_calls == sum(r["judge"] == "builtin:random" and r["cue"] == "hard" for r in got)
    # --extend with nothing new resumes the whole run and leaves run.json as it is.
    before = (out / "run.json").read_bytes()
    run(tiny_dataset, out, ["builtin:first"], extend=True)
    assert (out / "run.json").read_bytes() == before
    assert {(r["judge"], r["cue"]) for r in rows(out)} == {(r["judge"], r["cue"]) for r in got}
    with pytest.raises(ParauditError, match="--extend only adds.*orders: both → one"):
        run(
            tiny_dataset,
            out,
            ["builtin:first"],
            PlanSpec(("J",), ("pointwise",), ("none",), "one"),
            extend=True,
        )
    # Without --extend, a change --extend cannot make is not offered --extend as the way out.
    with pytest.raises(ParauditError, match=r"orders: both → one\); pass a new --out[^,]*$"):
        run(
            tiny_dataset, out, ["builtin:first"], PlanSpec(("J",), ("pointwise",), ("none",), "one")
        )


def test_out_that_is_a_file_or_a_foreign_folder(tiny_dataset: Path, tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(ParauditError, match="is a file"):
        run(tiny_dataset, tmp_path / "f", ["builtin:random"])
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "notes.txt").write_text("mine")
    with pytest.raises(ParauditError, match="not a run folder"):
        run(tiny_dataset, tmp_path / "d", ["builtin:random"])
    assert [p.name for p in (tmp_path / "d").iterdir()] == ["notes.txt"]


def test_duplicate_judges_are_asked_once_or_refused(tiny_dataset: Path, tmp_path: Path) -> None:
    r = run(tiny_dataset, tmp_path / "a", ["builtin:random", "builtin:random"])
    assert any("given twice" in n for n in r.notes)
    got = rows(tmp_path / "a")
    assert len(got) == len({(x["item_id"], x["branch"], x["order"]) for x in got})
    with pytest.raises(ParauditError, match="same judge .builtin:random. with different harness"):
        run(tiny_dataset, tmp_path / "b", ["builtin:random", "builtin:random?rpm=5"])


def test_judges_differing_in_an_output_option_get_distinct_labels(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    run(tiny_dataset, tmp_path / "r", ["builtin:random?seed=1", "builtin:random?seed=2"])
    got = rows(tmp_path / "r")
    labels = {r["judge"] for r in got}
    assert labels == {"builtin:random?seed=1", "builtin:random?seed=2"}
    per = [sum(r["judge"] == j for r in got) for j in labels]
    assert per[0] == per[1] == len(got) // 2


def test_plans_of_nothing_are_refused_before_any_folder(tiny_dataset: Path, tmp_path: Path) -> None:
    with pytest.raises(ParauditError, match="S .staging. .* add P"):
        run(
            tiny_dataset,
            tmp_path / "s",
            ["builtin:random"],
            PlanSpec(("S",), ("pointwise",), ("none",)),
        )
    with pytest.raises(ParauditError, match="the plan has no questions"):
        run(
            tiny_dataset,
            tmp_path / "t",
            ["builtin:random"],
            PlanSpec(("T",), ("pointwise",), ("hard",)),
        )
    assert not (tmp_path / "s").exists() and not (tmp_path / "t").exists()


def test_a_token_budget_smaller_than_one_call_fails_at_once(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    t0 = time.monotonic()
    with pytest.raises(ParauditError, match="tpm=1 is below what one call needs.*raise tpm"):
        run(tiny_dataset, tmp_path / "r", ["builtin:random?tpm=1"])
    assert time.monotonic() - t0 < 10


def test_each_call_stores_the_prompt_it_sent(tiny_dataset: Path, tmp_path: Path) -> None:
    run(tiny_dataset, tmp_path / "r", ["builtin:random"])
    db = sqlite3.connect(tmp_path / "r" / "calls.sqlite")
    assert db.execute("PRAGMA user_version").fetchone()[0] == CALLS_VERSION
    prompts = [json.loads(p) for (p,) in db.execute("SELECT prompt FROM calls")]
    assert prompts and all(p for p in prompts)
    kinds = {next(iter(part)) for p in prompts for part in p}
    assert kinds == {"text", "audio"}
    judges = {j for (j,) in db.execute("SELECT judge FROM calls")}
    assert judges == {"builtin:random"}


SLOW = """
import asyncio, sys
from pathlib import Path
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
plan = PlanSpec(("J", "P"), ("pointwise", "pairwise"), ("none", "soft", "hard", "transition"))
cfg = RunConfig(Path(sys.argv[1]), ["builtin:random?delay=0.3&calllog=" + sys.argv[3]],
                Path(sys.argv[2]), plan, concurrency=1)
asyncio.run(Runner(cfg).run())
"""


def test_a_second_run_on_the_same_folder_fails_at_once(tiny_dataset: Path, tmp_path: Path) -> None:
    out, log = tmp_path / "run", tmp_path / "log"
    proc = subprocess.Popen([sys.executable, "-c", SLOW, str(tiny_dataset), str(out), str(log)])
    try:
        deadline = time.time() + 60
        while not log.exists() and time.time() < deadline:
            time.sleep(0.05)
        t0 = time.monotonic()
        with pytest.raises(ParauditError, match="in use by another 'paraudit run'"):
            run(tiny_dataset, out, ["builtin:first"])
        assert time.monotonic() - t0 < 5
    finally:
        proc.kill()
        proc.wait()
    assert not (out / "results.jsonl").exists()
