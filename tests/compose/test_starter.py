from __future__ import annotations

from pathlib import Path

from paraudit.items.dataset import load_dataset
from paraudit.items.validate import validate_dataset


def test_small_starter_build_validates_and_stores_prosody(starter_small: Path) -> None:
    assert validate_dataset(starter_small) == []
    ds = load_dataset(starter_small)
    tasks = [it.task for it in ds.items]
    assert tasks.count("single-turn-emotions") == 2 and tasks.count("positional-emotion") == 2
    assert "prosody-manipulated" in ds.manifest.rendering
    st = next(it for it in ds.items if it.task == "single-turn-emotions")
    rows = st.meta["prosody"]
    emotions = [rows[b][0]["emotion"] for b in (0, 1)]
    assert emotions == list(st.branches[0].emotions + st.branches[1].emotions)
    for b in (0, 1):
        assert "f0_shift_st" in rows[b][0] or rows[b][0]["emotion"] == "neutral"


def test_positional_items_shift_where_the_source_says(starter_small: Path) -> None:
    ds = load_dataset(starter_small)
    pos = [it for it in ds.items if it.task == "positional-emotion"]
    for it in pos:
        s0, s1 = it.meta["shift_turns"]
        assert s0 != s1
        for b, s in enumerate((s0, s1)):
            emos = it.branches[b].emotions
            assert emos[s] != emos[0]
            assert all(emos[i] == emos[0] for i in it.human_turns() if i < s)
        # Identical (turn, emotion) pairs reuse the identical clip across branches.
        first = it.human_turns()[0]
        assert it.branches[0].audio[first] == it.branches[1].audio[first]


def test_rebuild_is_byte_identical_and_uses_the_cache(
    starter_small: Path, render_cache: Path, tmp_path: Path
) -> None:
    from paraudit.compose.starter import build_starter

    report = build_starter(tmp_path / "again", limit=2, cache_dir=render_cache)
    assert report.fresh_renders == 0 and report.cache_hits > 0
    assert (tmp_path / "again" / "items.jsonl").read_bytes() == (
        starter_small / "items.jsonl"
    ).read_bytes()
