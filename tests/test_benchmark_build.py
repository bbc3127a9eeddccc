"""benchmarks/build.py --dimension: one line per dimension with its build time from an empty
render cache, the CPU it took and the load around it (run here on one small set)."""

from __future__ import annotations

import sys

import pytest

from benchmarks import build


def test_the_dimension_benchmark_prints_a_line_per_dimension(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["build.py", "--dimension", "sarcasm", "--limit", "1"])
    build.main()
    head, line = capsys.readouterr().out.strip().splitlines()
    assert head.split()[:3] == ["dimension", "items", "renders"]
    name, items, renders, wall, cpu, met, before, arrow, after = line.split()
    assert (name, items, arrow) == ("sarcasm", "1/1", "→")
    assert int(renders) >= 2  # both values of the one text
    assert 0 < float(cpu) and 0 < float(wall)
    assert met == ("yes" if float(wall) <= build.TARGET_S else "no")
    assert float(before) >= 0 and float(after) >= 0
