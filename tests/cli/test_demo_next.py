"""The demo's closing block: three commands that paste back, and, when the paraudit that runs
is not the one on the PATH (scripts/demo.sh installs into .venv), how to put it there."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from paraudit.cli.demo import next_lines


def _commands(lines: list[str]) -> list[list[str]]:
    return [shlex.split(line, comments=True) for line in lines[1:]]


def test_the_next_block_holds_three_commands_that_parse_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(Path(sys.prefix) / "bin"))  # paraudit found where it runs
    report = tmp_path / "odd :smile: [b]x[/b]" / "report.html"
    lines = next_lines(tmp_path / "demo" / "starter", report)
    assert lines[0] == "next:"
    run, show, tests = _commands(lines)
    assert run[:3] == ["paraudit", "run", str(tmp_path / "demo" / "starter")]
    assert run[run.index("--judge") + 1] == "openai:MODEL@http://127.0.0.1:8000/v1"
    assert show[:3] == ["python3", "-m", "webbrowser"] and show[3] == report.absolute().as_uri()
    assert tests == ["bash", "scripts/test.sh"]


def test_the_block_says_how_to_put_paraudit_on_the_path_when_it_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sys.prefix == sys.base_prefix:
        pytest.skip("not running in a virtual environment")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # as in a fresh shell after scripts/demo.sh
    lines = next_lines(tmp_path / "starter", tmp_path / "report.html")
    source = _commands(lines)[0]
    assert source[0] == "source" and Path(source[1]).name == "activate", lines
    assert Path(source[1]).resolve() == (Path(sys.prefix) / "bin" / "activate").resolve()
    assert len(lines) == 1 + 4  # the activation line, then the same three commands
