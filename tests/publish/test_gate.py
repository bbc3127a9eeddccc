"""The CI gate: rules parse (or are refused with their corrected form), verdict rules pass and
fail as the verdicts imply, and the regression rule is checked by simulation over a family of
judges."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.publish.gate import RuleError, check_regression, parse_rule
from paraudit.stats.judge_model import JudgeModel, audit_rows
from tests.publish.conftest import model_run


def _gate(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["gate", *args], env={"COLUMNS": "200"})
    assert "Traceback" not in r.output, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def test_rules_parse_to_their_canonical_form() -> None:
    assert parse_rule("native>=usable").value == "usable"
    assert parse_rule("Native >= At chance").text == "native>=at-chance"
    assert parse_rule("diagnosis!=Potemkin").value == "Potemkin"
    assert parse_rule("no-behaviour=answers-without-audio").value == "answers without audio"
    assert parse_rule("regression<=2.5pp").margin == pytest.approx(0.025)


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("native>usable", "native>=usable"),
        ("native=>usable", "native>=usable"),
        ("native>=usabel", "native>=usable"),
        ("nativ>=usable", "native>=usable"),
        ("no-behavior=answers without audio", "no-behaviour=answers-without-audio"),
        ("regression<=3", "regression<=3pp"),
        ("regression<3pp", "regression<=3pp"),
    ],
)
def test_a_rule_that_does_not_parse_names_its_corrected_form(text: str, fixed: str) -> None:
    with pytest.raises(RuleError, match=f"did you mean '{fixed}'"):
        parse_rule(text)


def test_bad_rules_are_one_line_and_exit_2(tmp_path: Path) -> None:
    run = model_run(tmp_path / "run", [JudgeModel("perfect")], 20)
    before = sorted(p.name for p in run.iterdir())
    for args, words in [
        (["--require", "native>usable"], "did you mean 'native>=usable'?"),
        (["--require", "regression<=3pp"], "add --baseline RUN0"),
        (["--require", "native>=usable", "--baseline", str(run)], "only by a regression rule"),
        (["--require", "native>=usable", "--judge", "nobody"], "is not in"),
        ([], "at least one --require"),
    ]:
        code, out = _gate(str(run), *args)
        errors = [line for line in out.splitlines() if line.startswith("error:")]
        assert code == 2 and len(errors) == 1 and words in errors[0], (args, out)
    assert sorted(p.name for p in run.iterdir()) == before  # nothing written


def test_verdict_rules_on_simulated_judges(tmp_path: Path) -> None:
    models = [JudgeModel("perfect"), JudgeModel("coin", p=0.5, o=0.5, j=0.5),
              JudgeModel("first", first=True)]  # fmt: skip
    run = model_run(tmp_path / "run", models, 60)
    code, out = _gate(str(run), "--require", "native>=usable", "--judge", "perfect",
                      "--replicates", "500")  # fmt: skip
    assert code == 0 and out.startswith("native>=usable: pass (1 judge × task"), out
    code, out = _gate(str(run), "--require", "native>=usable", "--replicates", "500")
    assert code == 1 and "2 of 3" in out and "coin" in out and "first" in out, out
    code, out = _gate(str(run), "--require", "no-behaviour=position-biased",
                      "--require", "native>=at-chance", "--replicates", "500")  # fmt: skip
    lines = out.splitlines()
    assert code == 1 and len(lines) == 2, out
    assert lines[0].startswith("no-behaviour=position-biased: FAIL (1 of 3: first")
    assert lines[1].startswith("native>=at-chance: pass")


def test_the_demo_judges_pass_and_fail_as_their_verdicts_imply(
    small_run: Path, small_report: Path
) -> None:
    """The report's own verdicts (written by `paraudit report`'s code path) say what each rule
    must answer for each of the demo's judges; the gate, through the CLI, must agree."""
    summary = json.loads((small_report / "summary.json").read_text())
    usable = {"usable", "reliable"}
    judges = sorted({v["judge"] for v in summary["verdicts"]})
    assert len(judges) == 4
    for judge in judges:
        mine = [v for v in summary["verdicts"] if v["judge"] == judge]
        want_native = all(v["native"]["outcome"] in usable for v in mine)
        biased = any(b["kind"] == "position-biased" for v in mine for b in v["behaviours"])
        code, out = _gate(str(small_run), "--judge", judge, "--replicates", "2000",
                          "--require", "native>=usable")  # fmt: skip
        assert code == (0 if want_native else 1), (judge, out)
        code, out = _gate(str(small_run), "--judge", judge, "--replicates", "2000",
                          "--require", "no-behaviour=position-biased")  # fmt: skip
        assert code == (1 if biased else 0), (judge, out)
    # builtin:first always picks R1: position-biased whatever the sample size.
    code, out = _gate(str(small_run), "--judge", "builtin:first", "--replicates", "2000",
                      "--require", "no-behaviour=position-biased")  # fmt: skip
    assert code == 1 and "FAIL" in out


def _rows(model: JudgeModel, items: int, seed: int) -> list:  # type: ignore[type-arg]
    return audit_rows(model, items, np.random.default_rng(seed), cues=("none",))


@pytest.mark.parametrize("skill", [0.6, 0.8, 0.95])
def test_regression_rule_by_simulation_over_a_judge_family(skill: float) -> None:
    """Unchanged judges (two independent audits of the same skill) trip the gate rarely; a
    20-point drop at 120 items trips it almost always."""
    rule = parse_rule("regression<=3pp")
    same = drops = 0
    runs = 30
    for k in range(runs):
        base = _rows(JudgeModel("j", j=skill), 120, 2 * k)
        again = _rows(JudgeModel("j", j=skill), 120, 2 * k + 1)
        worse = _rows(JudgeModel("j", j=skill - 0.2), 120, 2 * k + 1)
        same += not check_regression(rule, base, again, [("j", "j")], replicates=200).passed
        drops += not check_regression(rule, base, worse, [("j", "j")], replicates=200).passed
    assert same / runs <= 0.1
    assert drops / runs >= 0.9
