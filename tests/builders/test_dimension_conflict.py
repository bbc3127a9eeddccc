"""`build starter --dimension NAME --conflict` (issue 32): sarcasm and urgency get word–tone
conflict items whose words carry a value by the dimension's lexicon (real Piper renders, one
ordinary and one conflict text each), a run reports them; the dimensions where conflict makes
no sense refuse the flag in one line with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paraudit.dimensions.registry import get
from paraudit.items.dataset import load_dataset
from paraudit.items.validate import errors_of, validate_dataset
from tests.builders.conftest import cli

FIRST = {"sarcasm": ("sar-cf-001", "sarcastic", "sincere"),
         "urgency": ("urg-cf-001", "calm", "urgent")}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FIRST))
def test_conflict_items_are_built_checked_and_reported(
    name: str, tmp_path: Path, render_cache: Path
) -> None:
    out = tmp_path / "ds"
    code, output = cli("build", "starter", "--dimension", name, "--conflict", "--limit", "1",
                       "--out", str(out), "--cache", str(render_cache))  # fmt: skip
    assert code == 0, output
    assert "dataset validates" in output
    # One plain single-turn text and one conflict text (and, where the dimension has them, one
    # positional conversation: --limit applies per item kind).
    items = {it.id: it for it in load_dataset(out).items if "positional" not in it.task}
    item_id, words, voice = FIRST[name]
    assert len(items) == 2 and item_id in items, output
    c = items[item_id].meta["conflict"]
    assert c == {"words": words, "voice": voice, "words_label": words, "label_source": "lexicon"}
    assert {b.emotions[0] for b in items[item_id].branches} == {v.name for v in get(name).values}
    assert not errors_of(validate_dataset(out))
    run = tmp_path / "run"
    code, output = cli("run", str(out), "--judge", "builtin:first", "--out", str(run),
                       "--probes", "J", "--protocols", "pointwise", "--cues", "none")  # fmt: skip
    assert code == 0, output
    code, output = cli("report", str(run), "--out", str(tmp_path / "rep"), "--replicates", "200")
    assert code == 0, output
    (rec,) = json.loads((tmp_path / "rep" / "summary.json").read_text())["conflict"]
    # Orders are counterbalanced: always-R1 is right on half of each branch's questions.
    assert rec["items"] == 1 and rec["congruent"]["rate"] == rec["conflict"]["rate"] == 0.5
    assert not rec["follows_words"]


@pytest.mark.parametrize(("name", "why"), [
    ("emphasis", "names the right response outright"),
    ("whisper", "such an item is a tie, not a conflict"),
    ("hesitation", "fillers change the words"),
])  # fmt: skip
def test_conflict_is_refused_with_the_reason(name: str, why: str, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    code, output = cli("build", "starter", "--dimension", name, "--conflict", "--out", str(out))
    assert code == 2, output
    assert output.startswith(f"error: --conflict: no conflict items for {name}: ")
    assert why in output and len(output.strip().splitlines()) == 1
    assert not out.exists()
