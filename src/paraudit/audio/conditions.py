"""Recording conditions for the invariance audit: a telephone line and a reverberant room.

Both keep the words, the timing and the prosodic contour, and change how the speech reached the
microphone; a judge that hears a contrast only on clean studio audio loses it here. Both are
deterministic (the same clip gives the same bytes), so twin sets rebuild identically.

- **telephone**: G.711 narrowband. Resampled to 8 kHz (polyphase, which low-passes below
  4 kHz), band-passed 300-3400 Hz (4th-order Butterworth, zero-phase so no word moves), 8-bit
  μ-law (μ = 255) encoded and decoded, resampled back to the clip's rate and low-passed at 3.6
  kHz (8th order, zero-phase: the receiver's reconstruction filter). The clip's RMS is
  restored within the peak headroom: a phone line at another level would be two changes.
- **reverb**: the clip convolved with the impulse response of a simulated shoebox room
  (pyroomacoustics' image-source method; 5 × 4 × 3 m, wall absorption from Sabine's formula for
  RT60 0.5 s, talker 2 m from the microphone). The direct path is moved to sample 0 so words
  keep their times; the tail runs on past the clip's end, up to `TAIL_S`. RMS restored as above.

pyroomacoustics is a well-kept room-acoustics library (LCAV, EPFL); scipy's filters and
polyphase resampling do the telephone line. The room impulse response is made once per sample
rate and cached.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from paraudit.errors import MissingExtraError

PHONE_RATE_HZ = 8000
PHONE_BAND_HZ = (300.0, 3400.0)
PHONE_FILTER_ORDER = 4
PHONE_LOWPASS_HZ = 3600.0
MU = 255
ROOM_M = (5.0, 4.0, 3.0)
TALKER_M = (1.5, 2.0, 1.6)
MIC_M = (3.5, 2.0, 1.2)
"""2.04 m from the talker: far enough that the room is heard, near enough that the words are."""
RT60_S = 0.5
"""Sabine target; Schroeder T30 through `reverb`: 0.55 s (benchmarks/conditions.py)."""
TAIL_S = 0.4
"""How long the tail may run past the clip's end: by then a T30 of 0.55 s has fallen 44 dB."""
PEAK_LIMIT = 0.99

TELEPHONE_PARAMS: dict[str, Any] = {
    "band_hz": list(PHONE_BAND_HZ),
    "via_hz": PHONE_RATE_HZ,
    "codec": "G.711 mu-law 8 bit",
    "method": "polyphase resampling, Butterworth band-pass (zero-phase), RMS matched",
    "applies_to": "context",
}
REVERB_PARAMS: dict[str, Any] = {
    "room_m": list(ROOM_M),
    "rt60_s": RT60_S,
    "distance_m": round(float(np.linalg.norm(np.subtract(TALKER_M, MIC_M))), 2),
    "method": "pyroomacoustics image-source room impulse response, direct path at 0, RMS matched",
    "applies_to": "context",
}


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if x.size else 0.0


