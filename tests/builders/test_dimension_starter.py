"""`build starter --dimension NAME` end to end for the five new dimensions: real renderings
(Piper + PSOLA, espeak-ng), each dimension's own QC, a dataset `validate` accepts, a run with
the built-in judges and a report, and P asked in the dimension's words."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from paraudit.builders.dimension_starter import build_dimension_starter
from paraudit.dimensions import registry
from paraudit.dimensions.base import RenderedClip
from paraudit.errors import ParauditError
from paraudit.items.dataset import load_dataset
from paraudit.items.validate import errors_of, validate_dataset
from tests.builders.conftest import STARTER_LIMIT, cli, starter_built_fixture

NEW = ("urgency", "hesitation", "whisper", "emphasis", "sarcasm")
LIMIT = STARTER_LIMIT


built = starter_built_fixture(NEW)


def test_the_set_is_a_valid_dataset_of_its_dimension(built: Path) -> None:
    ds = load_dataset(built)
    dim = registry.get(ds.manifest.dimension)
    assert ds.manifest.dimension in NEW
    assert ds.manifest.emotions == dim.names
    # Positional conversations too where the dimension has them (test_dimension_positional.py).
    kinds = ("single-turn", "positional") if "positional" in dim.item_kinds else ("single-turn",)
    assert ds.manifest.tasks == tuple(dim.task_for(k) for k in kinds)
    assert not errors_of(validate_dataset(built))
    dropped = ds.manifest.provenance["dropped"]
    assert 1 <= len(ds.items) == LIMIT * len(kinds) - len(dropped)
    values = {v.name for v in dim.values}
    single = [it for it in ds.items if it.task == dim.task_for("single-turn")]
    for it in single:
        b0, b1 = it.branches
        assert {b0.emotions[0], b1.emotions[0]} == values
        assert b0.audio[0] != b1.audio[0]
        # Each branch's clip passed its own QC, with the figures the rule read kept.
        assert [q["value"] for q in it.meta["qc"]] == [b0.emotions[0], b1.emotions[0]]
        assert all(q["passed"] and q["measures"] for q in it.meta["qc"])
        assert it.meta["swapped"] == (b0.emotions[0] != dim.values[0].name)
        for rel in it.audio_files():  # content-hashed names
            assert Path(rel).stem == hashlib.sha256((built / rel).read_bytes()).hexdigest()
    if dim.name == "emphasis":
        for it in single:
            words = it.context[0].text.split()
            assert it.meta["focus_words"] == [words[i].strip(".,!?;:") for i in it.meta["focus"]]


def test_it_runs_with_builtin_judges_and_p_asks_in_the_dimension_words(
    built: Path, tmp_path: Path
) -> None:
    ds = load_dataset(built)
    dim = registry.get(ds.manifest.dimension)
    run = tmp_path / "run"
    code, output = cli(
        "run", str(built), "--judge", "builtin:random", "--judge", "builtin:first",
        "--out", str(run),
    )  # fmt: skip
    assert code == 0, output
    rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    assert {r["probe"] for r in rows} == {"J", "P", "O", "S", "T"}
    assert {r["judge"] for r in rows} == {"builtin:random", "builtin:first"}
    assert all(r["status"] == "ok" for r in rows)
    code, output = cli("report", str(run), "--out", str(tmp_path / "report"))
    assert code == 0, output
    assert (tmp_path / "report" / "report.html").is_file()

    with sqlite3.connect(run / "calls.sqlite") as db:
        prompts = [json.loads(p) for (p,) in db.execute("select prompt from calls")]
    item = ds.items[0]
    shown = [b.emotions[0] for b in item.branches]
    if dim.name == "emphasis":
        shown = item.meta["focus_words"]
        if item.meta["swapped"]:
            shown = shown[::-1]
    p_head = dim.questions.perception.format(options=f"R1 ({shown[0]}) or R2 ({shown[1]})")
    clips = {Path(b.audio[0]).stem for b in item.branches}
    asked = [p for p in prompts if p[0]["text"].startswith(p_head) and p[3].get("audio") in clips]
    # This item in the order that shows branch 0's value first: 2 branches × 3 cues (single-turn
    # has no transition cue) × 2 judges, with the two options in the text part that follows.
    assert len(asked) == 2 * 3 * 2, p_head
    assert all(p[1]["text"] == f"R1 = {shown[0]}\nR2 = {shown[1]}" for p in asked)
    assert not any("emotion" in p[0]["text"] for p in asked)
    # O writes each turn's value in the dimension's annotation.
    first_value = item.branches[0].emotions[0]
    label = (
        item.meta["focus_words"][0 if first_value == "stress-a" else 1]
        if (dim.name == "emphasis")
        else first_value
    )
    note = dim.questions.annotation.format(value=label)
    assert any(f"transcript: {item.context[0].text} {note}" in p[0]["text"] for p in prompts)


def flaky(text: str, value: str, *, voice: str = "joe", seed: int = 0) -> RenderedClip:
    """Urgency's renderer, wrong (calm for every value) on the first seed only."""
    from paraudit.render.urgency import render

    return render(text, "calm" if seed == 0 else value, voice=voice, seed=seed)


def never(text: str, value: str, *, voice: str = "joe", seed: int = 0) -> RenderedClip:
    """A deliberately wrong renderer: every value read calmly."""
    from paraudit.render.urgency import render

    return render(text, "calm", voice=voice, seed=seed)


def test_a_rejected_clip_is_rendered_again_or_its_item_dropped(tmp_path: Path) -> None:
    urgency = registry.get("urgency")
    here = "tests.builders.test_dimension_starter"
    again = replace(urgency, renderer=f"{here}:flaky")
    report = build_dimension_starter(
        again, tmp_path / "a", limit=1, cache_dir=tmp_path / "c", positional=False
    )
    assert (report.items_written, report.renders, report.rerenders) == (1, 3, 1)
    (item,) = load_dataset(tmp_path / "a").items
    assert {q["value"]: q["attempts"] for q in item.meta["qc"]} == {"calm": 1, "urgent": 2}

    wrong = replace(urgency, renderer=f"{here}:never")
    with pytest.raises(ParauditError, match=r"urgent: .*rate_ratio") as e:
        build_dimension_starter(
            wrong, tmp_path / "b", limit=1, cache_dir=tmp_path / "c", positional=False
        )
    assert "1 dropped" in str(e.value) and "nothing written" in str(e.value)
    assert not (tmp_path / "b").exists()
