from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from paraudit.items.dataset import item_from_json, item_to_json, load_dataset
from paraudit.items.records import AuditItem, DatasetManifest, Turn
from tests.conftest import make_dataset


def test_item_json_round_trip_is_exact(tmp_path: Path) -> None:
    _, items, _ = make_dataset(tmp_path / "ds", tmp_path / "src", positional=True)
    for item in items:
        line = item_to_json(item)
        again = item_from_json(line)
        assert again == item
        assert item_to_json(again) == line


def test_manifest_round_trip_and_schema_version() -> None:
    m = DatasetManifest(name="x", tasks=("single-turn-emotions",), provenance={"a": [1, 2]})
    assert DatasetManifest.model_validate_json(m.model_dump_json()) == m
    assert m.schema_version == 1


def test_records_are_frozen_and_strict() -> None:
    t = Turn(speaker="human", text="hi")
    with pytest.raises(ValidationError):
        t.text = "changed"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        Turn(speaker="robot", text="hi")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Turn.model_validate({"speaker": "human", "text": "hi", "extra": 1})


def test_every_field_is_documented() -> None:
    for model in (AuditItem, DatasetManifest, Turn):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no docstring"


def test_load_dataset_reads_back_what_was_written(tmp_path: Path) -> None:
    manifest, items, _ = make_dataset(tmp_path / "ds", tmp_path / "src", positional=True)
    ds = load_dataset(tmp_path / "ds")
    assert ds.manifest == manifest
    assert list(ds.items) == items
    for rel in ds.items[0].audio_files():
        assert ds.audio_path(rel).is_file()
