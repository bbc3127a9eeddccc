"""`paraudit run`, `judges` and `demo` through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.runfolder import read_rows
from paraudit.stats.accuracy import read_results, summary_table

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert "Traceback" not in r.output, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def test_dry_run_prints_plan_size(starter_small: Path, tmp_path: Path) -> None:
    code, out = _run(
        "run",
        str(starter_small),
        "--judge",
        "builtin:random",
        "--out",
        str(tmp_path / "r"),
        "--dry-run",
    )
    assert code == 0 and "instances_per_judge" in out and "audio_seconds_per_judge" in out
    assert not (tmp_path / "r" / "results.jsonl").exists()


def test_bad_probe_and_judge_typo(starter_small: Path, tmp_path: Path) -> None:
    code, out = _run(
        "run",
        str(starter_small),
        "--judge",
        "builtin:random",
        "--out",
        str(tmp_path / "r"),
        "--probes",
        "J,X",
    )
    assert code == 1 and "unknown probe 'X'" in out
    code, out = _run(
        "run", str(starter_small), "--judge", "builtin:frist", "--out", str(tmp_path / "r")
    )
    assert code == 1 and "did you mean 'first'" in out


def test_judges_lists_backends() -> None:
    code, out = _run("judges")
    assert code == 0 and "builtin:prosody" in out


def test_run_writes_results_and_spec(starter_small: Path, tmp_path: Path) -> None:
    code, out = _run(
        "run",
        str(starter_small),
        "--judge",
        "builtin:first",
        "--out",
        str(tmp_path / "r"),
        "--orders",
        "one",
    )
    assert code == 0, out
    spec = json.loads((tmp_path / "r" / "run.json").read_text())
    assert spec["judges"] == ["builtin:first"] and spec["plan"]["orders"] == "one"
    rows = read_results(tmp_path / "r")
    need = {
        "judge",
        "task",
        "item_id",
        "branch",
        "probe",
        "protocol",
        "cue",
        "order",
        "pred",
        "gold",
        "status",
        "correct",
        "raw",
        "latency_s",
        "attempts",
    }
    assert need <= set(rows[0])


def test_demo_meets_its_done_criteria(tmp_path: Path, render_cache: Path) -> None:
    """The README's main job as a user runs it: the quick stratified subset (the conclusions
    asserted here are the full set's), four judges, every probe and cue."""
    code, out = _run("demo", "--out", str(tmp_path / "demo"), "--cache", str(render_cache))
    assert code == 0, out
    assert "diagnostic report" in out and (tmp_path / "demo" / "report" / "report.html").is_file()
    # The first verdict comes before the controls are asked: the judge under audit's, the same
    # entries the closing block lists first (it lists what needs attention first).
    early = out.index("first verdicts (2;")
    assert early < out.index("judge calls made", early) < out.index("verdicts (10,")
    block = out[out.index("verdicts (10,") :].splitlines()[1:]
    entries = [line for line in block if line.startswith("builtin:")]
    section = out[early : out.index("judge calls made", early)].splitlines()[1:]
    firsts = [line for line in section if line.startswith("builtin:")]
    assert firsts == entries[:2] and all(e.startswith("builtin:prosody · ") for e in firsts)
    assert all(e.startswith(("builtin:first", "builtin:random", "builtin:transcript"))
               for e in entries[4:])  # fmt: skip
    rows = read_results(tmp_path / "demo" / "run")
    table = summary_table(read_rows(tmp_path / "demo" / "run"))
    assert all(c["unparsed_rate"] == 0 and c["errors"] == 0 for c in table)
    transcript = [
        c
        for c in table
        if c["judge"] == "builtin:transcript" and c["probe"] == "J" and c["protocol"] == "pointwise"
    ]
    assert transcript and all(c["ci_low"] <= 0.5 <= c["ci_high"] for c in transcript)
    first = [
        r["pred"] for r in rows if r["judge"] == "builtin:first" and isinstance(r["pred"], str)
    ]
    assert set(first) == {"R1"}
    prosody_p = next(
        c
        for c in table
        if c["judge"] == "builtin:prosody"
        and c["probe"] == "P"
        and c["task"] == "single-turn-emotions"
    )
    assert prosody_p["accuracy"] >= 0.85
    summary = json.loads((tmp_path / "demo" / "report" / "summary.json").read_text())
    # The transcript control is reported as what it can measure, never as an accuracy.
    for t in summary["transcript_control"]:
        assert {"order_consistency", "prefers_branch_0", "j_t_agreement"} <= set(t)
    assert "must sit near 50" not in (tmp_path / "demo" / "report" / "report.html").read_text()
    verdicts = {(v["judge"], v["task"]): v for v in summary["verdicts"]}
    # Probe N runs in the demo: the judges that answer from the text alone (always R1, the
    # words) answer the same without audio; the coin and the acoustic judge do not.
    null = {(c["judge"], c["asks"], c["null"]): c["answers_without_audio"]
            for c in summary["null_audio"] if c["task"] == "single-turn-emotions"}  # fmt: skip
    assert len(null) == 5 * 2 * 2  # four judges and prosody joined × asks × null kinds
    for (judge, _, _), flagged in null.items():
        assert flagged == (judge in ("builtin:first", "builtin:transcript")), judge
    assert "null audio (probe N): answers without audio: builtin:first" in out
    # The habits of the judges without skill are named: always R1, and the words alone.
    for task in ("single-turn-emotions", "positional-emotion"):
        first, words = verdicts[("builtin:first", task)], verdicts[("builtin:transcript", task)]
        assert first["kind"] == "at chance" and first["diagnosis"] == "position-biased", first
        # The words alone: deaf to the audio. Its J ties are broken per item (by the item's
        # words), not always towards R1, so no J position habit stands in for the deafness
        # (its positional P answers, E1 for every turn, are a habit listed on P only).
        assert words["kind"] == "at chance" and words["diagnosis"] == "ignores the audio", words
        habits = [b for b in words["behaviours"] if b["kind"] == "position-biased"]
        assert all("J" not in b["probes"] for b in habits), words
        # A guessing judge is never reliable nor given a systematic failure mode (its steps
        # decide at 99 %, so a named skill is rare; which audits depends on the bytes it hashes).
        v = verdicts[("builtin:random", task)]
        assert v["diagnosis"] not in ("reliable", "usable, systematic failure mode"), v["text"]
    # The prosody judge hears the single-turn cue: above chance natively.
    prosody = verdicts[("builtin:prosody", "single-turn-emotions")]
    assert prosody["kind"] == "above chance" and prosody["j_accuracy"]["ci_low"] > 0.5, prosody
    # The same judge with its clips joined: it cuts the parts out of the joined clip again,
    # so joining changes none of its J answers, and the demo and the report say so.
    joined = json.loads((tmp_path / "demo" / "report" / "joined.json").read_text())
    assert {(r["task"], t["protocol"]) for r in joined for t in r["j"]} == {
        (task, p) for task in ("single-turn-emotions", "positional-emotion")
        for p in ("pointwise", "pairwise")
    }  # fmt: skip
    assert all(t["delta"] == 0 and not t["changes"] for r in joined for t in r["j"]), joined
    assert "clips separate → joined, builtin:prosody" in out and "no change in J" in out
    assert "Harness: the same judge" in (tmp_path / "demo" / "report" / "report.html").read_text()
    sent = [r for r in rows if r["judge"] == "builtin:prosody?clips=joined" and r["probe"] == "J"]
    assert sent and all(r["usage"]["joined"]["clips"] == "joined" for r in sent)


