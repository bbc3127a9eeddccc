"""One test per validate rule, each on a dataset made in the test and then broken."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from paraudit.items.dataset import ITEMS
from paraudit.items.validate import validate_dataset


def _edit(root: Path, fn: Callable[[list[dict[str, Any]]], None]) -> None:
    path = root / ITEMS
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    fn(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _fields(root: Path) -> list[str]:
    return [p.field for p in validate_dataset(root)]


def test_valid_dataset_has_no_problems(tiny_dataset: Path) -> None:
    assert validate_dataset(tiny_dataset) == []


def test_broken_json_line_is_reported_not_raised(tiny_dataset: Path) -> None:
    with (tiny_dataset / ITEMS).open("a") as f:
        f.write("{not json\n")
    problems = validate_dataset(tiny_dataset)
    assert [(p.line, p.field) for p in problems] == [(3, "json")]


def test_schema_error_names_the_field(tiny_dataset: Path) -> None:
    _edit(tiny_dataset, lambda rows: rows[0]["context"][0].update(speaker="robot"))
    problems = validate_dataset(tiny_dataset)
    assert problems[0].line == 1 and problems[0].item_id == "st-1"
    assert problems[0].field == "context.0.speaker"


def test_duplicate_ids(tiny_dataset: Path) -> None:
    _edit(tiny_dataset, lambda rows: rows[1].update(id="st-1"))
    assert any(p.field == "id" and "duplicate" in p.message for p in validate_dataset(tiny_dataset))


def test_unknown_emotion_label(tiny_dataset: Path) -> None:
    _edit(tiny_dataset, lambda rows: rows[0]["branches"][0].update(emotions=["furious"]))
    assert "branches.0.emotions.0" in _fields(tiny_dataset)


def test_unknown_response_emotion(tiny_dataset: Path) -> None:
    _edit(tiny_dataset, lambda rows: rows[0]["branches"][1]["response"].update(emotion="smug"))
    assert "branches.1.response.emotion" in _fields(tiny_dataset)


def test_branches_must_differ_in_a_human_emotion(tiny_dataset: Path) -> None:
    _edit(tiny_dataset, lambda rows: rows[0]["branches"][1].update(emotions=["angry"]))
    assert "branches" in _fields(tiny_dataset)


def test_responses_must_differ(tiny_dataset: Path) -> None:
    def same(rows: list[dict[str, Any]]) -> None:
        rows[0]["branches"][1]["response"]["text"] = rows[0]["branches"][0]["response"]["text"]

    _edit(tiny_dataset, same)
    assert "branches.response.text" in _fields(tiny_dataset)


def test_labels_and_audio_per_context_turn(tiny_dataset: Path) -> None:
    _edit(tiny_dataset, lambda rows: rows[1]["branches"][0]["emotions"].pop())
    assert "branches.0.emotions" in _fields(tiny_dataset)


def test_single_turn_needs_exactly_one_human_turn(tiny_dataset: Path) -> None:
    def two(rows: list[dict[str, Any]]) -> None:
        rows[0]["context"].append({"speaker": "human", "text": "Again."})
        for b in rows[0]["branches"]:
            b["emotions"].append("neutral")
            b["audio"].append(b["audio"][0])

    _edit(tiny_dataset, two)
    assert "context" in _fields(tiny_dataset)


def test_positional_branches_shift_at_different_turns(tiny_dataset: Path) -> None:
    def same_shift(rows: list[dict[str, Any]]) -> None:
        rows[1]["branches"][1]["emotions"] = ["neutral", "neutral", "angry", "neutral", "sad"]

    _edit(tiny_dataset, same_shift)
    problems = validate_dataset(tiny_dataset)
    assert any("same turn" in p.message for p in problems)


def test_positional_branch_must_shift(tiny_dataset: Path) -> None:
    _edit(tiny_dataset, lambda rows: rows[1]["branches"][1].update(emotions=["neutral"] * 5))
    assert any("never shifts" in p.message for p in validate_dataset(tiny_dataset))


def test_missing_audio_file(tiny_dataset: Path) -> None:
    victim = sorted((tiny_dataset / "audio").iterdir())[0]
    victim.unlink()
    problems = validate_dataset(tiny_dataset)
    assert any(p.field == "audio" and "does not exist" in p.message for p in problems)


def test_corrupt_audio_file(tiny_dataset: Path) -> None:
    victim = sorted((tiny_dataset / "audio").iterdir())[0]
    victim.write_bytes(b"RIFF garbage that is not a wav")
    assert any("does not decode" in p.message for p in validate_dataset(tiny_dataset))


def _overwrite_audio(root: Path, samples: np.ndarray) -> None:
    victim = sorted((root / "audio").iterdir())[0]
    sf.write(str(victim), samples, 16000, subtype="PCM_16", format="WAV")


def test_silent_audio(tiny_dataset: Path) -> None:
    _overwrite_audio(tiny_dataset, np.zeros(16000))
    assert any("silent" in p.message for p in validate_dataset(tiny_dataset, check_hashes=False))


def test_too_short_and_too_long_audio(tiny_dataset: Path) -> None:
    _overwrite_audio(tiny_dataset, 0.3 * np.ones(1600))
    assert any(
        "lasts 0.10 s" in p.message for p in validate_dataset(tiny_dataset, check_hashes=False)
    )
    _overwrite_audio(tiny_dataset, 0.3 * np.ones(16000 * 61))
    assert any(
        "lasts 61.00 s" in p.message for p in validate_dataset(tiny_dataset, check_hashes=False)
    )


def test_audio_name_must_be_its_content_hash(tiny_dataset: Path) -> None:
    _overwrite_audio(tiny_dataset, 0.3 * np.sin(np.arange(16000) / 5))
    assert any("sha256" in p.message for p in validate_dataset(tiny_dataset))


def test_audio_path_must_stay_inside_the_folder(tiny_dataset: Path) -> None:
    _edit(tiny_dataset, lambda rows: rows[0]["branches"][0].update(audio=["../../etc/passwd"]))
    assert any("inside audio/" in p.message for p in validate_dataset(tiny_dataset))


def test_missing_manifest(tiny_dataset: Path) -> None:
    (tiny_dataset / "dataset.json").unlink()
    assert validate_dataset(tiny_dataset)[0].field == "dataset.json"


def test_unknown_schema_version(tiny_dataset: Path) -> None:
    m = json.loads((tiny_dataset / "dataset.json").read_text())
    m["schema_version"] = 99
    (tiny_dataset / "dataset.json").write_text(json.dumps(m))
    assert "schema version 99" in validate_dataset(tiny_dataset)[0].message


def test_invalid_utf8_line_does_not_crash(tiny_dataset: Path) -> None:
    with (tiny_dataset / ITEMS).open("ab") as f:
        f.write(b"\xff\xfe{\n")
    assert any(p.field == "json" for p in validate_dataset(tiny_dataset))
