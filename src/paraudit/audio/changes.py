"""Irrelevant changes of a clip for the invariance audit: another voice, louder or softer, a
little faster or slower, light noise, another sample rate; and two recording conditions, a
telephone line and a reverberant room (audio/conditions.py).

Each change keeps the words and the emotion's prosodic contour (relative pitch movement, pauses,
end rise) and alters one property a valid judge must ignore. Every variant is deterministic: the
same clip gives the same bytes, so twin datasets rebuild identically and content-hash names are
stable. The parameters below are what the dataset's `meta` records.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from paraudit.audio.conditions import REVERB_PARAMS, TELEPHONE_PARAMS, reverb, telephone
from paraudit.audio.pitch import estimate_f0_median, pitch_bounds

CHANGES = ("voice", "loudness", "rate", "noise", "samplerate")
"""The irrelevant properties `build invariance` makes by default, in the order it offers them."""
CONDITIONS = ("telephone", "reverb")
"""Recording conditions, made when named (`--changes telephone,reverb`): not in the default
list, so a default invariance build is what it was (and reverb needs the `conditions` extra)."""
KNOWN = (*CHANGES, *CONDITIONS)

VOICE_STEP_ST = 3.0
"""Pitch-median shift of a speaker swap, semitones (about a fifth of an octave): a clearly
different speaker of the same register, not a change of sex."""
VOICE_FORMANT_RATIO = 1.08
"""Formant scaling of the higher voice (its inverse for the lower one): vocal-tract length of a
shorter or longer speaker, as Praat's 'Change gender' applies it."""
LOUDNESS_DB = 6.0
RATE_FACTOR = 0.08
"""±8 % speaking rate, by PSOLA duration change (pitch kept)."""
NOISE_SNR_DB = 30.0
"""White noise at 30 dB below the clip's RMS: audible in silence, never masking speech."""
OTHER_RATE_HZ = 16000
"""The second sample rate: the common ASR rate (the starter set is 22,050 Hz). A clip already at
16 kHz goes to 24 kHz instead, so the change is never a no-op."""
PEAK_LIMIT = 0.99
VOICE_METHOD = "Praat 'Change gender', RMS matched within headroom"


@dataclass(frozen=True)
class Variant:
    """One realisation of a change: its name (e.g. 'voice-up') and documented parameters."""

    change: str
    name: str
    params: dict[str, Any]


VARIANTS: dict[str, tuple[Variant, ...]] = {
    "voice": (
        Variant(
            "voice",
            "voice-up",
            {"pitch_median_st": VOICE_STEP_ST, "formant_ratio": VOICE_FORMANT_RATIO,
             "method": VOICE_METHOD, "applies_to": "human turns"},
        ),
        Variant(
            "voice",
            "voice-down",
            {"pitch_median_st": -VOICE_STEP_ST, "formant_ratio": round(1 / VOICE_FORMANT_RATIO, 4),
             "method": VOICE_METHOD, "applies_to": "human turns"},
        ),
    ),
    "loudness": (
        Variant("loudness", "loudness-up", {"gain_db": LOUDNESS_DB, "applies_to": "context"}),
        Variant("loudness", "loudness-down", {"gain_db": -LOUDNESS_DB, "applies_to": "context"}),
    ),
    "rate": (
        Variant(
            "rate",
            "rate-faster",
            {"rate_factor": 1 + RATE_FACTOR, "method": "Praat PSOLA (Lengthen overlap-add)",
             "applies_to": "context"},
        ),
        Variant(
            "rate",
            "rate-slower",
            {"rate_factor": 1 - RATE_FACTOR, "method": "Praat PSOLA (Lengthen overlap-add)",
             "applies_to": "context"},
        ),
    ),
    "noise": (
        Variant(
            "noise",
            "noise-30db",
            {"snr_db": NOISE_SNR_DB, "noise": "white, seeded by the clip's sha256",
             "applies_to": "context"},
        ),
    ),
    "samplerate": (
        Variant(
            "samplerate",
            "samplerate-16k",
            {"target_hz": OTHER_RATE_HZ, "method": "polyphase resampling",
             "applies_to": "context"},
        ),
    ),
    "telephone": (Variant("telephone", "telephone-g711", TELEPHONE_PARAMS),),
    "reverb": (Variant("reverb", "reverb-room", REVERB_PARAMS),),
}  # fmt: skip


