"""A dataset's dimension and label set, as dataset.json declares them.

A dataset.json that names no dimension is an emotion dataset with today's vocabulary and loads
exactly as before. One that names a dimension must use its values; a source with a label set of
its own (a 4- or 6-class emotion corpus) says how its labels map onto the values — by a taxonomy
the dimension knows by name, or an explicit `label_map` — and its items load mapped. Anything
else is refused in one line naming the labels and the fix, before anything is written.

An item may name its own dimension in `meta["dimension"]` (a dataset holding several); a task
holds one dimension, so a run asks each task's questions in one dimension's words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from paraudit.dimensions import registry
from paraudit.dimensions.base import Dimension
from paraudit.dimensions.registry import DimensionError
from paraudit.errors import DatasetError
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response


class DatasetDimensionError(DatasetError):
    """dataset.json or items.jsonl name a dimension or label that cannot be used: exit 2."""

    exit_code = 2


def declared(manifest: DatasetManifest) -> bool:
    """Whether dataset.json says anything about its dimension (else: a dataset from before
    dimensions, loaded as it always was)."""
    return bool({"dimension", "taxonomy", "label_map"} & manifest.model_fields_set)


def dimension_of(manifest: DatasetManifest, where: Path | str = "dataset.json") -> Dimension:
    try:
        return registry.get(manifest.dimension)
    except DimensionError as e:
        raise DatasetDimensionError(f"{where}: {e}") from None


def label_mapping(manifest: DatasetManifest, where: Path | str = "dataset.json") -> dict[str, str]:
    """Source label → value for the labels this dataset's items carry ({} when they carry the
    dimension's own values)."""
    if not manifest.taxonomy and not manifest.label_map:
        return {}
    dim = dimension_of(manifest, where)
    out: dict[str, str] = {}
    if manifest.taxonomy:
        if manifest.taxonomy not in dim.taxonomies:
            known = ", ".join(dim.taxonomies) or "none"
            raise DatasetDimensionError(
                f"{where}: {dim.name} knows no taxonomy '{manifest.taxonomy}' (known: {known}); "
                'name one of them or give "label_map": {"SOURCE LABEL": "VALUE", ...}'
            )
        out.update(dim.taxonomies[manifest.taxonomy])
    out.update(manifest.label_map)
    for src, value in out.items():
        if dim.canonical(value) is None:
            raise DatasetDimensionError(
                f"{where}: label_map maps '{src}' to '{value}', which is not a value of "
                f"{dim.name} (its values: {', '.join(dim.names)})"
            )
    return {src: dim.canonical(v) or v for src, v in out.items()}


def vocabulary(manifest: DatasetManifest, where: Path | str = "dataset.json") -> tuple[str, ...]:
    """The labels items carry once loaded: the declared set, mapped when the dataset maps."""
    mapping = label_mapping(manifest, where)
    return tuple(dict.fromkeys(mapping.get(label, label) for label in manifest.emotions))


def check_manifest(manifest: DatasetManifest, where: Path | str = "dataset.json") -> None:
    """Refuse a dimension that is not installed, or a declared label that is neither one of its
    values nor mapped onto one. A dataset that declares nothing is not checked here (today's
    emotion datasets may carry any vocabulary; validate checks each label against it)."""
    if not declared(manifest):
        return
    dim = dimension_of(manifest, where)
    mapping = label_mapping(manifest, where)
    outside = [
        label
        for label in manifest.emotions
        if label not in mapping and dim.canonical(label) is None
    ]
    if outside:
        shown = ", ".join(f"'{x}'" for x in outside[:4]) + (" …" if len(outside) > 4 else "")
        named = f" or name a taxonomy ({', '.join(dim.taxonomies)})" if dim.taxonomies else ""
        raise DatasetDimensionError(
            f"{where}: label{'s' if len(outside) > 1 else ''} {shown} "
            f"{'are' if len(outside) > 1 else 'is'} not a value of {dim.name} (its values: "
            f"{', '.join(dim.names)}); map them in dataset.json with "
            f'"label_map": {{"{outside[0]}": "VALUE", ...}}{named}'
        )


def map_item(item: AuditItem, mapping: dict[str, str]) -> AuditItem:
    """The item with every label (context turns, responses) mapped; unchanged without a map."""
    if not mapping:
        return item

    def branch(b: Branch) -> Branch:
        r = b.response
        return b.model_copy(
            update={
                "emotions": tuple(mapping.get(e, e) for e in b.emotions),
                "response": Response(
                    text=r.text, emotion=mapping.get(r.emotion, r.emotion), audio=r.audio
                ),
            }
        )

    b0, b1 = item.branches
    return item.model_copy(update={"branches": (branch(b0), branch(b1))})


def item_dimension(item: AuditItem, manifest: DatasetManifest) -> str:
    value = item.meta.get("dimension")
    return value if isinstance(value, str) and value else manifest.dimension


def check_tasks(
    items: Iterable[tuple[int, AuditItem]], manifest: DatasetManifest, where: Path | str
) -> None:
    """Refuse a task whose items belong to different dimensions, or an item naming a dimension
    that is not installed."""
    per_task: dict[str, Counter[str]] = {}
    first: dict[tuple[str, str], tuple[int, str]] = {}
    for line, item in items:
        dim = item_dimension(item, manifest)
        per_task.setdefault(item.task, Counter())[dim] += 1
        first.setdefault((item.task, dim), (line, item.id))
    for task, counts in per_task.items():
        for dim in counts:
            if dim != manifest.dimension:
                line, item_id = first[(task, dim)]
                try:
                    registry.get(dim)
                except DimensionError as e:
                    raise DatasetDimensionError(f"{where}:{line}: item {item_id}: {e}") from None
        if len(counts) > 1:
            minor = counts.most_common()[1][0]  # the first of the fewer: named with its line
            line, item_id = first[(task, minor)]
            mixed = ", ".join(f"{d} ({n} items)" for d, n in counts.most_common())
            raise DatasetDimensionError(
                f"{where}:{line}: task '{task}' mixes dimensions {mixed}, first {minor} item "
                f"{item_id}; a task holds one dimension: give the {minor} items a task of their "
                "own"
            )


def task_dimensions(items: Sequence[AuditItem], manifest: DatasetManifest) -> dict[str, str]:
    """Task → its dimension's name (after `check_tasks`, each task has one)."""
    return {it.task: item_dimension(it, manifest) for it in items}
