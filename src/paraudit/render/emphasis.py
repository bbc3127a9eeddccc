"""Emphasis offline, by the second renderer: espeak-ng speaks the sentence once, and the stress
is added only inside the target word's window, as a pitch accent (PSOLA: a raised-cosine bump
of ≥ +6 st) and loudness (≥ +6 dB, same shape), each sized so the word tops the rest of the
sentence (`stress`). Word windows come from espeak-ng's word events (the
renderer's alignment), so QC knows where each word is.

SSML `<emphasis>` was tried first: it moves the intensity peak onto the word but not the F0
peak, and it re-intones the whole sentence (non-focus words moved 2.5-6 st between the two
stresses), so the "other words unchanged" rule failed; with one rendering per item the two
values differ only inside the two focus words. No lengthening of the stressed word (a duration
change would move every later word's window). Robotic (formant synthesis); both values of an
item are always the same voice.
"""

from __future__ import annotations

import numpy as np

from paraudit.dimensions.base import RenderedClip
from paraudit.dimensions.emphasis import unmark
from paraudit.errors import ParauditError
from paraudit.render.espeak import EspeakSpeech
from paraudit.render.prosody import GLOBAL_GAIN_DB
from paraudit.render.tts import LOCAL_COMPUTE

VALUES = ("stress-a", "stress-b")
VOICES = {"espeak-m": "en-us+m3", "espeak-f": "en-us+f3", "espeak-m-low": "en-us+m1"}
ACCENT_ST = 6.0
ACCENT_DB = 6.0
# The stressed word is made to top the rest of the sentence by these margins, within caps
# beyond which PSOLA and the gain sound processed.
PEAK_MARGIN_ST = 2.0
PEAK_MARGIN_DB = 2.0
MAX_ST = 9.0
MAX_DB = 10.0
RAMP_SHARE = 0.2


def word_windows(text: str, speech: EspeakSpeech) -> list[list[float] | None]:
    """[start, end] of each word of `text`, from espeak's word events: a word ends where the
    next event begins, the last where the sound does (40 dB below the peak). A word espeak
    spoke together with its neighbour ("by the") has no event of its own: None."""
    offsets, pos = [], 0
    for w in text.split():
        pos = text.index(w, pos)
        offsets.append(pos)
        pos += len(w)
    x = np.abs(np.asarray(speech.samples, dtype=np.float64))
    loud = np.flatnonzero(x > x.max() * 10 ** (-40 / 20))
    end = (int(loud[-1]) + 1) / speech.rate if loud.size else len(x) / speech.rate
    starts = [*speech.word_starts, end]
    by_offset = {p: k for k, p in enumerate(speech.word_positions)}
    out: list[list[float] | None] = []
    for off in offsets:
        k = by_offset.get(off)
        out.append(None if k is None else [round(starts[k], 4), round(starts[k + 1], 4)])
    return out


def _window_peaks(samples: np.ndarray, rate: int, window: list[float]) -> tuple[float, float]:
    """How far the window's F0 top (st) and intensity top (dB) lie above the rest's."""
    import parselmouth

    from paraudit.qc.acoustics import clean_pitch

    s, e = window
    x = np.asarray(samples, dtype=np.float64)
    intensity = parselmouth.Sound(x, rate).to_intensity(75.0)
    it, iv = intensity.xs(), intensity.values[0]
    pt, f0 = clean_pitch(x, rate)
    st = 12 * np.log2(f0) if f0.size else np.zeros(0)

    def margin(t: np.ndarray, v: np.ndarray) -> float:
        inside = (t >= s) & (t <= e)
        if not inside.any() or inside.all():
            return 0.0
        return float(np.max(v[inside]) - np.max(v[~inside]))

    return margin(pt, st), margin(it, iv)


