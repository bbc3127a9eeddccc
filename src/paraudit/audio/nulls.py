"""Null audio: a clip's stand-ins that carry no speech, for the null-audio probe N.

Two kinds, each of the source clip's exact length, sample rate, channel count, container and
subtype (a judge's payload code sees the same kind of file it always gets):

- `silence`: digital silence (every sample 0).
- `noise`: speech-shaped noise — noise with the clip's own long-term average spectrum at the
  clip's RMS. The spectrum is averaged over short frames (~12 ms: about 85 Hz resolution), so
  the pitch harmonics of the voice are smeared out and no pitch survives; the average is then
  resynthesised with random phases over the whole clip, which keeps the spectral envelope (what
  makes noise "speech-shaped") and destroys every temporal cue: no words, no intonation, no
  rhythm, nothing an emotion can be read from. (A source that is itself a narrow band — a pure
  test tone — gives narrow-band noise, which a pitch tracker may still call voiced; speech is
  broadband, and on every Piper clip tested Praat finds no voiced frame in its noise.)

Both are deterministic: the noise's random phases are seeded by the source clip's sha256, so a
rerun (or another machine) makes byte-identical files with the same content hash.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Literal

import numpy as np
import soundfile as sf

NullKind = Literal["silence", "noise"]
NULL_KINDS: tuple[NullKind, ...] = ("silence", "noise")
FRAME_S = 0.012
"""Frame length of the long-term spectrum average: short enough that no voice's harmonics
(100 Hz and up) are resolved as lines, so the noise has no pitch."""


def _seed(source_sha256: str, kind: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{source_sha256}|{kind}".encode()).digest()[:8], "big")


def ltas(x: np.ndarray, rate: int) -> np.ndarray:
    """Long-term average magnitude spectrum of mono `x` over frames of ~FRAME_S (Hann
    windowed, half overlap), on the rfft grid of one frame."""
    n = max(16, 1 << round(np.log2(rate * FRAME_S)))
    if len(x) < n:
        x = np.pad(x, (0, n - len(x)))
    hop = n // 2
    starts = np.arange(0, len(x) - n + 1, hop)
    frames = np.stack([x[s : s + n] for s in starts]) * np.hanning(n)
    power = np.mean(np.abs(np.fft.rfft(frames, axis=1)) ** 2, axis=0)
    return np.asarray(np.sqrt(power))


def speech_shaped_noise(x: np.ndarray, rate: int, seed: int) -> np.ndarray:
    """Noise of len(x) samples with x's long-term spectrum and x's RMS (mono float)."""
    length = len(x)
    rms = float(np.sqrt(np.mean(x**2))) if length else 0.0
    if length == 0 or rms == 0.0:
        return np.zeros(length)
    shape = ltas(x, rate)
    bins = np.fft.rfftfreq(length, 1 / rate)
    grid = np.fft.rfftfreq(2 * (len(shape) - 1), 1 / rate)
    magnitude = np.interp(bins, grid, shape)
    magnitude[0] = 0.0  # no DC: the source's offset is not speech
    phase = np.random.default_rng(seed).uniform(0, 2 * np.pi, len(magnitude))
    y = np.fft.irfft(magnitude * np.exp(1j * phase), n=length)
    got = float(np.sqrt(np.mean(y**2)))
    y = y * (rms / got) if got > 0 else y
    return np.asarray(np.clip(y, -1.0, 1.0))


def null_samples(x: np.ndarray, rate: int, kind: NullKind, seed: int) -> np.ndarray:
    """The null stand-in of `x` (frames × channels or mono), same shape."""
    if kind == "silence":
        return np.zeros_like(x)
    if x.ndim == 1:
        return speech_shaped_noise(x, rate, seed)
    cols = [speech_shaped_noise(x[:, c], rate, seed + c) for c in range(x.shape[1])]
    return np.stack(cols, axis=1)


def null_audio(path: Path, source_sha256: str, kind: NullKind) -> bytes:
    """The file bytes of `path`'s null stand-in: same frames, rate, channels, container and
    subtype as the source (ValueError when soundfile cannot write that format)."""
    info = sf.info(str(path))
    x, rate = sf.read(str(path), dtype="float64", always_2d=False)
    y = null_samples(np.asarray(x), int(rate), kind, _seed(source_sha256, kind))
    buf = io.BytesIO()
    try:
        sf.write(buf, y, int(rate), subtype=info.subtype, format=info.format)
    except (sf.LibsndfileError, TypeError, ValueError, RuntimeError) as e:
        raise ValueError(
            f"{path.name}: cannot write a null stand-in as {info.format}/{info.subtype} ({e})"
        ) from None
    return buf.getvalue()


__all__ = ["NULL_KINDS", "NullKind", "ltas", "null_audio", "null_samples", "speech_shaped_noise"]
