"""The offline chain the new dimensions share: Piper speech in one of three timbres, phrase
pauses, Praat PSOLA and the global gain.

Every value of a dimension goes through the same chain (the reference value with an identity
pitch tier), so no processing artefact tells the values apart: only the manipulation does
(offline-stack-notes.md, "processing giveaways").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paraudit.errors import ParauditError
from paraudit.render.piper_tts import split_for_pauses
from paraudit.render.piper_voice import load_synth, resolve_voice
from paraudit.render.profiles import EmotionProfile
from paraudit.render.prosody import apply_gain, apply_pitch, join_with_pauses
from paraudit.render.tts import LOCAL_COMPUTE


@dataclass(frozen=True)
class Timbre:
    """A speaker made from the one bundled Piper voice by Praat's "Change gender"."""

    name: str
    formant_ratio: float
    """Formant shift (1 = unchanged): > 1 sounds smaller and brighter."""
    pitch_median_hz: float
    """New median F0 (0 = unchanged)."""


# Three human voices from one model (part 6 of issue 28). They stay away from the assistant's
# voice (formants ×1.17, 150 Hz) so a listener still hears two speakers in a conversation.
PIPER_TIMBRES: dict[str, Timbre] = {
    t.name: t
    for t in (
        Timbre("joe", 1.0, 0.0),
        Timbre("joe-bright", 1.08, 112.0),
        # Formants only: lowering the median to 76 Hz as well made the voice creaky (HNR
        # 3.8-7 dB against 7-10 dB unchanged, measured on the whisper starter texts).
        Timbre("joe-deep", 0.92, 0.0),
    )
}


def piper_timbre(voice: str) -> Timbre:
    try:
        return PIPER_TIMBRES[voice]
    except KeyError:
        known = ", ".join(PIPER_TIMBRES)
        raise ParauditError(f"unknown offline voice {voice!r} (voices: {known})") from None


def pick_voices(text: str, known: tuple[str, ...], whose: str) -> tuple[str, ...]:
    """`--voices 3` (the first three of `known`) or `--voices a,b,c` (each one of `known`); a
    ParauditError names `whose` voices there are."""
    shown = ", ".join(known)
    if text.strip().isdecimal():
        if not 1 <= int(text) <= len(known):
            raise ParauditError(f"--voices {text}: {whose} has {len(known)} voices ({shown})")
        return known[: int(text)]
    names = tuple(dict.fromkeys(v.strip() for v in text.split(",") if v.strip()))
    unknown = [v for v in names if v not in known]
    if unknown or not names:
        what = f"unknown voice '{unknown[0]}'" if unknown else "no voice given"
        raise ParauditError(f"--voices: {what} ({whose} has: {shown})")
    return names


def synthesize_phrases(
    text: str, *, length_scale: float, pauses: int, pause_s: float
) -> tuple[list[np.ndarray], int]:
    """Zero-noise Piper renderings of the phrases `text` splits into for `pauses` pauses."""
    with LOCAL_COMPUTE:
        synth = load_synth(resolve_voice(None))
        parts = [synth.synthesize(p, length_scale) for p in split_for_pauses(text, pauses)]
    return parts, synth.sample_rate


def change_timbre(samples: np.ndarray, rate: int, timbre: Timbre, seed: int) -> np.ndarray:
    """Formants and median pitch moved by "Change gender", seeded (it draws from Praat's
    random generator, so unseeded two calls on one clip differ)."""
    if timbre.formant_ratio == 1.0 and timbre.pitch_median_hz == 0.0:
        return samples
    import parselmouth
    from parselmouth.praat import call, run

    from paraudit.audio.pitch import estimate_f0_median, pitch_bounds

    lo, hi = pitch_bounds(estimate_f0_median(samples, rate))
    with LOCAL_COMPUTE:
        run(f"random_initializeWithSeedUnsafelyButPredictably ({seed})")
        try:
            snd = parselmouth.Sound(samples, rate)
            out = call(
                snd,
                "Change gender",
                lo,
                hi,
                timbre.formant_ratio,
                timbre.pitch_median_hz,
                1.0,
                1.0,
            )
        finally:
            run("random_initializeSafelyAndUnpredictably ()")
    return np.asarray(out.values[0], dtype=np.float64)


