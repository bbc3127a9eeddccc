"""One test per validate rule, each on a dataset made in the test and then broken."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from paraudit.errors import DatasetError
from paraudit.items.dataset import ITEMS, load_dataset
from paraudit.items.records import AuditItem
from paraudit.items.validate import errors_of, validate_dataset


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


def test_invalid_utf8_line_is_named_not_replaced(tiny_dataset: Path) -> None:
    with (tiny_dataset / ITEMS).open("ab") as f:
        f.write(b"\xff\xfe{\n")
    problems = validate_dataset(tiny_dataset)
    assert [(p.line, p.field) for p in problems] == [(3, "encoding")]
    assert "0xff" in problems[0].message and "UTF-8" in problems[0].message


def test_non_utf8_text_inside_a_valid_item_is_an_error(tiny_dataset: Path) -> None:
    # Latin-1 "café" in a transcript: once silently became U+FFFD.
    path = tiny_dataset / ITEMS
    lines = path.read_bytes().splitlines(keepends=True)
    lines[0] = lines[0].replace(b"Friday", b"caf\xe9 Friday")
    path.write_bytes(b"".join(lines))
    problems = validate_dataset(tiny_dataset)
    assert [(p.line, p.field, p.severity) for p in problems] == [(1, "encoding", "error")]
    with pytest.raises(DatasetError, match=r"items.jsonl:1: not valid UTF-8 \(byte 0xe9"):
        load_dataset(tiny_dataset)


def test_replacement_character_in_text_is_a_warning(tiny_dataset: Path) -> None:
    _edit(tiny_dataset, lambda rows: rows[0]["context"][0].update(text="caf\ufffd moved"))
    problems = validate_dataset(tiny_dataset)
    assert [(p.field, p.severity) for p in problems] == [("text", "warning")]
    assert errors_of(problems) == []


# -- audio rules: one clip at a time, then across the dataset ----------------------------------


def _clip_of(root: Path, row: int, branch: int, turn: int) -> Path:
    rows = [json.loads(line) for line in (root / ITEMS).read_text().splitlines()]
    return root / rows[row]["branches"][branch]["audio"][turn]


def _write_clip(
    path: Path, rate: int = 16000, channels: int = 1, subtype: str = "PCM_16", freq: float = 170
) -> None:
    t = np.arange(rate) / rate
    x = 0.3 * np.sin(2 * np.pi * freq * t)
    sf.write(str(path), np.stack([x] * channels, axis=1), rate, subtype=subtype, format="WAV")


def test_stereo_clip_is_refused(tiny_dataset: Path) -> None:
    _write_clip(_clip_of(tiny_dataset, 0, 0, 0), channels=2)
    problems = validate_dataset(tiny_dataset, check_hashes=False)
    assert [p.message.split(": ", 1)[1] for p in problems] == [
        "has 2 channels; clips must be mono (downmix it to one channel)"
    ]


def test_empty_wav_names_the_problem_not_a_buffer(tiny_dataset: Path) -> None:
    _clip_of(tiny_dataset, 0, 0, 0).write_bytes(b"")
    problems = validate_dataset(tiny_dataset, check_hashes=False)
    assert len(problems) == 1 and "is empty (0 bytes)" in problems[0].message


def test_corrupt_wav_message_has_no_object_repr(tiny_dataset: Path) -> None:
    _clip_of(tiny_dataset, 0, 0, 0).write_bytes(b"RIFF\x00\x00")
    (problem,) = validate_dataset(tiny_dataset, check_hashes=False)
    assert "does not decode as audio" in problem.message
    assert "BytesIO" not in problem.message and "0x" not in problem.message


def test_other_sample_rate_in_one_branch_is_a_format_giveaway(tiny_dataset: Path) -> None:
    _write_clip(_clip_of(tiny_dataset, 0, 0, 0), rate=8000)
    problems = validate_dataset(tiny_dataset, check_hashes=False)
    assert [(p.line, p.severity) for p in problems] == [(1, "error")]
    assert "WAV/PCM_16 8000 Hz differs from the other" in problems[0].message
    assert "mixed_audio_formats" in problems[0].message


def test_other_subtype_is_a_format_giveaway(tiny_dataset: Path) -> None:
    _write_clip(_clip_of(tiny_dataset, 1, 1, 2), subtype="FLOAT")
    problems = validate_dataset(tiny_dataset, check_hashes=False)
    assert [(p.line, p.item_id) for p in problems] == [(2, "pos-1")]
    assert "WAV/FLOAT" in problems[0].message


def test_mixed_formats_allowed_for_imported_sets_but_branch_difference_warned(
    tiny_dataset: Path,
) -> None:
    _write_clip(_clip_of(tiny_dataset, 0, 0, 0), rate=8000)
    manifest = json.loads((tiny_dataset / "dataset.json").read_text())
    manifest["mixed_audio_formats"] = True
    (tiny_dataset / "dataset.json").write_text(json.dumps(manifest))
    problems = validate_dataset(tiny_dataset, check_hashes=False)
    assert [(p.item_id, p.severity) for p in problems] == [("st-1", "warning")]
    assert "branches differ in format" in problems[0].message
    # The command-line override wins over the manifest, both ways.
    assert errors_of(validate_dataset(tiny_dataset, check_hashes=False, mixed_formats=False))


def test_mixed_formats_that_do_not_separate_branches_pass(tiny_dataset: Path) -> None:
    # Both branches of st-1 at 8 kHz, pos-1 at 16 kHz: mixed across items, never within one.
    rows = [json.loads(line) for line in (tiny_dataset / ITEMS).read_text().splitlines()]
    for b in (0, 1):
        _write_clip(_clip_of(tiny_dataset, 0, b, 0), rate=8000, freq=150 + 40 * b)
        response = tiny_dataset / rows[0]["branches"][b]["response"]["audio"]
        _write_clip(response, rate=8000, freq=250 + 40 * b)
    assert validate_dataset(tiny_dataset, check_hashes=False, mixed_formats=True) == []


def test_identical_audio_in_both_branches_of_a_changed_turn(tiny_dataset: Path) -> None:
    def same(rows: list[dict[str, Any]]) -> None:
        rows[0]["branches"][1]["audio"] = rows[0]["branches"][0]["audio"]

    _edit(tiny_dataset, same)
    problems = validate_dataset(tiny_dataset)
    assert [p.field for p in problems] == ["branches.audio.0"]
    assert "byte-identical" in problems[0].message and "angry vs sad" in problems[0].message


def test_identical_bytes_under_another_name_are_caught(tiny_dataset: Path) -> None:
    a, b = _clip_of(tiny_dataset, 1, 0, 2), _clip_of(tiny_dataset, 1, 1, 2)
    b.write_bytes(a.read_bytes())
    problems = validate_dataset(tiny_dataset, check_hashes=False)
    assert [p.field for p in problems] == ["branches.audio.2"]


def test_same_emotion_may_share_a_clip(tiny_dataset: Path) -> None:
    # pos-1 shares its turn-0 and turn-4 clips between branches: same emotion, so allowed.
    assert validate_dataset(tiny_dataset) == []


def test_plugged_warning_sources_warn_without_failing(
    tiny_dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paraudit.items import validate as v

    def share(items: Sequence[AuditItem]) -> list[str]:
        return [f"{len(items)} items looked at"]

    monkeypatch.setattr(v, "ITEM_WARNING_SOURCES", (("balance", share),))
    problems = validate_dataset(tiny_dataset)
    assert [(p.field, p.message, p.severity) for p in problems] == [
        ("balance", "2 items looked at", "warning")
    ]
    assert errors_of(problems) == [] and v.dataset_errors(tiny_dataset) == []


def test_branch_balance_and_unaskable_items_are_warnings_not_errors(tiny_dataset: Path) -> None:
    """Validate wires in the balance checks: four copies of the single-turn item that all put
    'angry' in branch 0 are a warning (a fixed habit could score), and so is an item whose
    branch has three human emotions (it gets no P/O/S question); neither is an error."""

    def skew(rows: list[dict[str, Any]]) -> None:
        single = next(r for r in rows if r["id"] == "st-1")
        rows.extend({**single, "id": f"st-copy-{i}"} for i in range(3))
        pos = next(r for r in rows if r["id"] == "pos-1")
        pos["branches"][0]["emotions"] = ["neutral", "neutral", "sad", "neutral", "angry"]

    _edit(tiny_dataset, skew)
    problems = validate_dataset(tiny_dataset)
    assert errors_of(problems) == []
    warned = " | ".join(str(p) for p in problems)
    assert "put it in branch 0" in warned and "'angry'" in warned
    assert "pos-1: no P/O/S instances" in warned


@pytest.mark.parametrize("channels", [1, 2])
def test_pcm16_rms_is_bit_for_bit_the_float32_one(tmp_path: Path, channels: int) -> None:
    """16-bit clips are read as integers for speed; the RMS validate compares with the silence
    threshold must be exactly what reading them as float32 gives, near the threshold too."""
    import io

    from paraudit.items.validate import frames_and_rms

    rng = np.random.default_rng(7)
    for seconds, rate, level in [(0.5, 16000, 0.3), (3.0, 22050, 0.001), (60.0, 48000, 1.0)]:
        n = int(seconds * rate)
        wave = np.clip(rng.normal(0, level, (n, channels)), -1, 1)
        for scale in (1.0, 10 ** (-60 / 20) / max(level, 1e-9), 0.0):  # as is, at -60 dBFS, 0
            buf = io.BytesIO()
            sf.write(buf, wave * scale, rate, subtype="PCM_16", format="WAV")
            with sf.SoundFile(io.BytesIO(buf.getvalue())) as f:
                got = frames_and_rms(f)
            with sf.SoundFile(io.BytesIO(buf.getvalue())) as f:
                data = f.read(dtype="float32", always_2d=True)
            want = float(np.sqrt(np.mean(np.square(data, dtype=np.float64))))
            assert got == (n, want)
