from __future__ import annotations

from pathlib import Path

import pytest

from paraudit.errors import DatasetError
from paraudit.items.dataset import load_dataset
from paraudit.items.hf import export_hf, import_hf
from paraudit.items.validate import validate_dataset

pytest.importorskip("datasets", reason="the 'datasets' extra is not installed")


def test_export_import_round_trip(tiny_dataset: Path, tmp_path: Path) -> None:
    import datasets

    assert export_hf(tiny_dataset, tmp_path / "hf") == 2
    hf = datasets.load_from_disk(str(tmp_path / "hf"))
    assert isinstance(hf.features["branch0_response_audio"], datasets.Audio)
    assert import_hf(tmp_path / "hf", tmp_path / "back") == 2
    a, b = load_dataset(tiny_dataset), load_dataset(tmp_path / "back")
    assert a.manifest == b.manifest and a.items == b.items
    for rel in a.items[1].audio_files():
        assert a.audio_path(rel).read_bytes() == b.audio_path(rel).read_bytes()
    assert validate_dataset(tmp_path / "back") == []


def test_import_of_something_else_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="not a saved Hugging Face dataset"):
        import_hf(tmp_path, tmp_path / "out")
