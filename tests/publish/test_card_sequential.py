"""A card of a sequential run says, as the report does, that the run stopped early and how
many items each step used; its record is a subject, so verify catches an edited one."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from paraudit.cli.main import app
from tests.runner.sequential_sets import tone_set


def _cli(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def test_a_sequential_runs_card_carries_the_sequential_sentence(tmp_path: Path) -> None:
    ds = tone_set(tmp_path / "ds", tmp_path / "src", 80)
    run, card = tmp_path / "run", tmp_path / "card"
    code, out = _cli("run", str(ds), "--judge", "builtin:first", "--out", str(run),
                     "--probes", "J,P,O,T", "--cues", "none,hard", "--sequential")  # fmt: skip
    assert code == 0, out
    entry = json.loads((run / "sequential.json").read_text())["judges"]["builtin:first"]
    asked = entry["single-turn-emotions"]["items_asked"]
    assert asked < 80
    code, out = _cli("card", str(run), "--out", str(card), "--replicates", "200")
    assert code == 0, out
    verdict = json.loads((card / "summary.json").read_text())["verdicts"][0]
    assert verdict["headline"].endswith(f"(Sequential: stopped early after {asked} of 80 items.)")
    md = (card / "card.md").read_text()
    assert f"- sequential: stopped early after {asked} of 80 items" in md
    assert "run/sequential.json" in json.loads((card / "card.json").read_text())["subjects"]
    assert _cli("verify", str(card), str(run))[0] == 0
    record = run / "sequential.json"
    record.write_text(record.read_text().replace(f'"items_asked": {asked}', '"items_asked": 79'))
    code, out = _cli("verify", str(card), str(run))
    assert code == 1 and "sequential.json" in out, out
