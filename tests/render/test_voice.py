from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paraudit.errors import VoiceError
from paraudit.render.piper_voice import resolve_voice


def test_bundled_voice_resolves() -> None:
    v = resolve_voice(None)
    assert v.sample_rate == 22050 and len(v.sha256) == 64


def test_a_voice_file_rewritten_in_place_gets_its_new_hash(tmp_path: Path) -> None:
    """The model's hash is kept per process while the file's stat is unchanged (every render
    resolves its voice); a file rewritten at the same path, even to the same size, is hashed
    again, so renders of the new model never reuse the old one's cache keys."""
    import hashlib
    import os

    f = tmp_path / "v.onnx"
    Path(f"{f}.json").write_text(
        json.dumps({"audio": {"sample_rate": 22050}, "phoneme_id_map": {}})
    )
    f.write_bytes(b"\x08\x07" + b"a" * 100)
    first = resolve_voice(f).sha256
    assert first == hashlib.sha256(f.read_bytes()).hexdigest() == resolve_voice(f).sha256
    st = f.stat()
    f.write_bytes(b"\x08\x07" + b"b" * 100)  # same size
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert resolve_voice(f).sha256 == hashlib.sha256(f.read_bytes()).hexdigest() != first


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


def test_a_repeated_rendering_comes_from_the_memo_with_the_same_samples(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Twins, neutral and "surprised" turns ask Piper for the same (phrase, rate) again: the
    loaded voice answers from memory, with exactly a fresh rendering's samples, and a caller
    changing what it got changes nothing kept."""
    from paraudit.render import piper_voice

    synth = piper_voice.PiperSynth(resolve_voice(None))  # its own memo, not the shared voice's
    first = synth.synthesize("The parcel came today.", 1.0)
    first[:] = 0.0  # the caller's copy
    again = synth.synthesize("The parcel came today.", 1.0)
    assert synth.memo.loads == 1 and again.dtype == np.float64 and again.flags.writeable
    fresh = piper_voice.PiperSynth(resolve_voice(None)).synthesize("The parcel came today.", 1.0)
    assert np.array_equal(again, fresh) and np.abs(again).max() > 0.1
    slower = synth.synthesize("The parcel came today.", 1.2)  # another rate: another rendering
    assert synth.memo.loads == 2 and len(slower) > len(again)
    # Over the byte budget the oldest rendering goes first.
    monkeypatch.setattr(synth.memo, "budget", again.size * 4 + 1)
    synth.synthesize("It was late.", 1.0)
    assert synth.memo.keys() == [("It was late.", 1.0)]
    synth.synthesize("The parcel came today.", 1.0)
    assert synth.memo.loads == 4
