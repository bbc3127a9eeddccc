"""RunSpec: dataset fingerprint, differences, and what --extend may grow."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from paraudit.errors import ParauditError
from paraudit.runfolder import RunSpec, dataset_fingerprint, read_run_json, write_run_json


def spec(**over: object) -> RunSpec:
    base = RunSpec(
        dataset_fingerprint="f" * 64,
        dataset_name="d",
        judges=("builtin:random",),
        probes=("J",),
        protocols=("pointwise",),
        cues=("none",),
        orders="both",
        seed=0,
        limit=None,
        parse_retries=0,
    )
    return dataclasses.replace(base, **over)  # type: ignore[arg-type]


def test_fingerprint_follows_manifest_items_and_audio_names(tiny_dataset: Path) -> None:
    first = dataset_fingerprint(tiny_dataset)
    assert dataset_fingerprint(tiny_dataset) == first
    with (tiny_dataset / "items.jsonl").open("a") as f:
        f.write("\n")
    second = dataset_fingerprint(tiny_dataset)
    assert second != first
    (tiny_dataset / "audio" / "extra.wav").write_bytes(b"")
    assert dataset_fingerprint(tiny_dataset) != second


def test_differences_name_each_field() -> None:
    a, b = spec(), spec(judges=("builtin:first",), seed=3)
    assert a.differences(a) == []
    diff = a.differences(b)
    assert diff == ["judges: builtin:random → builtin:first", "seed: 0 → 3"]
    assert RunSpec.from_dict(b.as_dict()) == b


def test_extend_adds_but_refuses_other_changes() -> None:
    a = spec()
    grown = a.extended_by(spec(judges=("builtin:first",), cues=("none", "hard")))
    assert grown.judges == ("builtin:random", "builtin:first")
    assert grown.cues == ("none", "hard") and grown.probes == ("J",)
    with pytest.raises(ParauditError, match="dataset_fingerprint"):
        a.extended_by(spec(dataset_fingerprint="0" * 64))
    with pytest.raises(ParauditError, match="orders: both → one"):
        a.extended_by(spec(orders="one"))


def test_damaged_spec_and_run_json_are_clear(tmp_path: Path) -> None:
    raw = spec().as_dict()
    del raw["seed"]
    with pytest.raises(ParauditError, match="lacks 'seed'"):
        RunSpec.from_dict(raw)
    assert read_run_json(tmp_path) is None
    write_run_json(tmp_path, {"spec": spec().as_dict()})
    assert read_run_json(tmp_path) == {"spec": spec().as_dict()}
    (tmp_path / "run.json").write_text("{half")
    with pytest.raises(ParauditError, match="run.json is unreadable"):
        read_run_json(tmp_path)


def test_the_parse_preset_is_written_only_when_not_the_default() -> None:
    """A default run's run.json (and every folder written before the preset) reads as before;
    a lenient run is a different run (its answers differ), and says so."""
    plain = spec()
    assert "parse" not in plain.as_dict()
    assert RunSpec.from_dict(plain.as_dict()) == plain
    lenient = spec(parse="lenient")
    assert lenient.as_dict()["parse"] == "lenient"
    assert RunSpec.from_dict(lenient.as_dict()) == lenient
    assert plain.differences(lenient) == ["parse: strict → lenient"]
