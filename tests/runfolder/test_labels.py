"""Run labels in multi-run reports: the shortest path parts that tell runs apart, never a bare
generic folder name such as 'run'."""

from __future__ import annotations

from pathlib import Path

from paraudit.runfolder.labels import run_labels


def test_generic_base_names_come_with_their_parent(tmp_path: Path) -> None:
    demo, humans = tmp_path / "demo-out" / "run", tmp_path / "demo-out" / "humans"
    assert run_labels([demo, humans]) == ["demo-out/run", "humans"]
    assert run_labels([tmp_path / "a" / "results", tmp_path / "b"]) == ["a/results", "b"]


def test_telling_runs_apart_still_takes_more_parts_when_needed(tmp_path: Path) -> None:
    a, b = tmp_path / "x1" / "run", tmp_path / "x2" / "run"
    assert run_labels([a, b]) == ["x1/run", "x2/run"]
    c, d = tmp_path / "p" / "same" / "gpt", tmp_path / "q" / "same" / "gpt"
    assert run_labels([c, d]) == ["p/same/gpt", "q/same/gpt"]
    assert run_labels([tmp_path / "gpt", tmp_path / "gemini"]) == ["gpt", "gemini"]
    assert run_labels([a, b], ["old", "new"]) == ["old", "new"]
