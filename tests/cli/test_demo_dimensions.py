"""`paraudit demo --dimension all` (and NAME): every dimension audited offline with a tiny limit,
progress lines, the verdicts per dimension, the next block; bad input refused in one line."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from paraudit.cli.demo_dimensions import judges_for, wanted
from tests.builders.conftest import cli

NAMES = ("emotion", "urgency", "hesitation", "whisper", "emphasis", "sarcasm")


def test_demo_all_audits_every_dimension(tmp_path: Path, render_cache: Path) -> None:
    out = tmp_path / "demo"
    code, output = cli(
        "demo", "--dimension", "all", "--limit", "1", "--out", str(out), "--cache",
        str(render_cache),
    )  # fmt: skip
    assert code == 0, output
    assert wanted("all") == list(NAMES)
    lines = output.splitlines()
    # One progress line per dimension, in order, before its build.
    steps = [line for line in lines if line.startswith("[") and "/6] " in line]
    assert steps == [f"[{k}/6] {n}" for k, n in enumerate(NAMES, start=1)]
    block = lines[lines.index("verdicts per dimension (diagnosis per judge; each report "
                              "explains them):") + 1 : lines.index("next:")]  # fmt: skip
    heads = [line for line in block if not line.startswith("    ")]
    assert [h.split(":")[0].strip() for h in heads] == list(NAMES)
    assert all("a sketch" in h for h in heads)  # one item: never a firm verdict
    for name in NAMES:
        summary = json.loads((out / name / "report" / "summary.json").read_text())
        assert (out / name / "report" / "report.html").is_file()
        rows = (out / name / "run" / "results.jsonl").read_text().splitlines()
        assert {json.loads(r)["judge"] for r in rows} == set(judges_for(name))
        tasks = {v["task"] for v in summary["verdicts"]}
        assert len(summary["verdicts"]) == 4 * len(tasks)
        if name != "emotion":
            assert tasks == {f"single-turn-{name}"}
        # The diagnosis each judge got is the one printed for it.
        for v in summary["verdicts"]:
            label = f" ({v['task'].rsplit('-', 1)[0]})" if len(tasks) > 1 else ""
            assert any(
                line.split() == [v["judge"], *f"{v['diagnosis']}{label}".split()] for line in block
            ), (v["judge"], v["diagnosis"], block)
        # Always R1 is never read as skill, in any dimension.
        first = [v for v in summary["verdicts"] if v["judge"] == "builtin:first"]
        assert all(v["diagnosis"] == "position-biased" for v in first), first
    nxt = lines[lines.index("next:") + 1 :]
    commands = [shlex.split(line, comments=True) for line in nxt]
    run = next(c for c in commands if c[:2] == ["paraudit", "run"])
    assert Path(run[2]) == out / "urgency" / "starter"
    opened = [c[3] for c in commands if c[:3] == ["python3", "-m", "webbrowser"]]
    assert len(opened) == len(NAMES)
    assert ["paraudit", "build", "starter", "--dimension", "urgency"] in [c[:5] for c in commands]


def test_a_rerun_reuses_the_sets_and_one_name_audits_one(
    tmp_path: Path, render_cache: Path
) -> None:
    out = tmp_path / "demo"
    args = ("demo", "--dimension", "whisper", "--limit", "1", "--out", str(out), "--cache",
            str(render_cache))  # fmt: skip
    code, output = cli(*args)
    assert code == 0, output
    assert [p.name for p in out.iterdir()] == ["whisper"]
    assert "builtin:whisper" in output and "[1/1] whisper" in output
    code, again = cli(*args)
    assert code == 0 and f"reusing {out / 'whisper' / 'starter'}" in again


def test_bad_dimension_input_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    for args, words in (
        (("--dimension", "whisperr"), "whisper"),
        (("--dimension", "whisper", "--full"), "--limit"),
        (("--dimension", "whisper", "--limit", "0"), "--limit"),
    ):
        code, output = cli("demo", *args, "--out", str(out))
        assert code == 2, output
        assert words in output
        assert not out.exists()
