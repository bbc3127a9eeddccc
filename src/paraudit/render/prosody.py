"""Prosody manipulation with Praat (PSOLA via praat-parselmouth) and phrase-boundary pauses."""

from __future__ import annotations

import re

import numpy as np

from paraudit.audio.pitch import estimate_f0_median, last_voiced_time, pitch_bounds
from paraudit.render.profiles import EmotionProfile

# One fixed gain for every clip: normalising each clip to the same loudness would make RMS a
# perfect label code; a global gain keeps natural variation (offline-stack-notes.md).
GLOBAL_GAIN_DB = -6.0
# Caps on per-point pitch shifts; larger shifts give audible PSOLA artefacts.
MAX_UP_ST = 9.0
MAX_DOWN_ST = -7.0
# The assistant voice: the same Piper model with formants and pitch moved by Praat's
# "Change gender", so listeners (and judges) hear a clearly different speaker.
ASSISTANT_FORMANT_RATIO = 1.17
ASSISTANT_PITCH_MEDIAN_HZ = 150.0

_CONJUNCTIONS = {
    "and",
    "but",
    "so",
    "because",
    "or",
    "when",
    "if",
    "then",
    "which",
    "before",
    "after",
    "until",
    "since",
    "while",
    "though",
    "although",
    "that",
}


def split_phrases(text: str, pauses: int) -> list[str]:
    """Split `text` at up to `pauses` phrase boundaries (punctuation first, then conjunctions).

    Pauses at arbitrary commas land badly ("moving, in with us"), so only natural boundaries
    are used, and every phrase keeps at least two words.
    """
    words = text.split()
    if pauses <= 0 or len(words) < 4:
        return [text]
    punct = [i + 1 for i, w in enumerate(words[:-1]) if re.search(r"[,;:—–-]$", w)]
    conj = [i for i, w in enumerate(words) if i > 0 and w.lower().strip(",.") in _CONJUNCTIONS]
    chosen: list[int] = []
    for pool in (punct, conj):
        for cut in sorted(pool, key=lambda c: abs(c - len(words) / 2)):
            if len(chosen) >= pauses:
                break
            bounds = sorted([0, *chosen, cut, len(words)])
            if all(b - a >= 2 for a, b in zip(bounds, bounds[1:], strict=False)):
                chosen.append(cut)
    if not chosen:
        chosen = [len(words) // 2]
    bounds = sorted([0, *chosen, len(words)])
    return [" ".join(words[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]


def change_voice(samples: np.ndarray, rate: int) -> np.ndarray:
    """The assistant's voice: formant and pitch shift of the same Piper voice (deterministic:
    the same input gives the same bytes)."""
    import parselmouth
    from parselmouth.praat import call, run

    snd = parselmouth.Sound(samples, rate)
    lo, hi = pitch_bounds(estimate_f0_median(samples, rate))
    # "Change gender" draws from Praat's random generator, so two calls on the same clip gave
    # different bytes (and a fresh build of a set different clips and content-hash names).
    # Seeded first, the assistant voice is a function of its input; the generator is put back
    # to unpredictable afterwards for any other Praat user in the process.
    run("random_initializeWithSeedUnsafelyButPredictably (20250101)")
    try:
        out = call(
            snd,
            "Change gender",
            lo,
            hi,
            ASSISTANT_FORMANT_RATIO,
            ASSISTANT_PITCH_MEDIAN_HZ,
            1.0,
            1.0,
        )
    finally:
        run("random_initializeSafelyAndUnpredictably ()")
    return np.asarray(out.values[0], dtype=np.float64)


def apply_pitch(
    samples: np.ndarray, rate: int, profile: EmotionProfile, rise_window_s: float = 0.4
) -> np.ndarray:
    """Shift pitch level, scale range, add an end rise over the last `rise_window_s` of voicing
    and a wobble, by PSOLA resynthesis."""
    # Neutral goes through this same chain with an identity tier: an unprocessed clip differs
    # in HNR from processed ones and would give the label away (offline-stack-notes.md).
    import parselmouth
    from parselmouth.praat import call

    snd = parselmouth.Sound(samples, rate)
    median = estimate_f0_median(samples, rate)
    lo, hi = pitch_bounds(median)
    manip = call(snd, "To Manipulation", 0.01, lo, hi)
    tier = call(manip, "Extract pitch tier")
    # Per-point change in semitones against the median. The end rise blends, over the last
    # 0.4 s of voicing, towards a ramp that ends `end_rise_st` above the shifted median: added
    # on top of the natural final fall it would not show (offline-stack-notes.md).
    natural = f"(12 * log2(self / {median}))"
    target = f"({natural} * {profile.range_factor} + {profile.pitch_st})"
    if profile.wobble_st:
        target = f"({target} + {profile.wobble_st} * sin(2 * pi * 3.1 * x))"
    if profile.end_rise_st:
        # Where voicing ends: only an end rise needs it (a pitch analysis of its own, a fifth of
        # this function's time, skipped for the profiles without one: the same bytes).
        pitch = snd.to_pitch_ac(pitch_floor=lo, pitch_ceiling=hi)
        t_end = last_voiced_time(pitch.xs(), pitch.selected_array["frequency"], snd.duration)
        w = f"max(0, min(1, (x - {t_end - rise_window_s}) / {rise_window_s}))"
        target = (
            f"((1 - {w}) * {target} + {w} * ({profile.pitch_st} + {profile.end_rise_st} * {w}))"
        )
    formula = f"self * 2 ^ (max({MAX_DOWN_ST}, min({MAX_UP_ST}, {target} - {natural})) / 12)"
    call(tier, "Formula", formula)
    call([manip, tier], "Replace pitch tier")
    out = call(manip, "Get resynthesis (overlap-add)")
    return np.asarray(out.values[0], dtype=np.float64)


def apply_gain(samples: np.ndarray, gain_db: float) -> np.ndarray:
    """Global gain plus the profile's, clipped after gain (never renormalised)."""
    return np.clip(samples * 10 ** ((GLOBAL_GAIN_DB + gain_db) / 20), -1.0, 1.0)


def join_with_pauses(parts: list[np.ndarray], rate: int, pause_s: float) -> np.ndarray:
    if len(parts) == 1:
        return parts[0]
    gap = np.zeros(int(round(pause_s * rate)))
    out: list[np.ndarray] = []
    for i, p in enumerate(parts):
        if i:
            out.append(gap)
        out.append(p)
    return np.concatenate(out)
