"""Lazy start-up: `paraudit --help`, `validate` and `run` never import scipy or matplotlib."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from paraudit.cli.main import COMMANDS, app, load_command

PROBE = """
import json, sys
from paraudit.cli.main import app
try:
    app(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"scipy", "matplotlib"})
cli = sorted(m for m in sys.modules if m.startswith("paraudit.cli."))
lazy = sorted(set(sys.modules) & set(LAZY))
print(json.dumps({"heavy": heavy, "cli": cli, "lazy": lazy}))
"""


LAZY = (
    "paraudit.engines.ray_engine",  # --engine ray only
    "paraudit.engines.ray_data",
    "paraudit.stats.summary_model",  # --report only
    "paraudit.cli.verdicts",
)
"""Modules a local `run` without --report has no use for (each costs start-up time)."""


def _modules_after(*args: str) -> dict[str, list[str]]:
    probe = PROBE.replace("LAZY", repr(LAZY))
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=120
    )
    out: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def test_help_lists_every_command_without_importing_one() -> None:
    got = _modules_after("--help")
    assert got["heavy"] == []
    assert got["cli"] == ["paraudit.cli.main"]
    r = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0 and all(name in r.output for name in COMMANDS)


def test_validate_and_run_import_no_statistics_stack(tiny_dataset: Path, tmp_path: Path) -> None:
    assert _modules_after("validate", str(tiny_dataset))["heavy"] == []
    out = tmp_path / "run"
    got = _modules_after(
        "run", str(tiny_dataset), "--judge", "builtin:random", "--out", str(out), "--probes", "J"
    )
    assert got["heavy"] == [] and got["lazy"] == []
    assert (out / "results.jsonl").is_file()  # it really ran


def test_listing_help_matches_each_command() -> None:
    for name, (_, _, first_line) in COMMANDS.items():
        real = " ".join((load_command(name).help or "").split())
        assert real.startswith(first_line), name
