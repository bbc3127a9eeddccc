"""Positional items of urgency, whisper and hesitation (issue 28): a real `build starter
--dimension NAME --limit 2` (Piper + Praat) writes conversations whose words are the same in both
branches and whose delivery changes at a different human turn in each; every changed turn
carries the contrast by an independent measurement; and the real runner audits them with the
dimension's acoustic judge and the known-behaviour judges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import soundfile as sf

from paraudit.compose.dimension_starters import positional_texts
from paraudit.dimensions import registry
from paraudit.items.dataset import load_dataset
from tests.builders.conftest import cli, starter_built_fixture
from tests.render.independent import interior_gaps_s, sounding_span_s, voiced_share

NAMES = ("urgency", "whisper", "hesitation")


built = starter_built_fixture(NAMES)


def test_each_conversation_changes_once_at_a_different_turn(built: Path) -> None:
    ds = load_dataset(built)
    dim = registry.get(ds.manifest.dimension)
    ref, marked = (v.name for v in dim.values)
    task = dim.task_for("positional")
    assert task in ds.manifest.tasks
    items = [it for it in ds.items if it.task == task]
    assert len(items) == 2
    assert {it.meta["swapped"] for it in items} == {True, False}  # branch 0 is not "earlier"
    for it in items:
        humans = it.human_turns()
        shifts = []
        for b in it.branches:
            said = [b.emotions[i] for i in humans]
            k = said.index(marked)
            assert said == [ref] * k + [marked] * (len(said) - k) and k >= 1, said
            shifts.append(humans[k])
        assert shifts[0] != shifts[1] and shifts == it.meta["shift_turns"]
        # The same words in both branches; the audio of a turn differs only where its value does.
        a, b = it.branches
        for i in humans:
            assert (a.audio[i] == b.audio[i]) == (a.emotions[i] == b.emotions[i])


def test_every_changed_turn_carries_the_contrast(built: Path) -> None:
    ds = load_dataset(built)
    name = ds.manifest.dimension
    marked = registry.get(name).values[1].name
    for it in ds.items:
        if not it.task.startswith("positional-"):
            continue
        a, b = it.branches
        for i in it.human_turns():
            if a.emotions[i] == b.emotions[i]:
                continue
            m, r = (a, b) if a.emotions[i] == marked else (b, a)
            xm, rate = sf.read(str(built / m.audio[i]), dtype="float64")
            xr, _ = sf.read(str(built / r.audio[i]), dtype="float64")
            if name == "whisper":
                assert voiced_share(xm, rate) < 0.10 < 0.30 < voiced_share(xr, rate), it.id
            elif name == "urgency":  # the same words said faster
                assert sounding_span_s(xm, rate) < 0.85 * sounding_span_s(xr, rate), it.id
            else:  # hesitation: longer, with long silent pauses the fluent reading lacks
                assert sounding_span_s(xm, rate) > sounding_span_s(xr, rate), it.id
                assert len(interior_gaps_s(xm, rate, 0.35)) > len(interior_gaps_s(xr, rate, 0.35))


def test_the_acoustic_judge_finds_the_turn_and_the_controls_do_not(
    built: Path, tmp_path: Path
) -> None:
    name = load_dataset(built).manifest.dimension
    judges = [f"builtin:{name}", "builtin:first", "builtin:transcript", "builtin:random"]
    args = [a for j in judges for a in ("--judge", j)]
    code, output = cli(
        "run", str(built), *args, "--out", str(tmp_path / "run"), "--probes", "J,P,O,T",
        "--cues", "none,transition",
    )  # fmt: skip
    assert code == 0, output
    rows = [json.loads(ln) for ln in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    acc: dict[tuple[str, str], list[bool]] = {}
    for r in rows:
        if r["task"].startswith("positional-") and r["status"] == "ok":
            acc.setdefault((r["judge"], r["probe"]), []).append(bool(r["correct"]))
    share = {k: sum(v) / len(v) for k, v in acc.items()}
    ear = f"builtin:{name}"
    # Hears each turn, finds the change and maps it to the reply about that turn.
    assert share[(ear, "P")] == 1.0 and share[(ear, "J")] >= 0.9 and share[(ear, "O")] == 1.0
    # Known behaviour: the words are the same in both branches, so no text-only reading and
    # no fixed position can do better than chance on J; T gives them nothing to go on.
    assert share[("builtin:first", "J")] == 0.5
    assert share[("builtin:transcript", "J")] == 0.5


@pytest.mark.parametrize("name", ["emphasis", "sarcasm"])
def test_dimensions_without_positional_items_say_why(name: str) -> None:
    dim = registry.get(name)
    assert "positional" not in dim.item_kinds and positional_texts(dim) == ()
    code, output = cli("dimensions", name)
    assert code == 0 and f"no positional items: {dim.no_positional[:30]}" in output
