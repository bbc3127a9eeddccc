"""The plan: skips for items P/O/S cannot ask, Staging from any order, the item's own labels."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from paraudit.items.dataset import Dataset, load_dataset
from paraudit.items.records import AuditItem
from paraudit.protocols.instances import p_instance
from paraudit.runner.plan import PlanSpec, p_labels, plan_instances, plan_skips, staging_instances

ALL = PlanSpec(
    probes=("J", "P", "O", "S", "T"),
    protocols=("pointwise", "pairwise"),
    cues=("none", "transition"),
)


def _three_emotions(ds: Dataset) -> Dataset:
    pos = ds.item("pos-1")
    b0 = pos.branches[0].model_copy(
        update={"emotions": ("neutral", "neutral", "angry", "neutral", "sad")}
    )
    bad: AuditItem = pos.model_copy(update={"branches": (b0, pos.branches[1])})
    return replace(ds, items=tuple(bad if it.id == "pos-1" else it for it in ds.items))


def test_items_with_more_than_two_human_emotions_get_no_p_o_s(tiny_dataset: Path) -> None:
    ds = _three_emotions(load_dataset(tiny_dataset))
    skips = plan_skips(ds, ALL)
    assert {(s.item_id, s.probe) for s in skips} == {("pos-1", p) for p in "POS"}
    assert all("3 distinct human emotions" in s.reason for s in skips)
    probes = {i.probe for i in plan_instances(ds, ALL) if i.item_id == "pos-1"}
    assert probes == {"J", "T"}
    # Staging is not asked either, even with P answers at hand.
    preds = {("pos-1", b, c): ("neutral",) * 5 for b in (0, 1) for c in ALL.cues}
    assert all(i.item_id != "pos-1" for i in staging_instances(ds, ALL, preds))
    assert plan_skips(load_dataset(tiny_dataset), ALL) == []


def test_p_labels_keep_the_items_own_assistant_labels(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    item = ds.item("pos-1")
    own = ("neutral", "empathetic", "angry", "happy", "angry")  # assistant turns not "neutral"
    inst = p_instance(ds, item, "none", "ba", 0)  # "ba": E1 is the later emotion
    assert inst.options == {"E1": "angry", "E2": "neutral"}
    labels = p_labels(inst, {"C1": "E2", "C3": "E1", "C5": "E1"}, own)
    assert labels == ("neutral", "empathetic", "angry", "happy", "angry")
    single = p_instance(ds, ds.item("st-1"), "none", "ab", 1)
    assert p_labels(single, "R2", ("sad",)) == (single.options["R2"],)


def test_staging_with_one_order_asks_every_item_that_has_p_answers(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    spec = replace(ALL, orders="one")
    preds = {
        (it.id, b, c): it.branches[b].emotions
        for it in ds.items
        for b in (0, 1)
        for c in ALL.cues
        if c != "transition" or it.task != "single-turn-emotions"
    }
    staged = staging_instances(ds, spec, preds)
    cells = {(i.item_id, i.protocol, i.cue, i.branch) for i in staged}
    # one instance per (item, protocol, cue, branch): pointwise 2 branches, pairwise 1
    assert len(staged) == len(cells) == 3 * (1 + 2)


def test_limit_takes_the_first_n_items_of_each_task(tiny_dataset: Path) -> None:
    """A quick trial (--limit) covers every task, not only the task listed first."""
    ds = load_dataset(tiny_dataset)
    single, positional = ds.item("st-1"), ds.item("pos-1")
    # Listed task by task, as built datasets are: two single-turn items, then two positional.
    items = (
        single,
        single.model_copy(update={"id": "st-2"}),
        positional,
        positional.model_copy(update={"id": "pos-2"}),
    )
    ds = replace(ds, items=items)
    limited = replace(ALL, limit=1)
    assert {i.item_id for i in plan_instances(ds, limited)} == {"st-1", "pos-1"}
    preds = {
        (it.id, b, c): it.branches[b].emotions for it in items for b in (0, 1) for c in ALL.cues
    }
    staged = {i.item_id for i in staging_instances(ds, limited, preds)}
    assert staged and staged <= {"st-1", "pos-1"}
    everything = {i.item_id for i in plan_instances(ds, replace(ALL, limit=2))}
    assert everything == {"st-1", "st-2", "pos-1", "pos-2"}


def test_items_are_asked_in_a_seeded_shuffled_order() -> None:
    """Call order must not follow the dataset's listing (stats/served.py's drift test); each
    invariance twin is asked right after its original."""
    from paraudit.items.twins import MARK
    from paraudit.runner.plan import asking_order

    class _Item:
        def __init__(self, id: str) -> None:
            self.id = id

    items = [_Item(f"st-{i}") for i in range(30)] + [_Item(f"st-3{MARK}louder")]
    once = [i.id for i in asking_order(items, 0)]  # type: ignore[arg-type]
    assert sorted(once) == sorted(i.id for i in items)
    assert once == [i.id for i in asking_order(items, 0)]  # type: ignore[arg-type]
    assert once != [i.id for i in items[:30]] + [items[30].id]
    assert once != [i.id for i in asking_order(items, 1)]  # type: ignore[arg-type]
    assert once[once.index("st-3") + 1] == f"st-3{MARK}louder"


def test_the_runner_asks_in_asking_order_and_the_listed_plan_keeps_dataset_order(
    tiny_dataset: Path,
) -> None:
    from paraudit.runner.plan import iter_instances

    ds = load_dataset(tiny_dataset)
    spec = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))
    listed = list(dict.fromkeys(i.item_id for i in iter_instances(ds, spec)))
    asked = list(dict.fromkeys(i.item_id for i in iter_instances(ds, spec, asking=True)))
    assert listed == [i.id for i in ds.items]
    assert sorted(asked) == sorted(listed)
