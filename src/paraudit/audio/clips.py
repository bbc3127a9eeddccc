"""A clip in memory, its file format (16-bit PCM mono WAV) and explicit resampling."""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import soundfile as sf

OUTPUT_SUBTYPE = "PCM_16"


@dataclass(frozen=True, eq=False)
class Clip:
    """One rendering: mono float samples in [-1, 1] at the backend's set-wide rate."""

    samples: np.ndarray
    sample_rate: int
    meta: Mapping[str, Any] = field(default_factory=dict)
    """backend, model, voice, emotion, role, attempt, and how it was made (instructions,
    profile, resampling); JSON-able, for the dataset card. Never sent to a judge."""

    @property
    def duration_s(self) -> float:
        return len(self.samples) / self.sample_rate


def wav_bytes(clip: Clip) -> bytes:
    """The clip as the set's file format: 16-bit PCM mono WAV."""
    buf = io.BytesIO()
    sf.write(buf, np.clip(clip.samples, -1.0, 1.0), clip.sample_rate, "PCM_16", format="WAV")
    return buf.getvalue()


def resample(samples: np.ndarray, rate: int, target: int) -> np.ndarray:
    """Band-limited polyphase resampling (no-op when the rates match)."""
    if rate == target:
        return samples
    from math import gcd

    from scipy.signal import resample_poly

    g = gcd(rate, target)
    return np.asarray(resample_poly(samples, target // g, rate // g), dtype=np.float64)