def accent(samples: np.ndarray, rate: int, window: list[float], st: float, db: float) -> np.ndarray:
    """Raise pitch by `st` and level by `db` over `window`, ramped in and out (a step in the
    tier or the gain clicks)."""
    import parselmouth
    from parselmouth.praat import call

    from paraudit.audio.pitch import estimate_f0_median, pitch_bounds

    s, e = window
    snd = parselmouth.Sound(np.asarray(samples, dtype=np.float64), rate)
    lo, hi = pitch_bounds(estimate_f0_median(snd.values[0], rate))
    # Flat-topped (ramps of RAMP_SHARE of the word each side): a raised cosine peaks at the
    # window's middle, and the word's vowel is often not there, so its loudest frame stayed
    # below louder words.
    r = (e - s) * RAMP_SHARE
    bump = f"min(1, min((x - {s}) / {r}, ({e} - x) / {r}))"
    with LOCAL_COMPUTE:
        manip = call(snd, "To Manipulation", 0.01, lo, hi)
        tier = call(manip, "Extract pitch tier")
        call(
            tier,
            "Formula",
            f"if x > {s} and x < {e} then self * 2 ^ ({st} * {bump} / 12) else self fi",
        )
        call([manip, tier], "Replace pitch tier")
        out = np.asarray(call(manip, "Get resynthesis (overlap-add)").values[0], dtype=np.float64)
    t = np.arange(len(out)) / rate
    inside = (t > s) & (t < e)
    gain = np.ones_like(out)
    shape = np.minimum(1.0, np.minimum((t[inside] - s) / r, (e - t[inside]) / r))
    gain[inside] = 10 ** (db * shape / 20)
    return np.asarray(out * gain, dtype=np.float64)


def stress(samples: np.ndarray, rate: int, window: list[float]) -> tuple[np.ndarray, float, float]:
    """The accent, sized to the sentence: at least ACCENT_ST / ACCENT_DB, more (up to MAX_*)
    where the word starts further below the sentence's pitch or loudness top — espeak makes
    sentence-initial words loud, and +6 dB on a short word did not always out-top them."""
    f0_gap, db_gap = _window_peaks(samples, rate, window)
    st = float(min(MAX_ST, max(ACCENT_ST, PEAK_MARGIN_ST - f0_gap)))
    db = float(min(MAX_DB, max(ACCENT_DB, PEAK_MARGIN_DB - db_gap)))
    return accent(samples, rate, window, st, db), st, db


def render(
    text: str,
    value: str,
    *,
    voice: str = "espeak-m",
    seed: int = 0,
    focus: tuple[int, int] | None = None,
) -> RenderedClip:
    """`focus` names the two focus words; without it they are read from `*word*` marks."""
    from paraudit.render.espeak import speak_once

    if value not in VALUES:
        raise ParauditError(f"emphasis has no value {value!r} (its values: {', '.join(VALUES)})")
    if voice not in VOICES:
        raise ParauditError(f"unknown emphasis voice {voice!r} (voices: {', '.join(VOICES)})")
    plain, marks = unmark(text)
    focus = focus or marks
    words = plain.split()
    if focus is None or not all(0 <= i < len(words) for i in focus) or focus[0] == focus[1]:
        raise ParauditError(
            f"emphasis needs two focus words in {plain!r} (pass focus=(i, j) or mark them *so*)"
        )
    target = focus[VALUES.index(value)]
    # One espeak rendering per (words, voice) serves both values: only the stress differs.
    sp = speak_once(plain, VOICES[voice])
    windows = word_windows(plain, sp)
    for i in focus:
        if windows[i] is None:
            raise ParauditError(
                f"espeak-ng gave the focus word {words[i]!r} of {plain!r} no window of its own "
                "(it ran it into a neighbour): choose another focus word"
            )
    window = windows[target]
    assert window is not None
    samples, st, db = stress(sp.samples, sp.rate, window)
    samples = np.clip(samples * 10 ** (GLOBAL_GAIN_DB / 20), -1.0, 1.0).astype(np.float32)
    meta = {
        "renderer": f"espeak-ng:{VOICES[voice]}+ssml-emphasis+psola",
        "voice": voice,
        "dimension": "emphasis",
        "value": value,
        "text": plain,
        "focus": list(focus),
        "focus_words": [words[i].strip(".,!?;:") for i in focus],
        "target": target,
        "word_windows": windows,
        "accent_st": round(st, 3),
        "accent_db": round(db, 3),
    }
    return RenderedClip(samples, sp.rate, meta)
