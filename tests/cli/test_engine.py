"""`--engine` options through the real CLI, without a Ray cluster."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from paraudit.cli.main import app

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert "Traceback" not in r.output, r.output
    return r.exit_code, r.output


def test_ray_options_without_the_ray_engine_are_refused(tiny_dataset: Path, tmp_path: Path) -> None:
    base = ["run", str(tiny_dataset), "--judge", "builtin:random", "--out", str(tmp_path / "r")]
    code, out = _run(*base, "--num-workers", "2", "--gpus-per-worker", "1")
    assert code == 1
    assert "--num-workers, --gpus-per-worker only apply to --engine ray" in out
    code, out = _run(*base, "--no-ray-data")
    assert code == 1 and "--ray-data/--no-ray-data only apply to --engine ray" in out
    code, out = _run(*base, "--engine", "spark")
    assert code == 1 and "--engine must be one of local, ray, not 'spark'" in out
    assert not (tmp_path / "r").exists()


def test_judges_on_the_local_engine_show_no_cluster() -> None:
    code, out = _run("judges")
    assert code == 0 and "builtin" in out and "Ray cluster" not in out
