from __future__ import annotations

from pathlib import Path

import pytest

from paraudit.errors import DatasetError
from paraudit.items.dataset import load_dataset, write_dataset
from paraudit.items.validate import validate_dataset
from tests.conftest import make_dataset


def test_failed_write_leaves_no_dataset_and_no_temp(tmp_path: Path) -> None:
    manifest, items, audio = make_dataset(tmp_path / "ok", tmp_path / "src")
    missing = dict(list(audio.items())[:1])  # not every referenced clip is given
    with pytest.raises(DatasetError):
        write_dataset(tmp_path / "new", manifest, items, missing)
    assert not (tmp_path / "new").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".new")]


def test_failed_rewrite_keeps_the_old_dataset(tmp_path: Path) -> None:
    manifest, items, audio = make_dataset(tmp_path / "ds", tmp_path / "src")
    with pytest.raises(DatasetError):
        write_dataset(tmp_path / "ds", manifest, items, {})
    assert load_dataset(tmp_path / "ds").items == tuple(items)
    assert validate_dataset(tmp_path / "ds") == []


def test_refuses_to_replace_a_folder_that_is_not_a_dataset(tmp_path: Path) -> None:
    manifest, items, audio = make_dataset(tmp_path / "ds", tmp_path / "src")
    other = tmp_path / "home"
    other.mkdir()
    (other / "precious.txt").write_text("keep me")
    with pytest.raises(DatasetError, match="not a dataset folder"):
        write_dataset(other, manifest, items, audio)
    assert (other / "precious.txt").read_text() == "keep me"
