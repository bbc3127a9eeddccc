"""The dimensions' acoustic built-in judges (builtin:emphasis, urgency, whisper, sarcasm,
hesitation) on real starter sets of each dimension: they hear the contrast where the rendering
is measurable, and builtin:random and builtin:first, asked the same questions, do not.

"Above chance" is counted per (item, branch, cue), right in both orders of the options: a judge
that picks a position or a label is never right in both orders, a coin is in a quarter.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from paraudit.items.dataset import load_dataset, write_dataset
from paraudit.items.records import Branch
from paraudit.judges.builtin.listeners import LISTENERS, judge_for
from paraudit.judges.registry import load_judge
from tests.builders.conftest import cli
from tests.conftest import dimension_small

NEW = tuple(LISTENERS)


@pytest.fixture(scope="module", params=NEW)
def audited(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path, list[dict[str, Any]]]:
    name = request.param
    ds = dimension_small(tmp_path_factory, name)
    run = tmp_path_factory.mktemp(f"listen-{name}") / "run"
    code, output = cli(
        "run", str(ds), "--judge", f"builtin:{name}", "--judge", "builtin:random",
        "--judge", "builtin:first", "--out", str(run),
    )  # fmt: skip
    assert code == 0, output
    rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    return name, ds, rows


def consistent(rows: list[dict[str, Any]], judge: str, probe: str, protocol: str) -> float:
    """Share of (item, branch, cue) units right in every order that ran."""
    units: dict[tuple[Any, ...], list[bool]] = defaultdict(list)
    for r in rows:
        if (r["judge"], r["probe"], r["protocol"]) == (judge, probe, protocol):
            units[(r["item_id"], r["branch"], r["context_order"], r["cue"])].append(r["correct"])
    assert units and all(len(v) == 2 for v in units.values())
    return sum(all(v) for v in units.values()) / len(units)


def test_each_dimension_judge_hears_its_contrast_and_random_and_first_do_not(
    audited: tuple[str, Path, list[dict[str, Any]]],
) -> None:
    name, _, rows = audited
    assert {r["status"] for r in rows} == {"ok"}
    heard = consistent(rows, f"builtin:{name}", "P", "pointwise")
    # Emphasis estimates word times without an aligner (adjacent focus words can slip); the
    # other four contrasts are far apart on their QC figures.
    assert heard >= (0.75 if name == "emphasis" else 0.95), name
    for other in ("builtin:random", "builtin:first"):
        assert consistent(rows, other, "P", "pointwise") <= 0.5, other
    assert consistent(rows, "builtin:first", "P", "pointwise") == 0.0
    # The judge maps what it hears: J and O above the coin's quarter (emphasis's mapping rule
    # is the weak one: about half of its O and J units are right on these four items).
    assert consistent(rows, f"builtin:{name}", "J", "pointwise") > 0.25
    assert consistent(rows, f"builtin:{name}", "O", "pointwise") > 0.25


def test_it_answers_from_the_audio_not_from_the_labels(
    audited: tuple[str, Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    """The same clips with every item's labels swapped between its branches (and the QC
    figures, renderer notes and coin dropped from meta): the judge's P answers follow the
    audio, so against the swapped labels it is wrong where it was right."""
    name, ds_path, rows = audited
    ds = load_dataset(ds_path)
    items = []
    for it in ds.items:
        b0, b1 = it.branches

        def relabel(b: Branch, other: Branch) -> Branch:
            response = b.response.model_copy(update={"emotion": other.response.emotion})
            return b.model_copy(update={"emotions": other.emotions, "response": response})

        keep = {k: v for k, v in it.meta.items() if k in ("dimension", "focus", "focus_words")}
        branches = (relabel(b0, b1), relabel(b1, b0))
        items.append(it.model_copy(update={"branches": branches, "meta": keep}))
    audio = {rel: ds.audio_path(rel) for it in items for rel in it.audio_files()}
    swapped = tmp_path / "swapped"
    write_dataset(swapped, ds.manifest, items, audio)
    run = tmp_path / "run"
    code, output = cli(
        "run", str(swapped), "--judge", f"builtin:{name}", "--probes", "P", "--cues", "none",
        "--out", str(run),
    )  # fmt: skip
    assert code == 0, output
    after = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    before = [r for r in rows if r["cue"] == "none"]
    judge = f"builtin:{name}"
    was = consistent(before, judge, "P", "pointwise")
    now = consistent(after, judge, "P", "pointwise")
    assert now <= 1 - was + 1e-9, (was, now)


def test_every_new_dimension_has_its_acoustic_judge() -> None:
    from paraudit.dimensions import registry

    for name in registry.names():
        want = "builtin:prosody" if name == "emotion" else f"builtin:{name}"
        assert judge_for(name) == want
        assert load_judge(want).label == want  # registered, with no options of its own