def parse_changes(text: str) -> tuple[str, ...]:
    """'voice,loudness' → ('voice', 'loudness'); ValueError names an unknown change."""
    names = tuple(dict.fromkeys(c.strip() for c in text.split(",") if c.strip()))
    unknown = [c for c in names if c not in KNOWN]
    if unknown or not names:
        raise ValueError(f"unknown change '{unknown[0]}'" if unknown else "no change given")
    return names


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if x.size else 0.0


def _voice(x: np.ndarray, rate: int, st: float, formants: float) -> np.ndarray:
    import parselmouth
    from parselmouth.praat import call, run

    median = estimate_f0_median(x, rate)
    lo, hi = pitch_bounds(median)
    # Seeded like render's assistant voice: 'Change gender' draws from Praat's generator, and a
    # twin must be a function of its input.
    run("random_initializeWithSeedUnsafelyButPredictably (20250101)")
    try:
        out = call(
            parselmouth.Sound(x, rate),
            "Change gender",
            lo,
            hi,
            formants,
            median * 2 ** (st / 12),
            1.0,
            1.0,
        )
    finally:
        run("random_initializeSafelyAndUnpredictably ()")
    y = np.asarray(out.values[0], dtype=np.float64)
    # Formant scaling moves energy between bands and so the level (by up to ~2 dB measured on
    # the starter set); a swapped speaker at another level would be two changes: match RMS, as
    # far as the headroom allows (Piper's loud turns peak at full scale; the twin QC then
    # holds the level within its 1.5 dB tolerance or drops the twin).
    level, peak = _rms(y), _peak(y)
    if level <= 0 or peak <= 0:
        return y
    return y * min(_rms(x) / level, max(PEAK_LIMIT, _peak(x)) / peak)


def _rate(x: np.ndarray, rate: int, factor: float) -> np.ndarray:
    import parselmouth
    from parselmouth.praat import call

    lo, hi = pitch_bounds(estimate_f0_median(x, rate))
    out = call(parselmouth.Sound(x, rate), "Lengthen (overlap-add)", lo, hi, 1.0 / factor)
    return np.asarray(out.values[0], dtype=np.float64)


def _noise(x: np.ndarray, snr_db: float, seed: bytes) -> np.ndarray:
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(seed).digest()[:8], "big"))
    level = _rms(x) * 10 ** (-snr_db / 20)
    return x + level * rng.standard_normal(x.size)


def other_rate(rate: int) -> int:
    return OTHER_RATE_HZ if rate != OTHER_RATE_HZ else 24000


def apply(variant: Variant, samples: np.ndarray, rate: int) -> tuple[np.ndarray, int]:
    """The clip with `variant` applied: (samples, sample rate). The output may exceed the peak
    limit (loudness +6 dB on a loud clip); `clipped` says so and the build drops it rather than
    limit or distort it, either of which would be a second change."""
    from paraudit.audio.clips import resample

    x = np.asarray(samples, dtype=np.float64)
    p = variant.params
    if variant.change == "voice":
        return _voice(x, rate, float(p["pitch_median_st"]), float(p["formant_ratio"])), rate
    if variant.change == "loudness":
        return x * 10 ** (float(p["gain_db"]) / 20), rate
    if variant.change == "rate":
        return _rate(x, rate, float(p["rate_factor"])), rate
    if variant.change == "noise":
        seed = hashlib.sha256(np.asarray(x, dtype=np.float32).tobytes()).digest()
        return _noise(x, float(p["snr_db"]), seed + variant.name.encode()), rate
    if variant.change == "samplerate":
        target = other_rate(rate)
        return resample(x, rate, target), target
    if variant.change == "telephone":
        return telephone(x, rate), rate
    if variant.change == "reverb":
        return reverb(x, rate), rate
    raise ValueError(f"unknown change '{variant.change}'")


def _peak(x: np.ndarray) -> float:
    return float(np.max(np.abs(x))) if x.size else 0.0


def clipped(original: np.ndarray, variant: np.ndarray) -> bool:
    """Whether the change itself drives the clip past what 16-bit PCM holds: the variant's peak
    is over the limit and more than 0.5 dB above the original's (Piper renders angry turns at
    full scale already; resynthesis moves such a peak by a hair, which is no new distortion)."""
    peak = _peak(variant)
    return peak > PEAK_LIMIT and peak > _peak(original) * 10 ** (0.5 / 20)


def snr_db(original: np.ndarray, noisy: np.ndarray) -> float:
    """The measured SNR of an added-noise variant (same length, same rate)."""
    noise = _rms(noisy - original)
    return 20 * math.log10(_rms(original) / noise) if noise > 0 else math.inf
