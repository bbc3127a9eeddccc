"""`paraudit compare`: a run is never compared with itself, and --judge A=B pairs judges of
different names in multi-judge runs (labels that hold '=' themselves included)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app

cli = CliRunner()


def _invoke(*args: str) -> tuple[int, str]:
    r = cli.invoke(app, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output, r.output
    return r.exit_code, r.output


def _run(dataset: Path, out: Path, *judges: str) -> Path:
    args = ["run", str(dataset), "--probes", "J", "--out", str(out)]
    for j in judges:
        args += ["--judge", j]
    code, output = _invoke(*args)
    assert code == 0, output
    return out


@pytest.fixture
def two_runs(tiny_dataset: Path, tmp_path: Path) -> tuple[Path, Path]:
    """Two multi-judge runs; only builtin:first has the same name in both."""
    a = _run(tiny_dataset, tmp_path / "a", "builtin:first", "builtin:random")
    b = _run(tiny_dataset, tmp_path / "b", "builtin:first", "builtin:random?seed=7")
    return a, b


def test_the_same_run_twice_is_refused(tiny_dataset: Path, tmp_path: Path) -> None:
    run = _run(tiny_dataset, tmp_path / "run", "builtin:first")
    link = tmp_path / "link"
    link.symlink_to(run)
    for other in (run, Path(str(run) + "/"), link):
        code, out = _invoke("compare", str(run), str(other))
        assert code == 1 and "are the same run" in out, out
        assert [line for line in out.splitlines() if line.strip()][-1].startswith("error:")
        assert "C1" not in out  # no table


def test_judge_pairs_differently_named_judges(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = two_runs
    code, out = _invoke("compare", str(a), str(b), "--out", str(tmp_path / "default.json"))
    assert code == 0, out
    default = json.loads((tmp_path / "default.json").read_text())
    assert {(m["judge_a"], m["judge_b"]) for m in default["probes"]} == {
        ("builtin:first", "builtin:first")
    }
    code, out = _invoke(
        "compare", str(a), str(b), "--judge", "builtin:random=builtin:random?seed=7",
        "--judge", "builtin:first=builtin:first", "--out", str(tmp_path / "paired.json"),
    )  # fmt: skip
    assert code == 0, out
    assert "A = builtin:random · B = builtin:random?seed=7" in out
    paired = json.loads((tmp_path / "paired.json").read_text())
    assert {(m["judge_a"], m["judge_b"]) for m in paired["probes"]} == {
        ("builtin:random", "builtin:random?seed=7"),
        ("builtin:first", "builtin:first"),
    }
    assert set(paired["state_shift"]) == {
        "builtin:random → builtin:random?seed=7",
        "builtin:first → builtin:first",
    }


@pytest.mark.parametrize(
    ("pair", "expect"),
    [
        ("builtin:nope=builtin:first", "has no judge 'builtin:nope'"),
        ("builtin:random=builtin:random", "has no judge 'builtin:random'"),
        ("builtin:first", "write LABEL_A=LABEL_B"),
    ],
)
def test_an_unknown_judge_label_lists_the_labels_of_its_run(
    two_runs: tuple[Path, Path], tmp_path: Path, pair: str, expect: str
) -> None:
    a, b = two_runs
    code, out = _invoke(
        "compare", str(a), str(b), "--judge", pair, "--out", str(tmp_path / "c.json")
    )
    assert code == 1, out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and expect in errors[0], out
    if "has no judge" in expect:
        run, labels = (str(b), "builtin:first, builtin:random?seed=7") if "random=" in pair else (
            str(a), "builtin:first, builtin:random")  # fmt: skip
        assert f"run {run} has no judge" in errors[0] and f"(its judges: {labels})" in errors[0]
    assert not (tmp_path / "c.json").exists()


def test_judge_is_refused_with_renderings(two_runs: tuple[Path, Path]) -> None:
    a, b = two_runs
    code, out = _invoke("compare", str(a), str(b), "--renderings", "--judge", "x=y")
    assert code == 1 and "drop one of them" in out, out


def test_renderings_table_keeps_judge_names_whole_at_80_columns() -> None:
    from rich.console import Console

    from paraudit.cli.compare import renderings_table

    judges = ["builtin:prosody", "builtin:transcript", "openai:gpt-4o-audio-preview"]
    result = {
        "shared_items": 48,
        "items_a": 48,
        "items_b": 50,
        "judges": [
            {
                "judge": j,
                "instances_a": 1234,
                "instances_b": 1240,
                "spearman": 0.912,
                "pearson": 0.887,
                "slope": 1.023,
                "tv_distance": 0.041,
            }
            for j in judges
        ],
    }
    console = Console(width=80, record=True)
    console.print(renderings_table(result))
    text = console.export_text()
    assert "…" not in text
    assert all(j in text for j in judges)
    assert max(len(line) for line in text.splitlines()) <= 80
