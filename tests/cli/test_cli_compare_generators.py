"""`paraudit compare RUN_A RUN_B --generators`: the generator-bias check in the terminal and as
JSON; runs it cannot compare are refused in one line with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli_compare import _invoke
from tests.stats.generator_sets import build_set, make_runs, run_on


def test_the_check_prints_accuracy_ranking_and_one_line_per_family(tmp_path: Path) -> None:
    g = make_runs(tmp_path)
    out = tmp_path / "gen.json"
    code, text = _invoke("compare", str(g.runs["gpt"]), str(g.runs["gemini"]), "--generators",
                         "--replicates", "500", "--out", str(out))  # fmt: skip
    assert code == 0, text
    flat = " ".join(text.split())
    assert "20 source records in both sets (A has 20, B has 24)" in flat
    assert flat.count("Kendall τ") == 2  # pointwise and pairwise
    # known:gemini-own is right only on the gemini-composed set: its family is named.
    assert flat.count("google judges gain +") == 2, text
    assert "more on the google-composed set than other judges" in flat
    result = json.loads(out.read_text())
    assert result["generators"]["b"]["family"] == "google" and len(result["cells"]) == 2


def test_runs_the_check_cannot_compare_are_one_line_exit_2(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    code, text = _invoke("run", str(tiny_dataset), "--probes", "J", "--judge", "builtin:first",
                         "--out", str(plain))  # fmt: skip
    assert code == 0, text
    built = run_on(build_set(tmp_path, "gemini"), tmp_path / "built", ("builtin:first",))
    for args, why in [
        ((str(built), str(plain)), "lack meta.generator"),
        ((str(built), str(plain), "--judge", "a=b"), "drop --judge"),
        ((str(built), str(plain), "--renderings"), "two different checks"),
    ]:
        code, text = _invoke("compare", *args, "--generators")
        lines = [line for line in text.splitlines() if line.strip()]
        assert code == 2, text
        assert len(lines) == 1 and lines[0].startswith("error:") and why in text, text


def test_sets_from_different_records_are_refused(tmp_path: Path) -> None:
    """Two single-item sets of different sentences (different seeds): no shared source."""
    a = run_on(build_set(tmp_path, "gemini", seed=0, n=1), tmp_path / "a", ("builtin:first",))
    b = run_on(build_set(tmp_path, "gpt", seed=1, n=1), tmp_path / "b", ("builtin:first",))
    code, text = _invoke("compare", str(a), str(b), "--generators")
    assert code == 2 and "share no source record" in text, text
