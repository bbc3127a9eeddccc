"""Measurements for the dimension tests that share no code with paraudit's QC (numpy only:
different frames, thresholds and voicing detector), so a test cannot pass because the QC rule
and its check make the same mistake."""

from __future__ import annotations

import numpy as np

FRAME_S = 0.025
HOP_S = 0.01


def frame_db(x: np.ndarray, rate: int) -> np.ndarray:
    n, hop = int(FRAME_S * rate), int(HOP_S * rate)
    x = np.asarray(x, dtype=np.float64)
    count = max(1, 1 + (len(x) - n) // hop)
    frames = np.stack([x[i * hop : i * hop + n] for i in range(count)])
    return np.asarray(10 * np.log10(np.mean(frames**2, axis=1) + 1e-12))


def sounding(x: np.ndarray, rate: int) -> np.ndarray:
    """Frames within 32 dB of the loud (95th percentile) frames."""
    db = frame_db(x, rate)
    return np.asarray(db > np.percentile(db, 95) - 32.0)


def sounding_span_s(x: np.ndarray, rate: int) -> float:
    idx = np.flatnonzero(sounding(x, rate))
    return float((idx[-1] - idx[0] + 1) * HOP_S) if idx.size else 0.0


def interior_gaps_s(x: np.ndarray, rate: int, min_s: float) -> list[float]:
    s = sounding(x, rate)
    idx = np.flatnonzero(s)
    if idx.size == 0:
        return []
    gaps, run = [], 0
    for v in s[idx[0] : idx[-1] + 1]:
        if not v:
            run += 1
            continue
        if run * HOP_S >= min_s:
            gaps.append(run * HOP_S)
        run = 0
    return gaps


def voiced_share(x: np.ndarray, rate: int, threshold: float = 0.55) -> float:
    """Share of sounding frames whose normalised autocorrelation peaks ≥ `threshold` at a lag
    of a 60-400 Hz pitch (40 ms windows)."""
    x = np.asarray(x, dtype=np.float64)
    n, hop = int(0.04 * rate), int(HOP_S * rate)
    lo, hi = int(rate / 400), int(rate / 60)
    snd = sounding(x, rate)
    voiced = total = 0
    for i in range(0, len(x) - n, hop):
        k = min(len(snd) - 1, i // hop)
        if not snd[k]:
            continue
        w = x[i : i + n] - np.mean(x[i : i + n])
        ac = np.correlate(w, w, mode="full")[n - 1 :]
        if ac[0] <= 0:
            continue
        total += 1
        voiced += float(np.max(ac[lo:hi] / ac[0])) >= threshold
    return voiced / total if total else 0.0


def f0_track(x: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """Times and F0 (Hz) of frames voiced by the autocorrelation test above."""
    x = np.asarray(x, dtype=np.float64)
    n, hop = int(0.04 * rate), int(HOP_S * rate)
    lo, hi = int(rate / 300), int(rate / 60)
    snd = sounding(x, rate)
    ts, fs = [], []
    for i in range(0, len(x) - n, hop):
        if not snd[min(len(snd) - 1, i // hop)]:
            continue
        w = x[i : i + n] - np.mean(x[i : i + n])
        ac = np.correlate(w, w, mode="full")[n - 1 :]
        if ac[0] <= 0:
            continue
        r = ac[lo:hi] / ac[0]
        if float(np.max(r)) >= 0.6:
            ts.append((i + n / 2) / rate)
            fs.append(rate / (lo + int(np.argmax(r))))
    return np.asarray(ts), np.asarray(fs)
