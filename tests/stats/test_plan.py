"""The sample-size planner: exact power checked against simulation, a brute-force reference,
the reference figures of the offline-stack notes, pilots read from real run folders, and the
CLI's bad input."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.runfolder import write_rows
from paraudit.stats.judge_model import JudgeModel, audit_rows
from paraudit.stats.plan import (
    PairedRates,
    PlanError,
    binomial_power,
    check_rates,
    icc_of,
    mcnemar_power,
    plan_chance,
    plan_paired,
    rates_from,
)
from tests.runfolder.test_rows import row


def simulated_mcnemar(n: int, p10: float, p01: float, draws: int, seed: int) -> float:
    """Share of simulated audits whose exact McNemar test (scipy's binomtest) rejects."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=draws)
    rejects = 0
    for n10, n01, _ in counts:
        d = int(n10 + n01)
        rejects += d > 0 and binomtest(int(n10), d, 0.5).pvalue <= 0.05
    return rejects / draws


@pytest.mark.parametrize(
    ("n", "p10", "p01"), [(189, 0.15, 0.05), (189, 0.12, 0.08), (120, 0.25, 0.10)]
)
def test_mcnemar_power_agrees_with_a_simulation_within_two_points(
    n: int, p10: float, p01: float
) -> None:
    exact = mcnemar_power(n, PairedRates(p10, p01))
    assert abs(exact - simulated_mcnemar(n, p10, p01, 4000, seed=n)) < 0.02


def test_binomial_power_agrees_with_a_simulation() -> None:
    rng = np.random.default_rng(3)
    n, acc = 150, 0.6
    k = rng.binomial(n, acc, size=4000)
    sim = np.mean([binomtest(int(x), n, 0.5, alternative="greater").pvalue <= 0.05 for x in k])
    assert abs(binomial_power(n, acc, 0.5) - sim) < 0.02


def test_mcnemar_power_matches_a_brute_force_sum_over_every_outcome() -> None:
    """Every (n10, n01, rest) outcome of 30 items, weighted by its multinomial probability."""
    from scipy.stats import multinomial

    n, p10, p01 = 30, 0.3, 0.1
    total = 0.0
    for n10, n01 in itertools.product(range(n + 1), repeat=2):
        if n10 + n01 <= n and n10 + n01 > 0 and binomtest(n10, n10 + n01).pvalue <= 0.05:
            total += multinomial.pmf([n10, n01, n - n10 - n01], n, [p10, p01, 1 - p10 - p01])
    assert mcnemar_power(n, PairedRates(p10, p01)) == pytest.approx(total, abs=1e-9)


def test_the_offline_notes_reference_figures() -> None:
    """/work/shared/reference/offline-stack-notes.md: items for power 0.8, power at 189."""
    needed = {(0.15, 0.05): 168, (0.10, 0.02): 153, (0.20, 0.10): 249, (0.12, 0.08): 1021,
              (0.25, 0.05): 61}  # fmt: skip
    for (a, b), items in needed.items():
        assert plan_paired(PairedRates(a, b)).items == items
    assert round(mcnemar_power(189, PairedRates(0.15, 0.05)), 2) == 0.85
    assert round(mcnemar_power(189, PairedRates(0.12, 0.08)), 2) == 0.19


def test_the_answer_is_the_first_n_reaching_the_target() -> None:
    rates = PairedRates(0.2, 0.05)
    got = plan_paired(rates)
    assert got.items is not None and mcnemar_power(got.items, rates) >= 0.8
    assert all(mcnemar_power(k, rates) < 0.8 for k in range(got.items - 15, got.items))


def test_clustering_costs_items() -> None:
    alone = plan_chance(0.6, 0.5).items
    four = plan_chance(0.6, 0.5, per_item=4, icc=0.0).items
    clustered = plan_chance(0.6, 0.5, per_item=4, icc=0.5).items
    assert alone is not None and four is not None and clustered is not None
    assert four < clustered < alone
    # Perfectly correlated instances are one trial per item.
    assert plan_chance(0.6, 0.5, per_item=4, icc=1.0).items == alone
    # A judge at chance gives 0/1 outcomes with no item structure: ICC near 0; items whose
    # instances agree completely: ICC 1.
    rng = np.random.default_rng(0)
    coins = [(int(rng.binomial(4, 0.5)), 4) for _ in range(400)]
    assert icc_of(coins) < 0.1
    assert icc_of([(4, 4), (0, 4)] * 50) == pytest.approx(1.0)


def test_impossible_rates_are_refused() -> None:
    for bad in ((0.6, 0.5), (-0.1, 0.2), (0.1, 0.1)):
        with pytest.raises(PlanError):
            check_rates(*bad)
    with pytest.raises(PlanError):
        rates_from(0.3, 0.2)
    with pytest.raises(PlanError):
        plan_paired(PairedRates(0.15, 0.05), power=1.0)
    with pytest.raises(PlanError):
        plan_chance(0.5, 0.5)


def _plan(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["plan", *args], env={"COLUMNS": "200"})
    assert "Traceback" not in r.output, r.output
    return r.exit_code, r.output


def test_cli_answers_fast_and_bad_input_is_one_line_exit_2() -> None:
    t0 = time.perf_counter()
    code, out = _plan("regression", "--difference", "0.04", "--discordance", "0.2", "--at", "189")
    assert code == 0 and "1,021 items" in out and "power at 189 items: 0.186" in out, out
    code, out = _plan("cue", "--p10", "0.15", "--p01", "0.05", "--calls-per-item", "8")
    assert code == 0 and "calls: 1,344 (8 per item, as stated)" in out, out
    assert time.perf_counter() - t0 < 10
    for args, words in [
        (("protocol", "--p10", "0.6", "--p01", "0.5"), "p10 + p01 = 1.1 > 1"),
        (("protocol", "--p10", "0.15", "--p01", "0.05", "--power", "1"), "power 1 must be"),
        (("cue",), "needs --p10 X --p01 Y"),
        (("chance",), "needs --accuracy"),
        (("cue", "--p10", "0.2", "--p01", "0.1", "--price-judge", "x:y"), "add --pilot RUN"),
        (("protocols",), "choose one of chance, protocol, cue, regression"),
    ]:
        code, out = _plan(*args)
        errors = [line for line in out.splitlines() if line.startswith("error:")]
        assert code == 2 and len(errors) == 1 and words in errors[0], (args, out)


def _pilot(path: Path, model: JudgeModel, items: int, seed: int = 0) -> Path:
    rows = audit_rows(model, items, np.random.default_rng(seed))
    path.mkdir(parents=True)
    write_rows(path, [row(**r._asdict(), key=f"k{n}") for n, r in enumerate(rows)])
    return path


def test_a_pilot_sets_the_discordance_and_the_calls(tmp_path: Path) -> None:
    """A judge much better pairwise (0.9) than pointwise (0.6): the pilot's discordance drives
    the plan, and the calls are counted as the pilot asked them."""
    run = _pilot(tmp_path / "pilot", JudgeModel("m", j=0.6, j_pairwise=0.9), 60)
    code, out = _plan("protocol", "--pilot", str(run))
    assert code == 0, out
    assert "pilot: 60 items" in out and "items for power 0.8" in out and "calls: " in out
    code, out = _plan("chance", "--pilot", str(run))
    assert code == 0 and "J " in out and "intra-item correlation" in out, out
    code, out = _plan("regression", "--pilot", str(run))
    assert code == 2 and "takes 2 --pilot run(s)" in out
