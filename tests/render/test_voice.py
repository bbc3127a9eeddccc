from __future__ import annotations

import json
from pathlib import Path

import pytest

from paraudit.errors import VoiceError
from paraudit.render.piper_voice import resolve_voice


def test_bundled_voice_resolves() -> None:
    v = resolve_voice(None)
    assert v.sample_rate == 22050 and len(v.sha256) == 64


def test_missing_voice_file(tmp_path: Path) -> None:
    with pytest.raises(VoiceError, match="does not exist"):
        resolve_voice(tmp_path / "nope.onnx")


def test_voice_without_config(tmp_path: Path) -> None:
    f = tmp_path / "v.onnx"
    f.write_bytes(b"\x08\x07")
    with pytest.raises(VoiceError, match="missing its config"):
        resolve_voice(f)


def test_file_that_is_not_onnx(tmp_path: Path) -> None:
    f = tmp_path / "v.onnx"
    f.write_text("hello")
    Path(f"{f}.json").write_text(
        json.dumps({"audio": {"sample_rate": 22050}, "phoneme_id_map": {}})
    )
    with pytest.raises(VoiceError, match="not an ONNX model"):
        resolve_voice(f)
