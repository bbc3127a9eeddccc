"""The dataset commands, including every bad-input path: one line, exit 1, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args))
    assert "Traceback" not in r.output, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def test_validate_ok(tiny_dataset: Path) -> None:
    code, out = _run("validate", str(tiny_dataset))
    assert code == 0 and "valid" in out


def test_validate_lists_problems(tiny_dataset: Path) -> None:
    with (tiny_dataset / "items.jsonl").open("a") as f:
        f.write("{broken\n")
    code, out = _run("validate", str(tiny_dataset))
    assert code == 1 and "line 3" in out and "1 problem" in out


def test_validate_missing_folder(tmp_path: Path) -> None:
    code, out = _run("validate", str(tmp_path / "nope"))
    assert code == 1 and "not a dataset folder" in out


def test_build_unknown_source(tmp_path: Path) -> None:
    code, out = _run("build", "startr", "--out", str(tmp_path / "x"))
    assert code == 1 and "unknown source" in out


def test_build_with_a_voice_that_is_not_piper(tmp_path: Path) -> None:
    bad = tmp_path / "voice.onnx"
    bad.write_text("not a model")
    code, out = _run("build", "starter", "--out", str(tmp_path / "x"), "--voice", str(bad))
    assert code == 1 and "voice.onnx" in out
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("extended", [False, True], ids=["starter", "extended"])
def test_build_small_starter(tmp_path: Path, render_cache: Path, extended: bool) -> None:
    code, out = _run(
        "build",
        "starter",
        "--out",
        str(tmp_path / "ds"),
        "--limit",
        "1",
        "--cache",
        str(render_cache),
        *(["--extended"] if extended else []),
    )
    assert code == 0, out
    assert "dataset validates" in out and "accepted" in out
    # --limit takes the first sources of each task: the starter's own, extended or not.
    manifest = json.loads((tmp_path / "ds" / "dataset.json").read_text())
    assert manifest["name"] == ("paraudit-starter-extended" if extended else "paraudit-starter")


def test_export_refuses_invalid_dataset(tiny_dataset: Path, tmp_path: Path) -> None:
    m = json.loads((tiny_dataset / "dataset.json").read_text())
    m["emotions"] = ["neutral"]
    (tiny_dataset / "dataset.json").write_text(json.dumps(m))
    code, out = _run("export-hf", str(tiny_dataset), str(tmp_path / "hf"))
    assert code == 1 and "does not validate" in out


def test_export_import_cli(tiny_dataset: Path, tmp_path: Path) -> None:
    assert _run("export-hf", str(tiny_dataset), str(tmp_path / "hf"))[0] == 0
    assert _run("import-hf", str(tmp_path / "hf"), str(tmp_path / "back"))[0] == 0
    assert _run("validate", str(tmp_path / "back"))[0] == 0
