"""A tie item may carry the same value in both branches only when it says it is a tie."""

from __future__ import annotations

import json
from pathlib import Path

from paraudit.items.dataset import load_dataset
from paraudit.items.validate import dataset_errors
from paraudit.protocols.ties import is_tie
from tests.stats.pressure_sets import single_turn_set


def _same_values(root: Path, flag: bool) -> None:
    path = root / "items.jsonl"
    items = [json.loads(x) for x in path.read_text().splitlines()]
    for it in items:
        if it["id"].startswith("tie-"):
            it["branches"][1]["emotions"] = it["branches"][0]["emotions"]
            if not flag:
                it["meta"].pop("tie")
    path.write_text("".join(json.dumps(it) + "\n" for it in items))


def test_a_declared_tie_with_one_value_is_valid(tmp_path: Path) -> None:
    root = single_turn_set(tmp_path / "ds", tmp_path / "src", n=2, ties=1)
    _same_values(root, flag=True)
    assert dataset_errors(root) == []
    assert [is_tie(i) for i in load_dataset(root).items] == [False, False, True]


def test_an_undeclared_one_value_item_is_still_refused(tmp_path: Path) -> None:
    root = single_turn_set(tmp_path / "ds", tmp_path / "src", n=2, ties=1)
    _same_values(root, flag=False)
    problems = [p.message for p in dataset_errors(root)]
    assert any("do not differ in any human-turn emotion" in m for m in problems)