def _match_level(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """`y` at `x`'s RMS, as far as the headroom allows (never louder at the peak than `x` or the
    limit): the twin QC then holds the level within its tolerance or drops the twin."""
    level, peak = _rms(y), float(np.max(np.abs(y))) if y.size else 0.0
    if level <= 0 or peak <= 0:
        return y
    x_peak = float(np.max(np.abs(x))) if x.size else 0.0
    return y * min(_rms(x) / level, max(PEAK_LIMIT, x_peak) / peak)


def mu_law(x: np.ndarray, bits: int = 8) -> np.ndarray:
    """μ-law encode to `bits` bits and decode (G.711's companding and quantisation)."""
    c = np.sign(x) * np.log1p(MU * np.minimum(np.abs(x), 1.0)) / np.log1p(MU)
    steps = 2 ** (bits - 1) - 1
    q = np.round(c * steps) / steps
    return np.asarray(np.sign(q) * ((1 + MU) ** np.abs(q) - 1) / MU, dtype=np.float64)


def telephone(samples: np.ndarray, rate: int) -> np.ndarray:
    """The clip as a narrowband phone line delivers it, at its own sample rate."""
    from scipy.signal import butter, sosfiltfilt

    from paraudit.audio.clips import resample

    x = np.asarray(samples, dtype=np.float64)
    narrow = resample(x, rate, PHONE_RATE_HZ)
    sos = butter(
        PHONE_FILTER_ORDER, PHONE_BAND_HZ, btype="bandpass", fs=PHONE_RATE_HZ, output="sos"
    )
    narrow = sosfiltfilt(sos, narrow)
    # The codec sees a line level: scale to the peak so its quantisation steps are G.711's.
    peak = float(np.max(np.abs(narrow))) if narrow.size else 0.0
    if peak > 0:
        narrow = mu_law(narrow / peak) * peak
    y = resample(narrow, PHONE_RATE_HZ, rate)
    if rate > PHONE_RATE_HZ:
        # The receiver's reconstruction filter: the polyphase filter's transition band leaves
        # images just above 4 kHz (-59 dB on a starter clip), this takes them below -80 dB.
        lp = butter(8, PHONE_LOWPASS_HZ, btype="lowpass", fs=rate, output="sos")
        y = sosfiltfilt(lp, y)
    y = np.pad(y, (0, max(0, x.size - y.size)))[: x.size]
    return _match_level(y, x)


@lru_cache(maxsize=4)
def room_impulse_response(rate: int) -> np.ndarray:
    """The room's impulse response at `rate`, its direct path at sample 0, peak 1."""
    try:
        import pyroomacoustics as pra
    except ImportError:
        raise MissingExtraError("the reverb condition", "conditions", "pyroomacoustics") from None
    absorption, max_order = pra.inverse_sabine(RT60_S, list(ROOM_M))
    room = pra.ShoeBox(
        list(ROOM_M),
        fs=rate,
        materials=pra.Material(absorption),
        max_order=max_order,
        use_rand_ism=False,
        air_absorption=False,
    )
    room.add_source(list(TALKER_M))
    room.add_microphone(list(MIC_M))
    room.compute_rir()
    h = np.asarray(room.rir[0][0], dtype=np.float64)
    start = int(np.argmax(np.abs(h)))
    h = h[start:]
    return h / float(np.max(np.abs(h)))


def reverb(samples: np.ndarray, rate: int) -> np.ndarray:
    """The clip as a microphone across the room hears it, with up to `TAIL_S` of tail."""
    from scipy.signal import fftconvolve

    x = np.asarray(samples, dtype=np.float64)
    y = fftconvolve(x, room_impulse_response(rate))[: x.size + int(TAIL_S * rate)]
    return _match_level(y, x)


def band_energy_db(samples: np.ndarray, rate: int, lo: float, hi: float) -> float:
    """Energy of `samples` between `lo` and `hi` Hz (dB, one FFT over the whole clip)."""
    x = np.asarray(samples, dtype=np.float64)
    spec = np.abs(np.fft.rfft(x)) ** 2
    f = np.fft.rfftfreq(x.size, 1.0 / rate)
    e = float(spec[(f >= lo) & (f < hi)].sum())
    return 10 * np.log10(e) if e > 0 else -np.inf


def tail_decay_db(samples: np.ndarray, rate: int, speech_end_s: float) -> float:
    """Energy in the 30-200 ms after `speech_end_s` relative to the last 200 ms of speech (dB):
    about -60 or below for a dry clip ending in silence, well above for a room's tail."""
    x = np.asarray(samples, dtype=np.float64)
    end = int(speech_end_s * rate)
    before = x[max(0, end - int(0.2 * rate)) : end]
    after = x[end + int(0.03 * rate) : end + int(0.2 * rate)]
    eb = float(np.mean(before**2)) if before.size else 0.0
    ea = float(np.mean(after**2)) if after.size else 0.0
    if eb <= 0:
        return -np.inf
    return 10 * np.log10(ea / eb) if ea > 0 else -np.inf


def speech_end_s(samples: np.ndarray, rate: int, floor_db: float = -40.0) -> float:
    """End of the last 20 ms frame within `floor_db` of the loudest frame (the clip's last word)."""
    x = np.asarray(samples, dtype=np.float64)
    n = max(1, int(0.02 * rate))
    frames = x[: x.size // n * n].reshape(-1, n)
    if not frames.size:
        return 0.0
    level = 10 * np.log10(np.mean(frames**2, axis=1) + 1e-20)
    loud = np.flatnonzero(level >= level.max() + floor_db)
    return float((loud[-1] + 1) * n / rate)
