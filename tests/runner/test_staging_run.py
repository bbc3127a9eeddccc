"""Through the real runner: Staging follows P from whichever order ran; rows carry presentation."""

from __future__ import annotations

import asyncio
from pathlib import Path

from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner


def _rows(ds: Path, out: Path, orders: str) -> list[dict[str, object]]:
    plan = PlanSpec(
        probes=("J", "P", "S"),
        protocols=("pointwise", "pairwise"),
        cues=("none", "soft", "hard", "transition"),
        orders=orders,
    )
    return asyncio.run(Runner(RunConfig(ds, ["builtin:first"], out, plan)).run())


def test_orders_one_stages_every_cell_whose_p_was_answered(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    rows = _rows(tiny_dataset, tmp_path / "one", "one")
    p_cells = {(r["item_id"], r["cue"]) for r in rows if r["probe"] == "P"}
    s_cells = {(r["item_id"], r["cue"]) for r in rows if r["probe"] == "S"}
    assert s_cells == p_cells and len(s_cells) == 7  # 3 cues single-turn + 4 positional
    both = _rows(tiny_dataset, tmp_path / "both", "both")
    assert {(r["item_id"], r["cue"]) for r in both if r["probe"] == "S"} == s_cells


def test_rows_carry_context_order_and_per_turn_p_answers(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    rows = _rows(tiny_dataset, tmp_path / "r", "both")
    pair = [r for r in rows if r["protocol"] == "pairwise"]
    assert {r["context_order"] for r in pair} == {"ab", "ba"}
    assert {r["context_order"] for r in rows if r["protocol"] == "pointwise"} == {None}
    turns = [r for r in rows if r["probe"] == "P" and r["item_id"] == "pos-1"]
    for r in turns:
        pred, gold = r["pred"], r["gold"]
        assert isinstance(pred, dict) and isinstance(gold, dict)
        assert set(pred) == set(gold) == {"C1", "C3", "C5"}
    # always-first on pairwise: right on exactly half of the counterbalanced presentations
    assert sum(bool(r["correct"]) for r in pair) * 2 == len(pair)


def test_run_json_lists_the_skipped_probes(tiny_dataset: Path, tmp_path: Path) -> None:
    import json

    from paraudit.items.dataset import load_dataset, write_dataset

    ds = load_dataset(tiny_dataset)
    pos = ds.item("pos-1")
    b0 = pos.branches[0].model_copy(
        update={"emotions": ("neutral", "neutral", "sad", "neutral", "angry")}
    )
    items = [
        pos.model_copy(update={"branches": (b0, pos.branches[1])}) if it.id == "pos-1" else it
        for it in ds.items
    ]
    audio = {rel: tiny_dataset / rel for it in items for rel in it.audio_files()}
    write_dataset(tmp_path / "ds3", ds.manifest, items, audio)
    rows = _rows(tmp_path / "ds3", tmp_path / "run", "one")
    assert {r["probe"] for r in rows if r["item_id"] == "pos-1"} == {"J"}
    skipped = json.loads((tmp_path / "run" / "run.json").read_text())["skipped"]
    assert [(s["item_id"], s["probe"]) for s in skipped] == [("pos-1", "P"), ("pos-1", "S")]
