"""Checkpoint series: a third run that regresses on 15 of 48 items is flagged at exactly that
step; unchanged series rarely raise a flag (simulation); bad input is one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.runfolder import write_rows
from paraudit.stats.compare import consistent_units
from paraudit.stats.judge_model import JudgeModel, audit_rows
from paraudit.stats.series import series
from paraudit.stats.statrow import StatRow
from tests.runfolder.test_rows import row

MODEL = JudgeModel("ckpt", p=0.9, o=0.9, j=0.95)


def _rows(seed: int, items: int = 48) -> list[StatRow]:
    return audit_rows(MODEL, items, np.random.default_rng(seed), cues=("none",))


def _regressed(rows: list[StatRow], n: int) -> tuple[list[StatRow], set[str]]:
    """`rows` with every J answer of n items that were right (order-consistently, in both
    branches and protocols) turned wrong."""
    units = consistent_units(rows, "ckpt")
    right = {u[1] for u in units[("J", "pointwise")]}
    for key in (("J", "pointwise"), ("J", "pairwise")):
        right -= {u[1] for u, ok in units[key].items() if not ok}
    chosen = set(sorted(right)[:n])
    assert len(chosen) == n
    out = [r._replace(correct=False) if r.probe == "J" and r.item_id in chosen else r
           for r in rows]  # fmt: skip
    return out, chosen


def _folder(path: Path, rows: list[StatRow], fingerprint: str | None = None) -> Path:
    path.mkdir(parents=True)
    write_rows(path, [row(**r._asdict(), key=f"k{n}") for n, r in enumerate(rows)])
    if fingerprint:
        spec = {"dataset_fingerprint": fingerprint, "dataset_name": "set"}
        (path / "run.json").write_text(json.dumps({"spec": spec}))
    return path


def test_the_regressing_step_and_only_it_is_flagged() -> None:
    first, second = _rows(1), _rows(2)
    third, chosen = _regressed(second, 15)
    keep = {("single-turn-emotions", f"i{k}") for k in range(48)}
    s = series([first, second, third], ["c1", "c2", "c3"], keep, replicates=500)
    steps = [(t.a, t.b) for t in s.regressions if t.kind == "step"]
    assert steps == [(1, 2), (1, 2)] or steps == [(1, 2)]  # J pointwise and/or pairwise
    assert all(t.b == 2 for t in s.regressions)  # the vs-first test of c3 may flag too
    pointwise = next(t for t in s.tests if (t.a, t.b, t.protocol) == (1, 2, "pointwise"))
    assert pointwise.a_better == 15 and pointwise.b_better == 0 and pointwise.items == 48
    assert len(chosen) == 15


def test_unchanged_series_rarely_flag_anything() -> None:
    keep = {("single-turn-emotions", f"i{k}") for k in range(40)}
    flagged = 0
    runs = 20
    for k in range(runs):
        rows = [_rows(100 + 3 * k + j, 40) for j in range(3)]
        flagged += bool(series(rows, ["a", "b", "c"], keep, replicates=200).regressions)
    assert flagged / runs <= 0.1


def _series(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["series", *args], env={"COLUMNS": "200"})
    assert "Traceback" not in r.output, r.output
    return r.exit_code, r.output


def test_cli_flags_the_step_and_writes_a_figure(tmp_path: Path) -> None:
    second = _rows(2)
    third, _ = _regressed(second, 15)
    runs = [_folder(tmp_path / n, rows, "f" * 64) for n, rows in
            (("c1", _rows(1)), ("c2", second), ("c3", third))]  # fmt: skip
    out = tmp_path / "series"
    code, text = _series(*map(str, runs), "--out", str(out), "--replicates", "300")
    assert code == 0, text
    assert "regression at c2 → c3" in text and "regression at c1 → c2" not in text
    data = json.loads((out / "series.json").read_text())
    assert data["items"] == 48 and len(data["checkpoints"]) == 3
    assert (out / "series.png").is_file() and (out / "series.md").is_file()


def test_runs_on_different_datasets_or_items_are_refused_unless_told(tmp_path: Path) -> None:
    a = _folder(tmp_path / "a", _rows(1), "a" * 64)
    b = _folder(tmp_path / "b", _rows(2), "b" * 64)
    c = _folder(tmp_path / "c", _rows(3, items=40), "a" * 64)
    for args, words in [
        ((a, b), "the runs audited different datasets"),
        ((a, c), "the runs answered different items (48, 40; 40 in all of them)"),
        ((a,), "at least two run folders"),
    ]:
        code, text = _series(*map(str, args), "--out", str(tmp_path / "o"))
        errors = [line for line in text.splitlines() if line.startswith("error:")]
        assert code == 2 and len(errors) == 1 and words in " ".join(text.split()), text
        assert not (tmp_path / "o").exists()
    code, text = _series(str(a), str(c), "--shared-items", "--replicates", "200")
    assert code == 0 and "on 40 shared items" in text, text
    (tmp_path / "ids.txt").write_text("i1\ni2\ni3\ni4\ni5\ni6\ni7\ni8\ni9\ni10\n")
    code, text = _series(str(a), str(b), "--items", str(tmp_path / "ids.txt"), "--replicates",
                         "200")  # fmt: skip
    assert code == 0 and "on 10 shared items" in text, text


def test_every_judge_of_the_series_gets_its_figure(tmp_path: Path) -> None:
    def two_judges(seed: int) -> list[StatRow]:
        rows = _rows(seed)
        return rows + [r._replace(judge="ckpt-b") for r in _rows(seed + 10)]

    runs = [_folder(tmp_path / n, two_judges(k), "f" * 64) for k, n in enumerate(("c1", "c2"))]
    out = tmp_path / "series"
    code, text = _series(*map(str, runs), "--out", str(out), "--replicates", "200")
    assert code == 0, text
    assert (out / "series.png").is_file() and (out / "series-2.png").is_file()
    md = (out / "series.md").read_text()
    assert "`series.png`: ckpt ·" in md and "`series-2.png`: ckpt-b ·" in md
