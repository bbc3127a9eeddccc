"""A judge spec is parsed in exactly one place on the run path: the CLI, once per --judge.

Counted through a run, its resume and an --extend (whose earlier judge comes back from
run.json as structure); the Ray run is counted in tests/engines/test_cli_engine.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import paraudit.judges.spec as judge_spec
from paraudit.cli.main import app

cli = CliRunner()
SMALL = ["--probes", "J", "--protocols", "pointwise", "--cues", "none"]


def count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The text of every judge spec parsed from now on (the grammar's entry for judges)."""
    seen: list[str] = []
    real = judge_spec.parse_spec

    def counting(text: str, *args: Any, **kw: Any) -> Any:
        seen.append(text)
        return real(text, *args, **kw)

    monkeypatch.setattr(judge_spec, "parse_spec", counting)
    return seen


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return count_parses(monkeypatch)


def _run(*args: str) -> str:
    r = cli.invoke(app, ["run", *args])
    assert r.exit_code == 0, r.output
    return r.output


def test_run_resume_and_extend_parse_each_spec_once(
    tiny_dataset: Path, tmp_path: Path, parses: list[str]
) -> None:
    out = tmp_path / "r"
    base = [str(tiny_dataset), "--out", str(out), *SMALL]
    _run(*base, "--judge", "builtin:random?seed=1", "--api-key-env", "UNUSED")
    assert parses == ["builtin:random?seed=1"]
    stored = json.loads((out / "run.json").read_text())
    assert stored["judges"] == ["builtin:random?seed=1"]  # as before, for older readers
    assert stored["judge_specs"] == [
        {
            "text": "builtin:random?seed=1",
            "backend": "builtin",
            "model": "random",
            "base_url": None,
            "options": {"seed": "1"},
        }
    ]
    parses.clear()
    _run(*base, "--judge", "builtin:random?seed=1")  # a resume (nothing left to ask)
    assert parses == ["builtin:random?seed=1"]
    parses.clear()
    # --extend: the new judge is parsed at the CLI; the run's first judge is read back from
    # run.json's structure, not parsed again.
    _run(*base, "--judge", "builtin:first", "--extend")
    assert parses == ["builtin:first"]
    labels = {json.loads(x)["judge"] for x in (out / "results.jsonl").read_text().splitlines()}
    assert labels == {"builtin:random?seed=1", "builtin:first"}


def test_an_older_run_folder_with_spec_text_still_extends(
    tiny_dataset: Path, tmp_path: Path, parses: list[str]
) -> None:
    out = tmp_path / "r"
    base = [str(tiny_dataset), "--out", str(out), *SMALL]
    _run(*base, "--judge", "builtin:random")
    record = json.loads((out / "run.json").read_text())
    del record["judge_specs"]  # as written before judges were stored as structure
    (out / "run.json").write_text(json.dumps(record))
    parses.clear()
    _run(*base, "--judge", "builtin:first", "--extend")
    assert sorted(parses) == ["builtin:first", "builtin:random"]  # the old text, read once
    labels = {json.loads(x)["judge"] for x in (out / "results.jsonl").read_text().splitlines()}
    assert labels == {"builtin:random", "builtin:first"}
