"""`paraudit run --parse`: a preset name is checked (one error line), and lenient is recorded."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from paraudit.cli.main import app


def test_an_unknown_preset_is_one_error_line(tiny_dataset: Path, tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["run", str(tiny_dataset), "--judge", "builtin:first",
                                 "--out", str(tmp_path / "run"), "--parse", "loose"])  # fmt: skip
    assert r.exit_code != 0
    assert "error: --parse loose: not a preset; use one of strict, lenient" in r.output
    assert "Traceback" not in r.output and not (tmp_path / "run" / "run.json").exists()


def test_lenient_is_recorded_in_the_run_spec(tiny_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", str(tiny_dataset), "--judge", "builtin:first", "--out", str(out)]
    r = CliRunner().invoke(app, [*args, "--probes", "J", "--parse", "lenient"])
    assert r.exit_code == 0, r.output
    assert json.loads((out / "run.json").read_text())["spec"]["parse"] == "lenient"
    # Resuming the same folder without the preset is a different run: refused, not mixed.
    again = CliRunner().invoke(app, [*args, "--probes", "J"])
    assert again.exit_code != 0 and "parse" in again.output
