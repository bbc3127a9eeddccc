"""Seeded assignment: overlap shared, own items spread, repeats hidden later, catch by rule."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from paraudit.annotate.assignment import StudyConfig, assign, parse_annotators, stimulus
from paraudit.errors import ParauditError
from paraudit.items.records import AuditItem
from tests.annotate.conftest import make_many

CFG = StudyConfig(annotators=("a", "b", "c"), per_annotator=20, overlap=6, repeats=3, catch=2)


@pytest.fixture(scope="module")
def items(tmp_path_factory: pytest.TempPathFactory) -> tuple[AuditItem, ...]:
    tmp = tmp_path_factory.mktemp("assign")
    return tuple(make_many(tmp / "ds", tmp / "tones", 40))


def test_same_seed_same_lists_other_seed_other_lists(items: tuple[AuditItem, ...]) -> None:
    assert assign(items, CFG) == assign(items, CFG)
    other = assign(items, StudyConfig(**{**CFG.__dict__, "seed": 1}))
    assert [(t.item_id, t.order) for t in other] != [
        (t.item_id, t.order) for t in assign(items, CFG)
    ]


def test_list_structure(items: tuple[AuditItem, ...]) -> None:
    tasks = assign(items, CFG)
    by_name = {n: [t for t in tasks if t.annotator == n] for n in CFG.annotators}
    overlaps = {
        n: {(t.item_id, t.branch) for t in ts if t.kind == "overlap"} for n, ts in by_name.items()
    }
    assert len({frozenset(o) for o in overlaps.values()}) == 1  # same stimuli for everyone
    for name, ts in by_name.items():
        kinds = Counter(t.kind for t in ts)
        assert kinds == {"overlap": 6, "own": 14, "repeat": 3, "catch": 2}
        assert [t.seq for t in ts] == list(range(len(ts)))
        # never both branches of one item
        branches: dict[str, set[int]] = {}
        for t in ts:
            branches.setdefault(t.item_id, set()).add(t.branch)
        assert all(len(b) == 1 for b in branches.values()), name
        for t in ts:
            if t.kind == "repeat":
                first = ts[t.repeat_of or 0]
                assert t.repeat_of is not None and t.seq - t.repeat_of > 3
                assert (first.item_id, first.branch) == (t.item_id, t.branch)
                assert first.kind in ("own", "overlap")
            if t.kind == "catch":
                assert t.foil_item is not None and t.foil_item != t.item_id
    own = [{t.item_id for t in ts if t.kind == "own"} for ts in by_name.values()]
    assert not (own[0] & own[1]) and not (own[1] & own[2])  # the pool suffices: no sharing


def test_orders_are_randomised(items: tuple[AuditItem, ...]) -> None:
    orders = Counter(t.order for t in assign(items, CFG))
    assert orders["ab"] > 20 and orders["ba"] > 20


def test_stimulus_answer_key(items: tuple[AuditItem, ...]) -> None:
    index = {it.id: it for it in items}
    for t in assign(items, CFG):
        st = stimulus(index, t)
        right = st.responses[0 if st.gold == "R1" else 1][0]
        if t.kind == "catch":
            assert right == index[t.item_id].branches[t.branch].response.text
            assert st.identities[0 if st.gold == "R1" else 1] == "own"
        else:
            assert right == index[t.item_id].branches[t.branch].response.text
            assert st.identities[0 if st.gold == "R1" else 1] == str(t.branch)
        first_is_right = (
            (t.order == "ab") if t.kind == "catch" else (t.order == "ab") == (t.branch == 0)
        )
        assert (st.gold == "R1") == first_is_right


def test_bad_options_are_one_line_errors(items: tuple[AuditItem, ...], tmp_path: Path) -> None:
    with pytest.raises(ParauditError, match="exceeds"):
        assign(items, StudyConfig(annotators=("a",), per_annotator=41, overlap=0))
    with pytest.raises(ParauditError, match="overlap"):
        assign(items, StudyConfig(annotators=("a",), per_annotator=5, overlap=6))
    with pytest.raises(ParauditError, match="no items"):
        assign(items, StudyConfig(annotators=("a",), tasks=("positional-emotion",)))
    assert parse_annotators("3") == ("a1", "a2", "a3")
    assert parse_annotators("ann, bo_b") == ("ann", "bo_b")
    for bad in ("", "a,a", "x/y", "0"):
        with pytest.raises(ParauditError):
            parse_annotators(bad)
