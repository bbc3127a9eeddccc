from __future__ import annotations

from pathlib import Path

import pytest

from paraudit.items.balance import balance_warnings, unsupported_items
from paraudit.items.dataset import load_dataset
from paraudit.items.records import AuditItem, Branch, Response, Turn
from paraudit.items.validate import errors_of, validate_dataset
from paraudit.sources.starter import (
    extended_single_turn_sources,
    positional_sources,
    single_turn_sources,
)
from tests.conftest import starter_small_sources


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

    report = build_starter(tmp_path / "again", cache_dir=render_cache, **starter_small_sources())
    assert report.fresh_renders == 0 and report.cache_hits > 0
    assert (tmp_path / "again" / "items.jsonl").read_bytes() == (
        starter_small / "items.jsonl"
    ).read_bytes()


def _preview(swaps: set[str], extended: bool = False) -> list[AuditItem]:
    """The starter items' branch emotions as a build with `swaps` lays them out (no audio);
    `extended`: with the extension's single-turn sentences."""
    items: list[AuditItem] = []

    def branch(emotions: tuple[str, ...], text: str) -> Branch:
        audio = tuple("audio/x.wav" for _ in emotions)
        return Branch(
            emotions=emotions,
            audio=audio,
            response=Response(text=text, emotion="empathetic", audio="audio/r.wav"),
        )

    for s in single_turn_sources() + (extended_single_turn_sources() if extended else []):
        pairs = list(zip(s.emotions, s.responses, strict=True))
        pairs = pairs[::-1] if s.id in swaps else pairs
        b = [branch((e,), r.text) for e, r in pairs]
        ctx = (Turn(speaker="human", text=s.text),)
        items.append(
            AuditItem(id=s.id, task="single-turn-emotions", context=ctx, branches=(b[0], b[1]))
        )
    for p in positional_sources():
        humans = [i for i, t in enumerate(p.turns) if t.speaker == "human"]
        order = p.branches[::-1] if p.id in swaps else p.branches
        bs = []
        for src in order:
            emos = tuple(
                (p.before if humans.index(i) < src.shift_human_turn else p.after)
                if t.speaker == "human"
                else "neutral"
                for i, t in enumerate(p.turns)
            )
            bs.append(branch(emos, src.response))
        items.append(
            AuditItem(id=p.id, task="positional-emotion", context=p.turns, branches=(bs[0], bs[1]))
        )
    return items


def test_branch_0_is_a_balanced_seeded_coin() -> None:
    from paraudit.compose.starter import starter_swaps

    swaps = starter_swaps(0)
    assert swaps == starter_swaps(0) and swaps != starter_swaps(1)
    items = _preview(swaps)
    assert balance_warnings(items) == []
    assert unsupported_items(items) == []
    # Without the coin the sources would put the earlier shift and the first emotion in branch 0.
    unswapped = balance_warnings(_preview(set()))
    assert any("earlier mood shift" in w for w in unswapped)
    assert any("'angry'" in w for w in unswapped)
    positional = [p.id for p in positional_sources()]
    assert abs(2 * len(swaps & set(positional)) - len(positional)) <= 1


def test_built_items_follow_the_swap(starter_small: Path) -> None:
    from paraudit.compose.starter import starter_swaps

    swaps = starter_swaps(0)
    for it in load_dataset(starter_small).items:
        assert it.meta["swapped"] == (it.id in swaps)
        if it.task == "positional-emotion":
            s0, s1 = it.meta["shift_turns"]
            assert (s0 > s1) == (it.id in swaps)
        else:
            src = next(s for s in single_turn_sources() if s.id == it.id)
            first = src.emotions[1] if it.id in swaps else src.emotions[0]
            assert it.branches[0].emotions == (first,)
            assert it.meta["pair"] == f"{it.branches[0].emotions[0]}/{it.branches[1].emotions[0]}"


def test_the_extension_keeps_the_starters_branches_and_is_balanced_itself() -> None:
    from paraudit.compose.starter import starter_swaps

    whole, grown = starter_swaps(0), starter_swaps(0, extended=True)
    more = {s.id for s in extended_single_turn_sources()}
    assert grown - more == whole  # the starter's 48 and the dialogues keep their branch 0
    assert balance_warnings(_preview(grown, extended=True)) == []
    for pair in {tuple(s.emotions) for s in extended_single_turn_sources()}:
        ids = [s.id for s in extended_single_turn_sources() if tuple(s.emotions) == pair]
        assert abs(2 * len(grown & set(ids)) - len(ids)) <= 1, pair


def test_an_extended_build_renders_the_extension(render_cache: Path, tmp_path: Path) -> None:
    from paraudit.compose.starter import build_starter, starter_swaps

    report = build_starter(tmp_path / "ds", ids={"stx-001"}, extended=True, cache_dir=render_cache)
    assert report.items_written == {"single-turn-emotions": 1}
    ds = load_dataset(tmp_path / "ds")
    assert ds.manifest.name == "paraudit-starter-extended"
    (item,) = ds.items
    src = extended_single_turn_sources()[0]
    swapped = item.id in starter_swaps(0, extended=True)
    assert item.id == src.id and item.meta["swapped"] == swapped
    assert item.branches[0].emotions == (src.emotions[1] if swapped else src.emotions[0],)
    assert errors_of(validate_dataset(tmp_path / "ds")) == []


def test_an_extension_id_without_the_extension_is_refused(tmp_path: Path) -> None:
    from paraudit.compose.starter import build_starter
    from paraudit.errors import ParauditError

    with pytest.raises(ParauditError, match="stx-001 .the extension's sentences need"):
        build_starter(tmp_path / "ds", ids={"stx-001"})
    with pytest.raises(ParauditError, match="no starter source st-999$"):
        build_starter(tmp_path / "ds", ids={"st-999"}, extended=True)
    assert not (tmp_path / "ds").exists()
