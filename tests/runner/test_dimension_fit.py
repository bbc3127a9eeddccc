"""A dimension's acoustic built-in judge on another dimension's dataset is refused through the
CLI, by `run` and `run --dry-run`, in one line naming the judge, the dataset's dimension and the
fix, exit 2, with nothing asked or written (issue 28)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app
from tests.conftest import make_dataset
from tests.dimsets import make_dimension_dataset


def cli(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "300"})
    assert "Traceback" not in r.output, r.output
    return r.exit_code, r.output


@pytest.mark.parametrize(
    ("judge", "dimension", "fix"),
    [
        ("builtin:whisper", "urgency", "--judge builtin:urgency"),
        ("builtin:urgency", "whisper", "--judge builtin:whisper"),
        ("builtin:emphasis", "hesitation", "--judge builtin:hesitation"),
    ],
)
@pytest.mark.parametrize("dry", [False, True])
def test_a_judge_of_another_dimension_is_refused(
    tmp_path: Path, judge: str, dimension: str, fix: str, dry: bool
) -> None:
    make_dimension_dataset(tmp_path / "ds", tmp_path / "src", dimension)
    out = tmp_path / "run"
    extra = ["--dry-run"] if dry else []
    code, output = cli("run", str(tmp_path / "ds"), "--judge", judge, "--out", str(out), *extra)
    assert code == 2, output
    line = output.strip()
    assert len(line.splitlines()) == 1, output
    assert judge in line and f"hears only {judge.split(':')[1]}" in line
    assert f"{dimension} (2 items)" in line and fix in line and "no judge was called" in line
    assert not out.exists()


def test_a_listener_on_an_emotion_dataset_points_to_prosody(tmp_path: Path) -> None:
    make_dataset(tmp_path / "ds", tmp_path / "src")
    code, output = cli(
        "run", str(tmp_path / "ds"), "--judge", "builtin:random", "--judge", "builtin:whisper",
        "--out", str(tmp_path / "run"),
    )  # fmt: skip
    assert code == 2, output
    assert "emotion (" in output and "--judge builtin:prosody" in output
    assert not (tmp_path / "run").exists()


def test_the_judge_of_the_datasets_own_dimension_runs(tmp_path: Path) -> None:
    make_dimension_dataset(tmp_path / "ds", tmp_path / "src", "whisper")
    code, output = cli(
        "run", str(tmp_path / "ds"), "--judge", "builtin:whisper", "--out", str(tmp_path / "run"),
        "--probes", "P", "--protocols", "pointwise",
    )  # fmt: skip
    assert code == 0, output
    assert (tmp_path / "run" / "results.jsonl").is_file()
