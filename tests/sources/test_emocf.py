from __future__ import annotations

import json
from pathlib import Path

import pytest

from paraudit.errors import ParauditError
from paraudit.sources.emocf import pair_counts, read_emocf
from paraudit.sources.tables import ColumnMap
from tests.builders.fakes import write_emocf


def test_pairs_group_lines_by_sentence_and_expected_emotions(tmp_path: Path) -> None:
    pairs = read_emocf(write_emocf(tmp_path / "e.jsonl"))
    assert len(pairs) == 7
    p = pairs[0]
    assert p.emotions == ("angry", "sad") and p.source_labels == ("anger", "sadness")
    assert p.recordings[0] == (tmp_path / "clips/000_anger.wav").resolve()
    assert pair_counts(pairs)["anger/sadness"] == 2
    # The id never carries the file name (which names the emotion).
    assert "anger" not in p.key and len(p.key) == 12


def test_string_pairs_reordered_lines_and_audio_root(tmp_path: Path) -> None:
    rows = [
        {
            "filename": "b.wav",
            "emotion": "sadness",
            "sentence": "It  rained.",
            "expected_emotions": "anger/sadness",
        },
        {
            "filename": "a.wav",
            "emotion": "anger",
            "sentence": "It rained.",
            "expected_emotions": ["sadness", "anger"],
        },
    ]
    src = tmp_path / "e.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (pair,) = read_emocf(src, audio_root=tmp_path / "audio")
    assert pair.emotions == ("angry", "sad")
    assert pair.recordings == (
        (tmp_path / "audio/a.wav").resolve(),
        (tmp_path / "audio/b.wav").resolve(),
    )


def test_csv_with_a_column_map(tmp_path: Path) -> None:
    src = tmp_path / "s.csv"
    src.write_text("text,pair\nThe bus is late.,surprise|neutral\n")
    (pair,) = read_emocf(src, ColumnMap.parse("sentence=text,expected_emotions=pair"))
    assert pair.emotions == ("surprised", "neutral") and pair.recordings == (None, None)


@pytest.mark.parametrize(
    ("row", "words"),
    [
        (
            {"sentence": "x", "expected_emotions": ["anger", "boredom"]},
            "unknown emotion label 'boredom'",
        ),
        ({"sentence": "x", "expected_emotions": ["anger"]}, "exactly two"),
        ({"expected_emotions": ["anger", "joy"]}, "--map sentence=COLUMN"),
        (
            {
                "sentence": "x",
                "expected_emotions": ["anger", "joy"],
                "emotion": "fear",
                "filename": "f.wav",
            },
            "not one of the pair",
        ),
    ],
)
def test_user_mistakes_name_the_line(tmp_path: Path, row: dict[str, object], words: str) -> None:
    src = tmp_path / "e.jsonl"
    src.write_text("\n" + json.dumps(row) + "\n")
    with pytest.raises(ParauditError) as e:
        read_emocf(src)
    assert f"{src}:2" in str(e.value) and words in str(e.value)
