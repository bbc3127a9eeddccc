from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from paraudit.errors import ParauditError
from paraudit.items.records import Turn
from paraudit.sources.od3 import Dialogue, corpus_counts, format_source, read_od3, weighted_order
from paraudit.sources.tables import ColumnMap
from tests.builders.fakes import write_od3


def test_read_od3_roles_and_turn_order(tmp_path: Path) -> None:
    rec = {
        "sample_id": "s1",
        "source_dataset": "kvret",
        "turns": [
            {"turn_id": 1, "is_agent": True, "text": "Sure."},
            {"turn_id": 0, "is_agent": False, "text": "Find  gas."},
        ],
    }
    src = tmp_path / "o.jsonl"
    src.write_text(json.dumps(rec) + "\n")
    (d,) = read_od3(src)
    assert [t.speaker for t in d.turns] == ["human", "assistant"]
    assert d.turns[0].text == "Find gas." and d.corpus_name == "KVRET"
    assert format_source(d) == 'HUMAN: "Find gas."\nVA: "Sure."'


def test_mapped_turn_fields_and_errors(tmp_path: Path) -> None:
    rec = {"id": "s1", "turns": [{"utt": "hi", "agent": 0}]}
    src = tmp_path / "o.jsonl"
    src.write_text(json.dumps(rec) + "\n")
    (d,) = read_od3(src, ColumnMap.parse("sample_id=id,turns.text=utt,turns.is_agent=agent"))
    assert d.turns == (Turn(speaker="human", text="hi"),) and d.corpus == "unknown"
    with pytest.raises(ParauditError, match="needs 'text' and 'is_agent'"):
        read_od3(src, ColumnMap.parse("sample_id=id"))
    src.write_text(json.dumps(rec) + "\n" + json.dumps(rec) + "\n")
    with pytest.raises(ParauditError, match="duplicate sample_id"):
        read_od3(src, ColumnMap.parse("sample_id=id,turns.text=utt,turns.is_agent=agent"))


def _dialogues(sizes: dict[str, int]) -> list[Dialogue]:
    t = (Turn(speaker="human", text="a"),)
    return [Dialogue(f"{c}-{i}", c, t) for c, n in sizes.items() for i in range(n)]


def test_weighted_order_is_near_uniform_across_corpora_and_seeded() -> None:
    ds = _dialogues({"MultiWOZ_2.2": 900, "kvret": 50, "NOESIS": 50})
    heads = Counter()
    for seed in range(20):
        heads.update(d.corpus for d in weighted_order(ds, seed)[:30])
    # Uniform weighting: about a third each; OD3's own mix would give MultiWOZ 90 %.
    assert all(0.25 < heads[c] / 600 < 0.42 for c in ("MultiWOZ_2.2", "kvret", "NOESIS"))
    natural = Counter(d.corpus for d in weighted_order(ds, 0, alpha=0.0)[:100])
    assert natural["MultiWOZ_2.2"] > 75
    assert [d.id for d in weighted_order(ds, 3)] == [d.id for d in weighted_order(ds, 3)]
    assert [d.id for d in weighted_order(ds, 3)] != [d.id for d in weighted_order(ds, 4)]
    assert sorted(d.id for d in weighted_order(ds, 3)) == sorted(d.id for d in ds)


def test_sample_file_has_every_od3_corpus(tmp_path: Path) -> None:
    ds = read_od3(write_od3(tmp_path / "o.jsonl"))
    assert set(corpus_counts(ds)) == {
        "KVRET",
        "MultiWOZ",
        "NOESIS-II",
        "SIMMC-2.1",
        "DSTC11 Track 5",
    }
