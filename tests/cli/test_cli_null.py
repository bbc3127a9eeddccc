"""`paraudit run --probes …,N` through the real CLI: opt-in, pointwise, noted when alone."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.runfolder.rows import read_rows


def test_probe_n_alone_runs_and_says_what_it_cannot_report(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    args = ["run", str(tiny_dataset), "--judge", "builtin:first", "--probes", "N",
            "--protocols", "pairwise", "--cues", "none", "--out", str(out)]  # fmt: skip
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "N will run pointwise although --protocols is pairwise" in text
    assert "without --probes P or J it reports only confident and no-audio shares" in text
    rows = read_rows(out)
    assert rows and {r.probe for r in rows} == {"N"} and {r.protocol for r in rows} == {"pointwise"}
    assert {(r.asks, r.null) for r in rows} == {
        (a, k) for a in ("P", "J") for k in ("silence", "noise")
    }


def test_probe_n_is_opt_in(tiny_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", str(tiny_dataset), "--judge", "builtin:first", "--cues", "none",
            "--out", str(out)]  # fmt: skip
    assert CliRunner().invoke(app, args).exit_code == 0
    assert not any(r.probe == "N" for r in read_rows(out)) and not (out / "null_audio").exists()


def test_no_audio_replies_are_counted_apart_at_the_end_of_a_run(
    starter_small: Path, tmp_path: Path
) -> None:
    # real speech (a pure tone's "speech-shaped" noise is a narrow band that can still carry a
    # pitch, so the tiny tone dataset would not do)
    out = tmp_path / "run"
    args = ["run", str(starter_small), "--judge", "builtin:transcript?hears=speech", "--probes",
            "J,N", "--protocols", "pointwise", "--cues", "none", "--limit", "1",
            "--out", str(out)]  # fmt: skip
    r = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    rows = read_rows(out)
    n = [r for r in rows if r.probe == "N"]
    assert n and all(r.status == "no-audio" and r.raw for r in n)
    answered = len(rows) - len(n)
    assert f"({answered} answered, 0 unparsed, 0 refused, 0 errors, {len(n)} no-audio)" in r.output
