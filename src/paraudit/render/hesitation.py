"""Hesitation offline, without a single added word: the hesitant reading is slower (Piper
length scale 1.2), has two silent pauses of 0.55 s at phrase boundaries, draws out the last
0.22 s of voicing before each pause (×1.6, PSOLA duration tier) and ends on a rise; the fluent
reading is the same words in one stretch through the same chain."""

from __future__ import annotations

from dataclasses import dataclass

from paraudit.dimensions.base import RenderedClip
from paraudit.dimensions.hesitation import word_changing
from paraudit.errors import ParauditError
from paraudit.render.offline_chain import render_piper
from paraudit.render.profiles import EmotionProfile


@dataclass(frozen=True)
class HesitationProfile:
    length_scale: float
    pauses: int
    pause_s: float
    lengthen: float
    pitch: EmotionProfile | None
    gain_db: float


PROFILES: dict[str, HesitationProfile] = {
    "fluent": HesitationProfile(1.0, 0, 0.0, 1.0, None, 0.0),
    # The rise is the TTS backend's hesitant setting (6 st over the last 0.6 s of voicing): a
    # 3 st rise measured too shallow on some endings (render/piper_tts.py).
    "hesitant": HesitationProfile(
        1.2,
        2,
        0.55,
        1.6,
        EmotionProfile("hesitant", pitch_st=-1.0, range_factor=0.85, end_rise_st=6.0),
        -2.0,
    ),
}


def render(text: str, value: str, *, voice: str = "joe", seed: int = 0) -> RenderedClip:
    if (why := word_changing(text)) is not None:
        raise ParauditError(f"hesitation: {why}")
    try:
        p = PROFILES[value]
    except KeyError:
        raise ParauditError(
            f"hesitation has no value {value!r} (its values: {', '.join(PROFILES)})"
        ) from None
    samples, rate, meta = render_piper(
        text,
        voice=voice,
        seed=seed,
        length_scale=p.length_scale,
        pauses=p.pauses,
        pause_s=p.pause_s,
        lengthen=p.lengthen,
        pitch=p.pitch,
        gain_db=p.gain_db,
    )
    return RenderedClip(
        samples, rate, {**meta, "dimension": "hesitation", "value": value, "text": text}
    )