def lengthen_phrase_ends(
    samples: np.ndarray, rate: int, *, factor: float, window_s: float, seed: int = 0
) -> np.ndarray:
    """Stretch the last `window_s` of voicing by `factor` (PSOLA duration tier): the drawn-out
    final syllable before a hesitation pause, without touching the words before it.

    Seeded: a resynthesis that changes durations draws from Praat's random generator (three
    renders of one hesitant text in one process gave three different clips, and a clip near a
    QC limit then passed or failed by chance: a flaky build test)."""
    import parselmouth
    from parselmouth.praat import call, run

    from paraudit.audio.pitch import estimate_f0_median, last_voiced_time, pitch_bounds

    snd = parselmouth.Sound(samples, rate)
    lo, hi = pitch_bounds(estimate_f0_median(samples, rate))
    pitch = snd.to_pitch_ac(pitch_floor=lo, pitch_ceiling=hi)
    end = last_voiced_time(pitch.xs(), pitch.selected_array["frequency"], snd.duration)
    start = max(0.0, end - window_s)
    with LOCAL_COMPUTE:
        run(f"random_initializeWithSeedUnsafelyButPredictably ({seed})")
        try:
            manip = call(snd, "To Manipulation", 0.01, lo, hi)
            tier = call(manip, "Extract duration tier")
            # A 20 ms ramp each side: a step in the tier clicks.
            for t, v in ((start - 0.02, 1.0), (start, factor), (end, factor), (end + 0.02, 1.0)):
                if 0.0 < t < snd.duration:
                    call(tier, "Add point", t, v)
            call([manip, tier], "Replace duration tier")
            out = call(manip, "Get resynthesis (overlap-add)")
        finally:
            run("random_initializeSafelyAndUnpredictably ()")
    return np.asarray(out.values[0], dtype=np.float64)


def render_piper(
    text: str,
    *,
    voice: str,
    seed: int,
    length_scale: float = 1.0,
    pauses: int = 0,
    pause_s: float = 0.0,
    lengthen: float = 1.0,
    pitch: EmotionProfile | None = None,
    gain_db: float = 0.0,
) -> tuple[np.ndarray, int, dict[str, object]]:
    """Piper → (phrase-final lengthening) → pauses → timbre → PSOLA pitch → gain.

    The reference value passes `pitch=None`, which is the identity tier: it goes through the
    same resynthesis as every other value.
    """
    timbre = piper_timbre(voice)
    parts, rate = synthesize_phrases(
        text, length_scale=length_scale, pauses=pauses, pause_s=pause_s
    )
    if lengthen != 1.0 and len(parts) > 1:
        # Only phrases followed by a pause are drawn out: the sentence's last word is not.
        parts = [
            lengthen_phrase_ends(p, rate, factor=lengthen, window_s=0.22, seed=seed + i)
            if i < len(parts) - 1
            else p
            for i, p in enumerate(parts)
        ]
    samples = join_with_pauses(parts, rate, pause_s)
    samples = change_timbre(samples, rate, timbre, seed)
    with LOCAL_COMPUTE:
        samples = apply_pitch(samples, rate, pitch or EmotionProfile("reference"), 0.6)
    samples = apply_gain(samples, gain_db)
    meta: dict[str, object] = {
        "renderer": "piper:joe-medium+psola",
        "voice": voice,
        "length_scale": length_scale,
        "pauses": len(parts) - 1,
        "pause_s": pause_s,
        "lengthen": lengthen,
        "gain_db": gain_db,
        "pitch": (pitch or EmotionProfile("reference")).params(),
    }
    return samples.astype(np.float32), rate, meta
