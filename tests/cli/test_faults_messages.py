"""Fault injection, messages and numbers (issue 19 items 4 and 9): each line names the real
problem and its fix; nonsense numbers are refused before any work. Same rows and invariants as
test_faults.py (exit code, one error line, no traceback, file tree unchanged).

Case list:
  run        --parse-retries 1000000 · --max-wait -1 · --timeout nan · ?tpm=1 (refused before
             the run folder is made) · a stub run.json ('{}') · a run folder whose run.json was
             deleted (calls.sqlite still holds the answers) · --out in a human run folder
  validate   --human-threshold -2
  annotate   --annotators -3 · a dataset that does not validate (mixed sample rates, a clip
             linked outside): no study created · a missing 'annotate' extra: no link printed ·
             an address this machine does not have (--host, not --port)
  annotate-stats  --threshold nan · a run's calls.sqlite as the store · a folder as the store
  build      starter --tts nosuch · starter --dry-run
  compare    against a run with no result rows
  build      a --source JSONL / CSV with a byte that is not UTF-8 (line and byte named)
Positive control: a human run of the same dataset is not "a different dataset".
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.cli.test_faults import (
    Case,
    _check,
    _compare_run,
    _ds,
    _invoke,
    _snapshot,
    _swap_tone,
    _validate_symlink_outside,
)


def _run(t: Path, *extra: str, out: str = "newrun") -> list[str]:
    return ["run", str(_ds(t)), "--judge", "builtin:first", "--out", str(t / out), *extra]


def _stub_run(t: Path) -> Path:
    (t / "stub").mkdir()
    (t / "stub" / "run.json").write_text("{}\n")
    return t / "stub"


def _run_without_run_json(t: Path) -> Path:
    run = _compare_run(t)
    (run / "run.json").unlink()
    return run


def _human_run(t: Path) -> Path:
    pytest.importorskip("fastapi", reason="the 'annotate' extra is not installed")
    ds = t / "ds" if (t / "ds").exists() else _ds(t)
    code, out = _invoke(
        "annotate-simulate", str(ds), "--store", str(t / "study.sqlite"), "--annotators", "2",
        "--per-annotator", "2", "--overlap", "1", "--repeats", "0", "--catch", "0",
        "--run", str(t / "human"),
    )  # fmt: skip
    assert code == 0, out
    return t / "human"


def _store(t: Path) -> Path:
    _human_run(t)
    return t / "study.sqlite"


def _annotate(ds: Path, t: Path, *extra: str) -> list[str]:
    return ["annotate", str(ds), "--store", str(t / "s.sqlite"), "--annotators", "2", *extra]


def _mixed_rates(t: Path) -> Path:
    ds = _ds(t)
    _swap_tone(ds, rate=22050)
    return ds


def _empty_run(t: Path) -> Path:
    run = _compare_run(t / "e")
    (run / "results.jsonl").write_text("")
    return run


def _latin1_source(t: Path, suffix: str) -> list[str]:
    from tests.builders.fakes import write_emocf

    src = write_emocf(t / "e.jsonl")
    if suffix == ".csv":
        import csv
        import json

        rows = [json.loads(line) for line in src.read_text().splitlines()]
        with (t / "e.csv").open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        src = t / "e.csv"
    lines = src.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"e", b"\xe9", 1)
    src.write_bytes(b"\n".join(lines))
    return ["build", "single-turn", "--source", str(src), "--llm", "openai:m", "--out",
            str(t / "out"), "--dry-run"]  # fmt: skip


CASES = [
    Case(
        "build-source-latin1-jsonl",
        lambda t: _latin1_source(t, ".jsonl"),
        ":3: not valid UTF-8 (byte 0xe9",
    ),
    Case(
        "build-source-latin1-csv",
        lambda t: _latin1_source(t, ".csv"),
        ":3: not valid UTF-8 (byte 0xe9",
    ),
    Case("run-parse-retries", lambda t: _run(t, "--parse-retries", "1000000"), "give 0–20"),
    Case("run-max-wait", lambda t: _run(t, "--max-wait", "-1"), "--max-wait must be 0 or more"),
    Case("run-timeout-nan", lambda t: _run(t, "--timeout", "nan"), "--timeout must be"),
    Case(
        "run-tpm-too-small",
        lambda t: ["run", str(_ds(t)), "--judge", "builtin:first?tpm=1", "--out", str(t / "r")],
        "raise tpm to at least",
    ),
    Case(
        "run-stub-run-json",
        lambda t: [*_run(t)[:-2], "--out", str(_stub_run(t))],
        "records no run (no spec, no judges",
    ),
    Case(
        "run-deleted-run-json",
        lambda t: [
            "run",
            str(t / "ds"),
            "--judge",
            "builtin:first",
            "--out",
            str(_run_without_run_json(t)),
        ],
        "finished calls) but no run.json",
    ),  # fmt: skip
    Case(
        "run-into-human-run",
        lambda t: ["run", str(t / "ds"), "--judge", "builtin:first", "--out", str(_human_run(t))],
        "holds human answers written by annotate-export",
    ),
    Case(
        "validate-human-threshold",
        lambda t: [
            "validate",
            str(_ds(t)),
            "--humans",
            str(t / "x.sqlite"),
            "--human-threshold",
            "-2",
        ],
        "--human-threshold must be a number from 0 to 1 (got -2)",
    ),  # fmt: skip
    Case(
        "annotate-negative-count",
        lambda t: _annotate(_ds(t), t, "--no-serve")[:-2] + ["-3", "--no-serve"],
        "give 1 to 500 annotators",
    ),
    Case(
        "annotate-mixed-rates",
        lambda t: _annotate(_mixed_rates(t), t, "--no-serve"),
        "does not validate",
    ),
    Case(
        "annotate-symlink-out",
        lambda t: _annotate(Path(_validate_symlink_outside(t)[1]), t, "--no-serve"),
        "points outside the dataset folder",
    ),
    Case(
        "annotate-bad-host",
        lambda t: _annotate(_ds(t), t, "--host", "203.0.113.7"),
        "pass an address of this machine as --host",
    ),
    Case(
        "stats-threshold-nan",
        lambda t: ["annotate-stats", str(_store(t)), "--threshold", "nan"],
        "--threshold must be a number from 0 to 1 (got nan)",
    ),
    Case(
        "stats-calls-sqlite",
        lambda t: ["annotate-stats", str(_compare_run(t) / "calls.sqlite")],
        "is a run's calls.sqlite, not an annotation store",
    ),
    Case(
        "stats-store-folder",
        lambda t: ["annotate-stats", str(t)],
        "is a folder, not an annotation store",
    ),
    Case(
        "build-starter-tts",
        lambda t: ["build", "starter", "--out", str(t / "b"), "--tts", "nosuch"],
        "--tts does not apply to it",
    ),
    Case(
        "build-starter-dry-run",
        lambda t: ["build", "starter", "--out", str(t / "b"), "--dry-run"],
        "--dry-run does not apply",
    ),
    Case(
        "build-extended-positional",
        lambda t: ["build", "positional", "--out", str(t / "b"), "--extended"],
        "--extended adds sentences to the starter set: build starter, not positional",
        2,
    ),
    Case(
        "build-extended-dimension",
        lambda t: [
            "build",
            "starter",
            "--dimension",
            "urgency",
            "--out",
            str(t / "b"),
            "--extended",
        ],  # fmt: skip
        "--extended: only the emotion starter has an extension (not urgency)",
        2,
    ),
    Case(
        "compare-empty-run",
        lambda t: ["compare", str(_compare_run(t)), str(_empty_run(t))],
        "has no result rows",
    ),
]

NEEDS_ANNOTATE = ("annotate-bad-host", "stats-threshold-nan", "run-into-human-run")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_message_fault(case: Case, tmp_path: Path) -> None:
    if case.id in NEEDS_ANNOTATE:
        pytest.importorskip("fastapi", reason="the 'annotate' extra is not installed")
    args = case.setup(tmp_path)
    before = _snapshot(tmp_path)
    code, out = _invoke(*args)
    _check(code, out, case, args[0], _snapshot(tmp_path) == before)


def test_a_missing_annotate_extra_is_named_before_any_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn now raises ImportError
    ds = _ds(tmp_path)
    before = _snapshot(tmp_path)
    code, out = _invoke(*_annotate(ds, tmp_path))
    assert code == 1 and "paraudit[annotate]" in out, out
    assert "http://" not in out and "created study" not in out, out
    assert _snapshot(tmp_path) == before  # no store either


def test_a_human_run_of_the_same_dataset_is_the_same_dataset(tmp_path: Path) -> None:
    judged = _compare_run(tmp_path)
    human = _human_run(tmp_path)
    code, out = _invoke("compare", str(judged), str(human))
    assert "different datasets" not in out, out
    assert "Traceback" not in out and code in (0, 1), out
    shutil.rmtree(human)


@pytest.mark.parametrize("command", ["report", "compare"])
def test_replicates_beyond_the_bound_are_refused_at_once(command: str, tmp_path: Path) -> None:
    run = str(_compare_run(tmp_path))
    args = [command, run, *(["--out", str(tmp_path / "rep")] if command == "report" else [run])]
    before = _snapshot(tmp_path)
    code, out = _invoke(*args, "--replicates", "100000000")
    case = Case("replicates", lambda t: [], "--replicates 100000000: give 100–100,000")
    _check(code, out, case, command, _snapshot(tmp_path) == before)
