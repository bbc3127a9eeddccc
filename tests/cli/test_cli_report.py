"""`paraudit report` faults: each is exit 1 with one line naming the problem, no traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.runfolder import RESULTS, write_rows
from tests.runfolder.test_rows import row


def _report(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["report", *args], env={"COLUMNS": "80"})
    assert "Traceback" not in r.output, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def _run_dir(path: Path, n: int = 4) -> Path:
    path.mkdir(parents=True)
    write_rows(path, [row(item_id=f"i{k}") for k in range(n)])
    return path


def test_report_faults_are_one_line_each(tmp_path: Path) -> None:
    good = _run_dir(tmp_path / "good")
    (tmp_path / "file").write_text("x")
    code, out = _report(str(good), "--out", str(tmp_path / "file"))
    assert code == 1 and "is a file" in out
    code, out = _report(str(tmp_path / "nothing"), "--out", str(tmp_path / "o1"))
    assert code == 1 and "no results.jsonl" in out
    bad = _run_dir(tmp_path / "bad", n=30)
    lines = (bad / RESULTS).read_text().splitlines()
    lines[24] = lines[24][:50]
    (bad / RESULTS).write_text("\n".join(lines) + "\n")
    code, out = _report(str(bad), "--out", str(tmp_path / "o2"))
    assert code == 1 and "line 25" in " ".join(out.split()) and "rerun 'paraudit run'" in out
    code, out = _report(str(good), str(good) + "/", "--out", str(tmp_path / "o3"))
    assert code == 1 and "given twice" in out
    code, out = _report(str(good), "--label", "a", "--label", "b", "--out", str(tmp_path / "o4"))
    assert code == 1 and "2 --label value(s) for 1 runs" in out
    other = _run_dir(tmp_path / "other")
    code, out = _report(
        str(good), str(other), "--label", "x", "--label", "x", "--out", str(tmp_path / "o5")
    )
    assert code == 1 and "--label x is used twice" in out
    for blank in ("", "  "):
        code, out = _report(
            str(good), str(other), "--label", "x", "--label", blank, "--out", str(tmp_path / "o6")
        )
        errors = [line for line in out.splitlines() if line.startswith("error:")]
        assert code == 1 and len(errors) == 1 and "--label number 2 is empty" in errors[0], out
    assert not any((tmp_path / f"o{n}").exists() for n in range(1, 7))  # nothing half-written


def test_a_good_run_still_reports(tmp_path: Path) -> None:
    good = _run_dir(tmp_path / "good")
    code, out = _report(str(good), "--out", str(tmp_path / "rep"), "--replicates", "100")
    assert code == 0, out
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert summary["accuracy"]


def test_report_never_writes_into_a_foreign_folder_and_warns_on_other_datasets(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    cli = CliRunner()
    run = tmp_path / "run"
    args = ["run", str(tiny_dataset), "--judge", "builtin:first", "--probes", "J", "--out"]
    assert cli.invoke(app, [*args, str(run)]).exit_code == 0
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "summary.md").write_text("important")
    r = cli.invoke(app, ["report", str(run), "--out", str(docs), "--replicates", "100"])
    assert r.exit_code == 1 and "holds no earlier report" in r.output
    assert (docs / "summary.md").read_text() == "important"
    rep = tmp_path / "rep"
    assert (
        cli.invoke(app, ["report", str(run), "--out", str(rep), "--replicates", "100"]).exit_code
        == 0
    )
    again = cli.invoke(app, ["report", str(run), "--out", str(rep), "--replicates", "100"])
    assert again.exit_code == 0  # an earlier report is refreshed in place
    other = tmp_path / "other-ds"
    shutil.copytree(tiny_dataset, other)
    (other / "dataset.json").write_text(
        (other / "dataset.json").read_text().replace('"tiny"', '"tiny-2"')
    )
    assert cli.invoke(app, ["run", str(other), "--judge", "builtin:first", "--probes", "J",
                            "--out", str(tmp_path / "run2")]).exit_code == 0  # fmt: skip
    both = cli.invoke(
        app, ["report", str(run), str(tmp_path / "run2"), "--out", str(tmp_path / "r2"),
              "--replicates", "100"],
    )  # fmt: skip
    assert both.exit_code == 0 and "audited different datasets" in both.output
