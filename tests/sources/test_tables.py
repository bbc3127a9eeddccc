from __future__ import annotations

from pathlib import Path

import pytest

from paraudit.errors import ParauditError
from paraudit.sources.tables import ColumnMap, read_rows


def test_map_parsing() -> None:
    m = ColumnMap.parse("sentence=text, turns.is_agent=bot")
    assert m.top == {"sentence": "text"} and m.turn == {"is_agent": "bot"}
    assert m.describe() == {"sentence": "text", "turns.is_agent": "bot"}
    for bad in ("sentence", "=x", "a="):
        with pytest.raises(ParauditError, match="--map"):
            ColumnMap.parse(bad)


def test_formats(tmp_path: Path) -> None:
    (tmp_path / "a.tsv").write_text("text\tn\nhello\t1\n")
    assert list(read_rows(tmp_path / "a.tsv", ColumnMap.parse("sentence=text"))) == [
        (2, {"text": "hello", "n": "1", "sentence": "hello"})
    ]
    (tmp_path / "b.jsonl").write_text('{"a": 1}\n[1]\n')
    with pytest.raises(ParauditError, match="b.jsonl:2: expected a JSON object"):
        list(read_rows(tmp_path / "b.jsonl"))
    (tmp_path / "c.txt").write_text("x")
    with pytest.raises(ParauditError, match="unknown source format"):
        list(read_rows(tmp_path / "c.txt"))
    with pytest.raises(ParauditError, match="no such source"):
        list(read_rows(tmp_path / "nope.jsonl"))
    (tmp_path / "d").mkdir()
    with pytest.raises(ParauditError, match="saved Hugging Face"):
        list(read_rows(tmp_path / "d"))


def test_saved_hugging_face_dataset(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    datasets.Dataset.from_list([{"utt": "hi there", "pair": "joy/sadness"}]).save_to_disk(
        str(tmp_path / "hf")
    )
    ((n, row),) = list(read_rows(tmp_path / "hf", ColumnMap.parse("sentence=utt")))
    assert n == 1 and row["sentence"] == "hi there"
