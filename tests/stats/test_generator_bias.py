"""The generator-bias check (paper §5.3): scripted judges through the real runner on two sets
built offline by two loopback generators of different families; the pairing by source record;
the refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr

from paraudit.report.build import load_runs
from paraudit.stats.generator_bias import (
    AuditSet,
    GeneratorCheckError,
    generator_check,
    interaction_line,
    judge_family,
    kendall_tau_b,
    read_set,
    spearman_rows,
)
from tests.stats.generator_sets import GeneratorRuns, by_judge, make_runs, only
from tests.stats.synthetic import Row, row

SKILL_ONLY = {"known:gemini-perfect", "known:gpt-noise25", "known:qwen-noise10", "builtin:first"}
ALIGNED = {"known:gemini-own", "known:gpt-perfect", "known:qwen-noise10", "builtin:first"}


@pytest.mark.parametrize(
    ("label", "family"),
    [
        ("gemini:gemini-2.5-pro", "google"),
        ("gemini:some-tuned-model", "google"),
        ("openai:gpt-4o-audio-preview", "openai"),
        ("openai:gpt-4o?temperature=0", "openai"),
        ("openai:Qwen/Qwen2-Audio-7B-Instruct@http://127.0.0.1:8000/v1", "qwen"),
        ("hf:Qwen/Qwen2.5-Omni-7B", "qwen"),
        ("gemini:gemini-2.5-flash [run-b]", "google"),  # a report's run suffix
        ("builtin:prosody", None),
        ("builtin:gpt-lookalike", None),
        ("openai:my-finetune", None),
    ],
)
def test_judge_family_from_its_spec(label: str, family: str | None) -> None:
    assert judge_family(label) == family


def test_tau_and_rho_per_row_equal_scipy() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, (40, 5)).astype(float)  # ties on purpose: τ-b and average ranks
    y = rng.integers(0, 4, (40, 5)).astype(float)
    x[0] = 1.0  # a constant row has no ranking
    tau, rho = kendall_tau_b(x, y), spearman_rows(x, y)
    assert np.isnan(tau[0]) and np.isnan(rho[0])
    for r in range(1, 40):
        assert tau[r] == pytest.approx(kendalltau(x[r], y[r]).statistic, abs=1e-12)
        assert rho[r] == pytest.approx(spearmanr(x[r], y[r]).statistic, abs=1e-12)


@pytest.fixture(scope="module")
def gen_runs(tmp_path_factory: pytest.TempPathFactory) -> GeneratorRuns:
    return make_runs(tmp_path_factory.mktemp("generators"))


def _check(g: GeneratorRuns, judges: set[str]) -> dict[str, Any]:
    a, b = read_set(g.runs["gpt"], "A"), read_set(g.runs["gemini"], "B")
    rows_a, rows_b = load_runs([g.runs["gpt"]]), load_runs([g.runs["gemini"]])
    return generator_check(only(rows_a, judges), only(rows_b, judges), a, b, replicates=2000)


def test_the_sets_share_the_sources_both_generators_kept(gen_runs: GeneratorRuns) -> None:
    a, b = read_set(gen_runs.runs["gpt"]), read_set(gen_runs.runs["gemini"])
    assert (a.family, b.family) == ("openai", "google")
    assert (a.generator, b.generator) == ("openai:gpt-4o-mini", "openai:gemini-2.0-flash")
    # The gpt generator refused the 4 train sentences; the rest were composed by both.
    result = _check(gen_runs, SKILL_ONLY)
    assert (result["sources_a"], result["sources_b"], result["shared_sources"]) == (20, 24, 20)
    assert len(result["cells"]) == 2  # pointwise and pairwise, cue none
    for cell in result["cells"]:
        assert (cell["sources_a"], cell["sources_b"], cell["shared_sources"]) == (20, 24, 20)


def test_skill_that_ignores_the_generator_shows_no_alignment(gen_runs: GeneratorRuns) -> None:
    result = _check(gen_runs, SKILL_ONLY)
    for cell in result["cells"]:
        lines = [i["line"] for i in cell["interaction"]]
        assert [i["family"] for i in cell["interaction"]] == ["openai", "google"]
        assert all(line.startswith("no sign of generator alignment") for line in lines), lines
        tau = cell["ranking"]["kendall_tau"]
        assert tau["ci_low"] <= 1.0 <= tau["ci_high"]
        assert cell["ranking"]["order_a"] == cell["ranking"]["order_b"]
        judges = by_judge(cell)
        assert judges["known:gemini-perfect"]["accuracy_a"]["value"] == 1.0
        assert judges["builtin:first"]["family"] is None


def test_a_judge_right_only_on_its_own_family_is_named(gen_runs: GeneratorRuns) -> None:
    result = _check(gen_runs, ALIGNED)
    for cell in result["cells"]:
        lines = {i["family"]: i for i in cell["interaction"]}
        google = lines["google"]
        assert google["judges"] == ["known:gemini-own"]
        assert google["compared_with"] == ["builtin:first", "known:qwen-noise10"]
        assert google["did"]["ci_low"] > 0, google
        assert google["line"].startswith("google judges gain +"), google["line"]
        assert "more on the google-composed set than other judges" in google["line"]
        # The gpt judge is as good on both sets: no alignment for its family.
        assert lines["openai"]["line"].startswith("no sign of generator alignment")
        own = by_judge(cell)["known:gemini-own"]
        assert own["accuracy_b"]["value"] == 1.0 and own["difference"]["ci_low"] > 0.3


def _rows(judge: str, outcomes: dict[str, int]) -> list[Row]:
    return [
        row(judge=judge, task="t", item=item, probe="J", protocol="pointwise", cue="none",
            branch=0, order="ab", status="ok", correct=bool(ok))
        for item, ok in outcomes.items()
    ]  # fmt: skip


def _set(family: str, sources: dict[str, str]) -> AuditSet:
    model = "gpt-4o" if family == "openai" else "gemini-2.5-pro"
    return AuditSet("ds", f"x:{model}", family, {("t", i): s for i, s in sources.items()})


def test_shared_sources_are_drawn_once_for_both_sets() -> None:
    """The same outcome per source in both sets: a paired interval of B − A is exactly 0; the
    set-only sources are resampled within their set (so their accuracy has a spread)."""
    rng = np.random.default_rng(0)
    shared = {f"i{k}": int(rng.integers(0, 2)) for k in range(40)}
    extra = {f"x{k}": int(rng.integers(0, 2)) for k in range(10)}
    src = {i: f"s:{i}" for i in [*shared, *extra]}
    a = _set("openai", src)
    b = _set("google", {i: s for i, s in src.items() if i in shared})
    result = generator_check(
        _rows("builtin:first", shared), _rows("builtin:first", shared), a, b, replicates=1000
    )
    d = result["cells"][0]["judges"][0]["difference"]
    assert (d["value"], d["ci_low"], d["ci_high"]) == (0.0, 0.0, 0.0)
    acc = result["cells"][0]["judges"][0]["accuracy_a"]
    assert acc["ci_low"] < acc["value"] < acc["ci_high"]
    # Set-only sources: A's own items make the difference uncertain again.
    result = generator_check(
        _rows("builtin:first", {**shared, **extra}), _rows("builtin:first", shared), a, b,
        replicates=1000,
    )  # fmt: skip
    d = result["cells"][0]["judges"][0]["difference"]
    assert result["cells"][0]["shared_sources"] == 40 and d["ci_low"] < d["ci_high"]


def test_sets_without_a_shared_source_are_refused() -> None:
    rows = _rows("builtin:first", {"i0": 1, "i1": 0})
    a = _set("openai", {"i0": "s:a0", "i1": "s:a1"})
    b = _set("google", {"i0": "s:b0", "i1": "s:b1"})
    with pytest.raises(GeneratorCheckError, match="share no source record") as e:
        generator_check(rows, rows, a, b, replicates=200)
    assert e.value.exit_code == 2


def test_runs_without_a_common_judge_are_refused() -> None:
    src = {"i0": "s:0"}
    a, b = _set("openai", src), _set("google", src)
    with pytest.raises(GeneratorCheckError, match="share no judge"):
        generator_check(_rows("openai:gpt-4o", {"i0": 1}), _rows("builtin:first", {"i0": 1}), a, b)


def test_same_family_sets_have_no_interaction() -> None:
    rows = _rows("openai:gpt-4o", {"i0": 1, "i1": 0}) + _rows("builtin:first", {"i0": 0, "i1": 1})
    src = {"i0": "s:0", "i1": "s:1"}
    result = generator_check(rows, rows, _set("openai", src), _set("openai", src), replicates=200)
    assert result["same_family"] and all(not c["interaction"] for c in result["cells"])


def _run_folder(tmp: Path, items: list[dict[str, Any]]) -> Path:
    ds, run = tmp / "ds", tmp / "run"
    ds.mkdir()
    run.mkdir()
    (ds / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items))
    (run / "run.json").write_text(json.dumps({"dataset": str(ds)}))
    return run


def _item(i: int, gen: dict[str, Any] | None) -> dict[str, Any]:
    meta = {"source": "emocf", "source_id": f"p{i}"} | ({"generator": gen} if gen else {})
    return {"id": f"st-{i}", "task": "t", "meta": meta}


def test_items_without_a_generator_are_refused(tmp_path: Path) -> None:
    run = _run_folder(
        tmp_path, [_item(0, {"backend": "openai", "model": "gpt-4o"}), _item(1, None)]
    )
    with pytest.raises(GeneratorCheckError, match="1 items of .* lack meta.generator"):
        read_set(run, "A")


def test_a_set_of_two_generator_families_is_refused(tmp_path: Path) -> None:
    gens = [
        {"spec": "openai:gpt-4o", "backend": "openai", "model": "gpt-4o"},
        {"spec": "gemini:gemini-2.5-pro", "backend": "gemini", "model": "gemini-2.5-pro"},
    ]
    run = _run_folder(tmp_path, [_item(0, gens[0]), _item(1, gens[1])])
    with pytest.raises(GeneratorCheckError, match="mixes generator families"):
        read_set(run, "A")


def test_a_run_whose_dataset_is_gone_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"dataset": str(tmp_path / "moved")}))
    with pytest.raises(GeneratorCheckError, match="is not there"):
        read_set(run, "A")


def test_a_generator_of_no_known_family_gets_no_interaction_line() -> None:
    rows = _rows("openai:gpt-4o", {"i0": 1, "i1": 0}) + _rows("builtin:first", {"i0": 0, "i1": 1})
    src = {"i0": "s:0", "i1": "s:1"}
    unknown = AuditSet("ds", "openai:my-finetune", "unknown", {("t", i): s for i, s in src.items()})
    result = generator_check(rows, rows, _set("openai", src), unknown, replicates=200)
    assert [i["family"] for i in result["cells"][0]["interaction"]] == ["openai"]


@pytest.mark.parametrize(
    ("value", "low", "high", "start"),
    [
        (0.12, 0.04, 0.20, "google judges gain +12 % [4, 20] more on the google-composed set "),
        (-0.12, -0.20, -0.04, "google judges gain 12 % [4, 20] less on the google-composed"),
        (0.12, -0.04, 0.20, "no sign of generator alignment: google judges +12 % [-4, 20]"),
    ],
)
def test_the_interaction_line_names_alignment_only_above_zero(
    value: float, low: float, high: float, start: str
) -> None:
    line = interaction_line("google", "other", {"value": value, "ci_low": low, "ci_high": high})
    assert line.startswith(start), line
