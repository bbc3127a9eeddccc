from __future__ import annotations

from pathlib import Path

import pytest

from paraudit.errors import DatasetError
from paraudit.items.dataset import load_dataset, write_dataset
from paraudit.items.hf import export_hf, import_hf
from paraudit.items.validate import validate_dataset
from paraudit.runfolder.spec import dataset_fingerprint
from tests.conftest import needs

pytestmark = needs("datasets", "datasets")


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


def test_import_names_a_malformed_row_and_writes_nothing(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    import datasets

    export_hf(tiny_dataset, tmp_path / "hf")
    hf = datasets.load_from_disk(str(tmp_path / "hf"))
    broken = hf.map(
        lambda row, i: {"meta_json": "{not json" if i == 1 else row["meta_json"]}, with_indices=True
    )
    broken.save_to_disk(str(tmp_path / "broken"))
    with pytest.raises(DatasetError, match=r"row 2 is not a paraudit item \(JSONDecodeError"):
        import_hf(tmp_path / "broken", tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


def test_import_that_does_not_validate_keeps_the_old_dataset(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    import datasets

    export_hf(tiny_dataset, tmp_path / "hf")
    hf = datasets.load_from_disk(str(tmp_path / "hf"))
    unknown = hf.map(lambda row: {"branch0_emotions": ["furious"] * len(row["branch0_emotions"])})
    unknown.save_to_disk(str(tmp_path / "bad"))
    before = (tiny_dataset / "items.jsonl").read_bytes()
    with pytest.raises(DatasetError, match="does not validate.*unknown emotion label 'furious'"):
        import_hf(tmp_path / "bad", tiny_dataset, overwrite=True)
    assert (tiny_dataset / "items.jsonl").read_bytes() == before


def test_export_refuses_to_overwrite_unless_told(tiny_dataset: Path, tmp_path: Path) -> None:
    export_hf(tiny_dataset, tmp_path / "hf")
    with pytest.raises(DatasetError, match="not empty"):
        export_hf(tiny_dataset, tmp_path / "hf")
    assert export_hf(tiny_dataset, tmp_path / "hf", overwrite=True) == 2
    with pytest.raises(DatasetError, match="no state.json"):
        export_hf(tiny_dataset, tiny_dataset, overwrite=True)


def test_round_trip_keeps_items_jsonl_byte_identical(tiny_dataset: Path, tmp_path: Path) -> None:
    """meta keys keep their order (nested ones too), so the dataset fingerprint a run records
    is the same before and after export/import."""
    src = load_dataset(tiny_dataset)
    meta = {"zeta": 1, "alpha": {"y": [2, "b"], "b": None}, "pair": "é/ü"}  # not sorted
    items = [it.model_copy(update={"meta": meta}) for it in src.items]
    audio = {rel: src.audio_path(rel) for it in src.items for rel in it.audio_files()}
    write_dataset(tmp_path / "ds", src.manifest, items, audio)
    export_hf(tmp_path / "ds", tmp_path / "hf")
    import_hf(tmp_path / "hf", tmp_path / "back")
    for name in ("items.jsonl", "dataset.json"):
        assert (tmp_path / "back" / name).read_bytes() == (tmp_path / "ds" / name).read_bytes()
    assert list(load_dataset(tmp_path / "back").items[0].meta) == ["zeta", "alpha", "pair"]
    assert dataset_fingerprint(tmp_path / "back") == dataset_fingerprint(tmp_path / "ds")
