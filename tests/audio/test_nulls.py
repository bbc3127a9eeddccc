"""Null stand-ins of real (Piper-rendered) clips: format kept, speech gone, bytes reproducible."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import soundfile as sf

from paraudit.audio.nulls import ltas, null_audio
from paraudit.items.clips import container_problem
from paraudit.judges.payloads import read_audio
from paraudit.protocols.parts import AudioPart
from paraudit.qc.acoustics import clean_pitch


def _clips(ds: Path, n: int = 4) -> list[Path]:
    return sorted((ds / "audio").glob("*.wav"))[:n]


def test_silence_and_noise_keep_the_clip_format(starter_small: Path) -> None:
    for path in _clips(starter_small):
        src = sf.info(str(path))
        x, rate = sf.read(str(path))
        for kind in ("silence", "noise"):
            data = null_audio(path, path.stem, kind)
            got = sf.info(io.BytesIO(data))
            assert (got.frames, got.samplerate, got.channels, got.format, got.subtype) == (
                src.frames, src.samplerate, src.channels, src.format, src.subtype)  # fmt: skip
            y, _ = sf.read(io.BytesIO(data))
            if kind == "silence":
                assert not np.any(y)
            else:  # the clip's RMS (within 16-bit rounding)
                assert abs(np.sqrt(np.mean(y**2)) - np.sqrt(np.mean(x**2))) < 1e-3
            # what the judges' payload code and the dataset checks apply to a clip
            part = AudioPart(path.with_name(f"x{kind}.wav"), "x")
            part.path.write_bytes(data)
            assert read_audio(part).data == data
            assert container_problem(part.path.name, data, got.format) is None
            part.path.unlink()


def test_noise_is_speech_shaped_and_holds_no_voice(starter_small: Path) -> None:
    for path in _clips(starter_small):
        x, rate = sf.read(str(path))
        y, _ = sf.read(io.BytesIO(null_audio(path, path.stem, "noise")))
        _, f0_speech = clean_pitch(x, rate)
        _, f0_noise = clean_pitch(y, rate)
        assert f0_speech.size > 20 and f0_noise.size == 0
        # its long-term spectrum follows the clip's (log spectra correlate), unlike white noise
        a, b = np.log(ltas(x, rate) + 1e-9), np.log(ltas(y, rate) + 1e-9)
        white = np.log(ltas(np.random.default_rng(0).normal(0, 0.05, len(x)), rate) + 1e-9)
        assert np.corrcoef(a, b)[0, 1] > 0.9 > np.corrcoef(a, white)[0, 1]


def test_bytes_are_reproducible_and_seeded_by_the_source(starter_small: Path) -> None:
    path = _clips(starter_small, 1)[0]
    assert null_audio(path, path.stem, "noise") == null_audio(path, path.stem, "noise")
    assert null_audio(path, path.stem, "noise") != null_audio(path, "0" * 64, "noise")
    assert null_audio(path, path.stem, "silence") == null_audio(path, "0" * 64, "silence")