def _run80(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args), env={"COLUMNS": "80"})
    assert "Traceback" not in r.output, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def test_calls_ending_in_errors_exit_non_zero_with_the_resume_command(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    judge = "builtin:random?fail_rate=1&fail_times=99"
    code, text = _run80(
        "run",
        str(tiny_dataset),
        "--judge",
        judge,
        "--out",
        str(out),
        "--probes",
        "J",
        "--max-attempts",
        "1",
    )
    assert code == 1
    assert "questions ended in call errors" in text and "injected failure" in text
    assert f"paraudit run {tiny_dataset} --out {out} --judge" in text and "--probes=J" in text
    assert "no answers" in text  # a cell of errors only is not "0 %"
    rows = read_results(out)  # the error rows are kept, for the report to show
    assert rows and {r["status"] for r in rows} == {"error"}


def test_summary_fits_80_columns(tiny_dataset: Path, tmp_path: Path) -> None:
    long_judge = "builtin:random?seed=12345678901234567890&calllog=" + str(tmp_path / "log")
    code, text = _run80(
        "run",
        str(tiny_dataset),
        "--judge",
        long_judge,
        "--judge",
        "builtin:first",
        "--out",
        str(tmp_path / "r"),
        "--probes",
        "J,P,O",
    )
    assert code == 0, text
    # The legend first: a table longer than the screen cannot scroll it away.
    assert text.index("J1 = ") < text.index("R1%: share") < text.index("accuracy (strict)")
    table = text[text.index("accuracy (strict)") : text.index("paraudit report")]
    assert all(len(line) <= 80 for line in table.splitlines())
    assert "…" not in table
    assert "single" in table and "position" in table and "point" in table
    assert "J2 = builtin:random?seed=12345678901234567890" in text and "J1 = builtin:first" in text


def test_bad_limits_and_empty_plans_are_clear_errors(tiny_dataset: Path, tmp_path: Path) -> None:
    base = ["run", str(tiny_dataset), "--judge", "builtin:random", "--out", str(tmp_path / "r")]
    cases = {
        ("--rpm", "0"): "--rpm must be more than 0",
        ("--timeout", "-1"): "--timeout must be more than 0",
        ("--probes", "S"): "add P (--probes P,S)",
        ("--probes", "T", "--cues", "hard"): "the plan has no questions",
        ("--probes", "J,J"): "probe J given twice",
    }
    for extra, message in cases.items():
        code, text = _run80(*base, *extra)
        assert code == 1 and message in text, (extra, text)
    for spec, message in {
        "builtin:random?rpm=abc": "rpm='abc' must be a number",
        "builtin:random?timeout=-5": "timeout='-5' must be > 0",
        "builtin:random?tpm=0": "tpm='0' must be > 0",
        "builtin:random?max_audio_seconds=lots": "max_audio_seconds='lots' must be a number",
        "builtin:random?temperature=hot": "temperature='hot' must be a number",
        "builtin:random?rpm=1&rpm=2": "sets option 'rpm' twice",
    }.items():
        code, text = _run80("run", str(tiny_dataset), "--judge", spec, "--out", str(tmp_path / "x"))
        # A malformed spec is a usage mistake: exit 2, as for a bad flag (issue 18).
        assert code == 2 and message in text, (spec, text)
    assert not (tmp_path / "r").exists() and not (tmp_path / "x").exists()


def test_report_labels_runs_with_shared_basenames_and_refuses_one_twice(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    for name in ("x1", "x2"):
        code, text = _run80(
            "run",
            str(tiny_dataset),
            "--judge",
            "builtin:random",
            "--out",
            str(tmp_path / name / "run"),
            "--probes",
            "J,P,O,T",
        )
        assert code == 0, text
    a, b = str(tmp_path / "x1" / "run"), str(tmp_path / "x2" / "run")
    code, text = _run80("report", a, b, "--out", str(tmp_path / "rep"), "--replicates", "200")
    assert code == 0, text
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    judges = {row["judge"] for row in summary["accuracy"]}
    assert judges == {"builtin:random [x1/run]", "builtin:random [x2/run]"}
    # T has no right answer, so no accuracy row: every other row is counted once.
    n = sum(r["probe"] != "T" for r in read_results(tmp_path / "x1" / "run"))
    pooled = [
        r for r in summary["accuracy"] if r["judge"].endswith("[x1/run]") and r["cue"] == "all"
    ]
    assert sum(r["n"] for r in pooled) == n  # nothing doubled
    code, text = _run80("report", a, a, "--out", str(tmp_path / "rep2"))
    assert code == 1 and "given twice" in text
    code, text = _run80(
        "report",
        a,
        b,
        "--label",
        "old",
        "--label",
        "new",
        "--out",
        str(tmp_path / "rep3"),
        "--replicates",
        "200",
    )
    assert code == 0, text
    summary = json.loads((tmp_path / "rep3" / "summary.json").read_text())
    assert {row["judge"] for row in summary["accuracy"]} == {
        "builtin:random [old]",
        "builtin:random [new]",
    }


def test_run_folder_faults_are_one_line_each(tiny_dataset: Path, tmp_path: Path) -> None:
    base = ["run", str(tiny_dataset), "--judge", "builtin:random", "--probes", "J"]
    (tmp_path / "file").write_text("x")
    code, text = _run80(*base, "--out", str(tmp_path / "file"))
    assert code == 1 and "is a file" in text
    out = tmp_path / "r"
    assert _run80(*base, "--out", str(out))[0] == 0
    (out / "calls.sqlite").write_bytes(b"garbage" * 500)
    for p in out.glob("calls.sqlite-*"):
        p.unlink()
    code, text = _run80(*base, "--out", str(out))
    assert code == 1 and "not a readable call store" in text and "move it aside" in text
    (out / "run.json").write_text("{half")
    code, text = _run80(*base, "--out", str(out))
    assert code == 1 and "run.json is unreadable" in text
    code, text = _run80(*base, "--out", str(tmp_path / "new"), "--judge", "builtin:random")
    assert code == 0 and "given twice; asked once" in text


def test_pointwise_only_probes_are_noted_when_pointwise_is_left_out(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    base = ["run", str(tiny_dataset), "--judge", "builtin:first", "--protocols", "pairwise"]
    note = "note: probe T is asked pointwise only: T will run pointwise although --protocols is"
    code, out = _run(*base, "--probes", "J,T", "--out", str(tmp_path / "dry"), "--dry-run")
    assert code == 0 and note in out, out
    code, out = _run(*base, "--probes", "J,T", "--out", str(tmp_path / "run"))
    assert code == 0 and note in out, out
    rows = read_results(tmp_path / "run")
    assert {r["protocol"] for r in rows if r["probe"] == "T"} == {"pointwise"}  # what it says
    code, out = _run(*base, "--probes", "P,O,T", "--out", str(tmp_path / "both"), "--dry-run")
    assert code == 0 and "probes P and T are asked pointwise only" in out, out
    for probes, protocols in (("J,O", "pairwise"), ("J,T", "pointwise,pairwise")):
        code, out = _run(
            "run", str(tiny_dataset), "--judge", "builtin:first", "--probes", probes,
            "--protocols", protocols, "--out", str(tmp_path / probes), "--dry-run",
        )  # fmt: skip
        assert code == 0 and "pointwise only" not in out, out


def test_limit_is_a_quick_trial_of_every_task(starter_small: Path, tmp_path: Path) -> None:
    """--limit 1 on the starter set (listed task by task) asks one item of each task."""
    out = tmp_path / "r"
    code, text = _run(
        "run", str(starter_small), "--judge", "builtin:first", "--probes", "J", "--limit", "1",
        "--protocols", "pairwise", "--out", str(out),
    )  # fmt: skip
    assert code == 0, text
    rows = read_results(out)
    tasks = {r["task"] for r in rows}
    assert tasks == {"single-turn-emotions", "positional-emotion"}
    assert len({r["item_id"] for r in rows}) == 2
