"""How `run --report` and `demo` end: one verdict per judge × task, at 80 columns, then the
report's path; the per-cell table only on request."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.cli.verdicts import stored_headlines, verdict_headlines, wrap

runner = CliRunner()


def _invoke80(*args: str) -> tuple[int, str]:
    r = runner.invoke(app, list(args), env={"COLUMNS": "80"})
    assert "Traceback" not in r.output, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def test_headline_is_the_typed_verdicts_own(tiny_dataset: Path, tmp_path: Path) -> None:
    import numpy as np

    from paraudit.stats.judge_model import JudgeModel, audit_rows
    from paraudit.stats.summary import summarize
    from paraudit.stats.summary_model import Summary

    rows = audit_rows(JudgeModel("perfect"), 40, np.random.default_rng(0))
    rows += audit_rows(JudgeModel("first", first=True), 40, np.random.default_rng(0))
    summary = summarize(rows, replicates=200)
    assert (
        stored_headlines(summary)
        == verdict_headlines(Summary.of(summary))
        == [
            "first · single-turn-emotions: Not usable natively (J 50.0% [50.0%–50.0%], at "
            "chance): position-biased towards the first option (J pointwise 100.0% first-option "
            "picks, J pairwise 100.0% first-option picks, O pointwise 100.0% first-option picks "
            "and 1 more).",
            "perfect · single-turn-emotions: Reliable natively: J 100.0% [100.0%–100.0%], lower "
            "bound ≥ 80 % (cue none).",
        ]
    )


def test_an_old_summarys_headline_is_the_first_sentence_of_its_text() -> None:
    summary = {
        "schema": "paraudit.summary/2",
        "verdicts": [
            {
                "judge": "builtin:first",
                "task": "positional-emotion",
                "text": "[34 items] At chance (J 50.0%, CI 50.0%–50.0%): not interpretable. "
                "Position-biased towards the first option (J pairwise none 100.0%).",
            },
            {"judge": "j2", "task": "t", "text": "[3 items] Reliable 66.2% of units. J 76.5%."},
        ],
    }
    assert stored_headlines(summary) == [
        "builtin:first · positional-emotion: At chance (J 50.0%, CI 50.0%–50.0%): not "
        "interpretable.",
        "j2 · t: Reliable 66.2% of units.",
    ]


def test_wrap_breaks_at_spaces_only_and_indents_continuations() -> None:
    line = "builtin:transcript · single-turn-emotions: " + "word " * 30 + "/a/very/long/path" * 6
    parts = wrap(line, 80)
    assert all(len(p) <= 80 for p in parts[:-1])  # the last: a path longer than a line, whole
    assert all(p.startswith("    ") for p in parts[1:])
    assert " ".join(p.strip() for p in parts) == " ".join(line.split())


def _tokens(text: str) -> set[str]:
    return set(text.split())


def test_demo_ends_with_one_verdict_per_judge_and_task(tiny_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "demo"
    out.mkdir()
    shutil.copytree(tiny_dataset, out / "starter")  # reused, not rebuilt: the test stays fast
    code, text = _invoke80("demo", "--out", str(out))
    assert code == 0, text
    summary = json.loads((out / "report" / "summary.json").read_text())
    headlines = stored_headlines(summary)
    # Four judges and builtin:prosody again with its clips joined, × two tasks.
    assert len(headlines) == len(summary["verdicts"]) == 5 * 2
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("verdicts ("))
    end = next(n for n, line in enumerate(lines) if line.startswith("✓ diagnostic report → "))
    # the demo asks probe N too: its one line comes after the verdicts
    null = next(n for n, line in enumerate(lines) if line.startswith("null audio (probe N): "))
    assert start < null < end and "answers without audio: builtin:first" in text
    entries = [line for line in lines[start + 1 : null] if not line.startswith("    ")]
    # ... then the same prosody judge with its clips separate vs joined.
    joined = next(n for n, line in enumerate(lines) if line.startswith("clips separate → joined"))
    assert null < joined < end and "no change in J" in lines[end - 1], lines[joined:end]
    assert entries == [h[: len(e)] for h, e in zip(headlines, entries, strict=True)]
    # The report's order, not the summary's: the judges under audit first, the controls last,
    # entry for entry as in summary.md (it once listed the at-chance controls first).
    judges = [e.split(" · ", 1)[0] for e in entries]
    assert set(judges[:4]) == {"builtin:prosody", "builtin:prosody?clips=joined"}, judges
    assert set(judges[4:]) == {"builtin:first", "builtin:random", "builtin:transcript"}, judges
    assert [v["judge"] for v in summary["verdicts"]][:2] == ["builtin:first"] * 2  # stored order
    # The judge under audit was asked first and its verdicts printed before the controls were
    # asked: the same entries as in the closing block, computed from its rows alone.
    early = next(n for n, line in enumerate(lines) if line.startswith("first verdicts (2;"))
    assert early < start and text.count("judge calls made") == 2
    firsts = [line for line in lines[early + 1 : early + 30] if line.startswith("builtin:")]
    assert firsts[:2] == [e for e in entries if e.startswith("builtin:prosody · ")]
    history = json.loads((out / "run" / "run.json").read_text())["history"]
    assert [h["event"] for h in history] == ["created", "extended"]
    md = (out / "report" / "summary.md").read_text(encoding="utf-8").splitlines()
    listed = [m.removeprefix("- **").replace("** · ", " · ") for m in md if m.startswith("- **")]
    assert [e.split(":", 2)[:2] for e in entries] == [x.split(":", 2)[:2] for x in listed[:10]]
    assert str(out / "report" / "report.html") in "".join(lines[end:])  # the last thing said
    assert all(len(line) <= 80 for line in lines[start:end])
    # Nothing cut mid-word: every word of every headline is printed whole.
    assert all(w in _tokens(text) for h in headlines for w in h.split())
    assert "accuracy (strict)" not in text  # the per-cell table only with --table
    code, text = _invoke80("demo", "--out", str(out), "--table")
    assert code == 0, text
    assert text.index("J1 = ") < text.index("accuracy (strict)") < text.index("verdicts (")


def test_run_report_ends_with_verdicts_and_refuses_the_run_folder(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    run, report = tmp_path / "run", tmp_path / "report"
    base = ["run", str(tiny_dataset), "--judge", "builtin:first", "--probes", "J,P,O"]
    code, text = _invoke80(*base, "--out", str(run), "--report", str(run))
    assert code != 0 and "--report must be another folder than --out" in text
    assert not run.exists()  # refused before any call
    code, text = _invoke80(*base, "--out", str(run), "--report", str(report))
    assert code == 0, text
    assert (report / "report.html").is_file()
    assert "verdicts (2, one per judge × task" in text
    assert "builtin:first · positional-emotion: " in text
    assert "accuracy (strict)" not in text
    code, text = _invoke80(*base, "--out", str(run))  # no report: the table and the next step
    assert code == 0, text
    assert "accuracy (strict)" in text and "verdicts (" not in text
    assert f"paraudit report {run} --out REPORT_DIR" in " ".join(text.split())


def test_an_invariance_run_prints_its_own_line_before_the_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paraudit.cli.verdicts import print_verdicts
    from paraudit.stats.summary import summarize
    from paraudit.stats.summary_model import Summary
    from tests.stats.test_invariance import pitch_follower, rows_of

    summary = Summary.of(summarize(rows_of(pitch_follower, 12), replicates=100))
    (tmp_path / "summary.json").write_text(summary.to_json())
    print_verdicts(tmp_path)
    out = capsys.readouterr().out
    assert out.index("invariance (") < out.index("verdicts (")
