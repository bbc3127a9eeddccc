"""Fault injection, audio files (issue 19 item 5): a clip is what its name says. Same rows and
invariants as test_faults.py.

Case list:
  validate   WAV bytes named .mp3 · a WAV whose header claims twice the data present
  run        WAV bytes named .mp3 (refused before any judge call: hosted judges would declare
             format=mp3)
Positive control: a streamed WAV (data size 0xFFFFFFFF, "unknown") still validates.
"""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

import pytest

from paraudit.items.clips import container_problem
from tests.cli.test_faults import Case, _check, _clip, _ds, _invoke, _snapshot


def _rename_clip(ds: Path, data: bytes, suffix: str) -> None:
    """Replace the first clip by `data` stored as <sha256><suffix>, items.jsonl following."""
    old = _clip(ds)
    new = old.with_name(hashlib.sha256(data).hexdigest() + suffix)
    old.unlink()
    new.write_bytes(data)
    items = ds / "items.jsonl"
    items.write_text(items.read_text().replace(old.name, new.name))


def _data_offset(raw: bytes) -> int:
    return raw.index(b"data") + 4


def _wav_named_mp3(t: Path) -> Path:
    ds = _ds(t)
    _rename_clip(ds, _clip(ds).read_bytes(), ".mp3")
    return ds


def _truncated_wav(t: Path) -> Path:
    ds = _ds(t)
    raw = _clip(ds).read_bytes()
    at = _data_offset(raw)
    (size,) = struct.unpack("<I", raw[at : at + 4])
    _rename_clip(ds, raw[:at] + struct.pack("<I", 2 * size) + raw[at + 4 :], ".wav")
    return ds


CASES = [
    Case(
        "validate-wav-named-mp3",
        lambda t: ["validate", str(_wav_named_mp3(t))],
        "holds WAV audio but is named .mp3; rename it to .wav",
    ),
    Case(
        "validate-truncated-wav",
        lambda t: ["validate", str(_truncated_wav(t))],
        "is truncated: its WAV header claims",
    ),
    Case(
        "run-wav-named-mp3",
        lambda t: [
            "run",
            str(_wav_named_mp3(t)),
            "--judge",
            "builtin:first",
            "--out",
            str(t / "r"),
        ],
        "named .mp3",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_audio_fault(case: Case, tmp_path: Path) -> None:
    args = case.setup(tmp_path)
    before = _snapshot(tmp_path)
    code, out = _invoke(*args)
    _check(code, out, case, args[0], _snapshot(tmp_path) == before)


def test_a_streamed_wav_of_unknown_length_still_validates(tmp_path: Path) -> None:
    ds = _ds(tmp_path)
    raw = _clip(ds).read_bytes()
    at = _data_offset(raw)
    _rename_clip(ds, raw[:at] + b"\xff\xff\xff\xff" + raw[at + 4 :], ".wav")
    code, out = _invoke("validate", str(ds))
    assert code == 0, out


def test_container_rules() -> None:
    riff = b"RIFF\x00\x00\x00\x00WAVE" + b"junk" + struct.pack("<I", 3) + b"abc\x00"
    whole = riff + b"data" + struct.pack("<I", 4) + b"\x00\x01\x02\x03"
    assert container_problem("a.wav", whole, "WAV") is None  # an odd chunk's pad byte skipped
    cut = container_problem("a.wav", whole[:-2], "WAV")
    assert cut is not None and "claims 4 bytes of audio but the file holds 2" in cut
    assert "named .wav" in str(container_problem("a.wav", b"ID3", "MP3"))
    assert container_problem("a.mp3", b"ID3", "MP3") is None
    assert container_problem("a.weird", b"", "WAV") is None  # no promise made by the name
