"""Fault injection, outputs (issue 19 item 1): nothing paraudit did not write is overwritten or
deleted. Same rows and invariants as test_faults.py (exit code, one error line, no traceback,
file tree unchanged).

Case list:
  compare    --out over a dataset's items.jsonl · over a run's results.jsonl (with and without
             --force) · --out a file paraudit did not write (--force)
  annotate-export  --csv over a file · --csv and --jsonl on one path · --jsonl on the store ·
             --force over a foreign file · --run inside a dataset
  annotate-stats   --json over a file · on the store itself · over a foreign file (--force)
  import-hf  --force over a dataset holding a run folder · OUT inside a run folder
  export-hf  --force over an export holding notes
  build      starter --force over a dataset holding notes (refused before rendering)
  demo       --force over an invalid starter set holding a run folder
  run/report --out inside a dataset (its audio/ folder)
Positive controls: --force replaces an earlier output of the same kind; a run folder inside
DATASET/audio/ (made by an older paraudit) leaves the dataset fingerprint as it was.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from paraudit.runfolder.spec import dataset_fingerprint
from tests.cli.test_faults import (
    Case,
    _check,
    _compare_run,
    _ds,
    _export,
    _file,
    _invoke,
    _snapshot,
)


def _store(t: Path) -> Path:
    """A finished simulated study on a fresh dataset (the annotate extra's store only)."""
    ds = _ds(t, "study-ds")
    store = t / "study.sqlite"
    code, out = _invoke(
        "annotate-simulate", str(ds), "--store", str(store), "--annotators", "2",
        "--per-annotator", "2", "--overlap", "1", "--repeats", "0", "--catch", "0",
    )  # fmt: skip
    assert code == 0, out
    return store


def _with_run_inside(ds: Path) -> Path:
    (ds / "myrun").mkdir()
    (ds / "myrun" / "run.json").write_text("{}\n")
    (ds / "myrun" / "notes.txt").write_text("my notes\n")
    return ds


def _invalid_starter_with_run(t: Path) -> Path:
    ds = _ds(t / "out", "starter")
    m = json.loads((ds / "dataset.json").read_text())
    m["emotions"] = ["neutral"]
    (ds / "dataset.json").write_text(json.dumps(m))
    _with_run_inside(ds)
    return t / "out"


def _export_with_notes(t: Path) -> Path:
    hf = _export(t)
    (hf / "notes.txt").write_text("about this export\n")
    return hf


def _runs(t: Path) -> tuple[str, str]:
    return str(_compare_run(t / "a")), str(_compare_run(t / "b"))


CASES = [
    Case(
        "compare-out-items",
        lambda t: ["compare", *_runs(t), "--out", str(t / "a" / "ds" / "items.jsonl")],
        "is inside the dataset",
    ),
    Case(
        "compare-out-results",
        lambda t: ["compare", *_runs(t), "--out", str(t / "a" / "run" / "results.jsonl")],
        "is inside the run folder",
    ),
    Case(
        "compare-force-results",
        lambda t: [
            "compare",
            *_runs(t),
            "--out",
            str(t / "a" / "run" / "results.jsonl"),
            "--force",
        ],
        "is inside the run folder",
    ),  # fmt: skip
    Case(
        "compare-force-foreign",
        lambda t: ["compare", *_runs(t), "--out", str(_file(t)), "--force"],
        "paraudit did not write it",
    ),
    Case(
        "export-csv-exists",
        lambda t: ["annotate-export", str(_store(t)), "--csv", str(_file(t))],
        "already exists",
    ),
    Case(
        "export-csv-jsonl-same",
        lambda t: [
            "annotate-export",
            str(_store(t)),
            "--csv",
            str(t / "x"),
            "--jsonl",
            str(t / "x"),
        ],
        "name the same path",
    ),
    Case(
        "export-jsonl-on-store",
        lambda t: [
            "annotate-export",
            str(_store(t)),
            "--jsonl",
            str(t / "study.sqlite"),
            "--force",
        ],
        "name the same path",
    ),
    Case(
        "export-force-foreign",
        lambda t: ["annotate-export", str(_store(t)), "--csv", str(_file(t)), "--force"],
        "is not an earlier answer CSV export",
    ),
    Case(
        "export-run-in-dataset",
        lambda t: ["annotate-export", str(_store(t)), "--run", str(t / "study-ds" / "hrun")],
        "is inside the dataset",
    ),
    Case(
        "stats-json-exists",
        lambda t: ["annotate-stats", str(_store(t)), "--json", str(_file(t))],
        "already exists",
    ),
    Case(
        "stats-json-on-store",
        lambda t: ["annotate-stats", str(_store(t)), "--json", str(t / "study.sqlite"), "--force"],
        "name the same path",
    ),
    Case(
        "stats-json-foreign",
        lambda t: ["annotate-stats", str(_store(t)), "--json", str(_file(t)), "--force"],
        "is not an earlier annotate-stats JSON",
    ),
    Case(
        "import-force-run-inside",
        lambda t: ["import-hf", str(_export(t)), str(_with_run_inside(_ds(t))), "--force"],
        "did not write there (myrun)",
    ),
    Case(
        "import-into-run-folder",
        lambda t: ["import-hf", str(_export(t)), str(_compare_run(t) / "ds-copy")],
        "is inside the run folder",
    ),
    Case(
        "export-force-notes",
        lambda t: ["export-hf", str(_ds(t)), str(_export_with_notes(t)), "--force"],
        "did not write there (notes.txt)",
    ),
    Case(
        "build-force-notes",
        lambda t: ["build", "starter", "--out", str(_with_run_inside(_ds(t))), "--force"],
        "did not write there (myrun)",
    ),
    Case(
        "demo-force-run-in-starter",
        lambda t: ["demo", "--out", str(_invalid_starter_with_run(t)), "--force"],
        "did not write there (myrun)",
    ),
    Case(
        "run-out-in-audio",
        lambda t: [
            "run",
            str(_ds(t)),
            "--judge",
            "builtin:first",
            "--out",
            str(t / "ds" / "audio" / "r"),
        ],
        "is inside the dataset",
    ),  # fmt: skip
    Case(
        "report-out-in-dataset",
        lambda t: ["report", str(_compare_run(t)), "--out", str(t / "ds" / "report")],
        "is inside the dataset",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_output_fault(case: Case, tmp_path: Path) -> None:
    if case.id.startswith(("export-csv", "export-jsonl", "export-force-f", "export-run", "stats")):
        pytest.importorskip("starlette", reason="the 'annotate' extra is not installed")
    args = case.setup(tmp_path)
    before = _snapshot(tmp_path)
    code, out = _invoke(*args)
    _check(code, out, case, args[0], _snapshot(tmp_path) == before)


# -- positive controls ------------------------------------------------------------------------


def test_force_replaces_an_earlier_comparison(tmp_path: Path) -> None:
    run_a, run_b = _runs(tmp_path)
    out = tmp_path / "c.json"
    assert _invoke("compare", run_a, run_b, "--out", str(out))[0] == 0
    code, text = _invoke("compare", run_a, run_b, "--out", str(out))
    assert code == 1 and "pass --force" in text, text
    code, text = _invoke("compare", run_a, run_b, "--out", str(out), "--force")
    assert code == 0, text
    assert json.loads(out.read_text())["paraudit_output"] == "compare"


def test_force_replaces_earlier_answer_exports(tmp_path: Path) -> None:
    pytest.importorskip("starlette", reason="the 'annotate' extra is not installed")
    store = _store(tmp_path)
    csv, jsonl, stats = tmp_path / "a.csv", tmp_path / "a.jsonl", tmp_path / "s.json"
    for _ in range(2):  # the second time over the first one's files
        code, out = _invoke(
            "annotate-export", str(store), "--csv", str(csv), "--jsonl", str(jsonl), "--force"
        )
        assert code == 0, out
        code, out = _invoke("annotate-stats", str(store), "--json", str(stats), "--force")
        assert code == 0, out
    assert csv.read_text().startswith("annotator,seq,")
    assert len(jsonl.read_text().splitlines()) == len(csv.read_text().splitlines()) - 1


def test_import_force_keeps_to_a_built_dataset_with_its_card(tmp_path: Path) -> None:
    pytest.importorskip("datasets", reason="the 'datasets' extra is not installed")
    hf = _export(tmp_path)
    target = _ds(tmp_path, "target")
    (target / "CARD.md").write_text("# card\n")  # a builder's own file: replaceable
    code, out = _invoke("import-hf", str(hf), str(target), "--force")
    assert code == 0, out


def test_run_folder_inside_audio_keeps_the_fingerprint(tmp_path: Path) -> None:
    ds = _ds(tmp_path)
    before = dataset_fingerprint(ds)
    run = _compare_run(tmp_path / "elsewhere")
    shutil.copytree(run, ds / "audio" / "old-run")  # as an older paraudit let a run put there
    assert dataset_fingerprint(ds) == before
    (ds / "audio" / "extra.wav").write_bytes(b"RIFF")  # a clip added still changes it
    assert dataset_fingerprint(ds) != before


def _locked_out(tmp_path: Path, target: Path, *args: str) -> None:
    """While another writer holds `target`'s output lock, the command is refused at once with
    the holder's pid and the tree is unchanged (issue 30: exports took no lock, so a second
    export silently replaced the first one's files)."""
    from paraudit.items.guard import OutputLock

    with OutputLock(target, "OUT"):
        before = _snapshot(tmp_path)
        code, text = _invoke(*args)
        assert _snapshot(tmp_path) == before
    assert code == 1 and "is being written by another paraudit command (pid" in text, text
    assert "Traceback" not in text


def test_export_hf_and_import_hf_hold_the_output_lock(tmp_path: Path) -> None:
    ds = _ds(tmp_path)
    _locked_out(tmp_path, tmp_path / "hf", "export-hf", str(ds), str(tmp_path / "hf"))
    hf = _export(tmp_path)
    _locked_out(tmp_path, tmp_path / "back", "import-hf", str(hf), str(tmp_path / "back"))


@pytest.mark.parametrize("option", ["--csv", "--jsonl", "--run"])
def test_annotate_export_holds_each_output_lock(tmp_path: Path, option: str) -> None:
    store = _store(tmp_path)
    target = tmp_path / f"out{option.strip('-')}"
    _locked_out(tmp_path, target, "annotate-export", str(store), option, str(target))
