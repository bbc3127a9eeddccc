"""Sarcasm offline (deadpan): the sarcastic reading is Piper at length scale 1.4, −2.5 st,
pitch range ×0.5, −2 dB; the sincere one is the same words through the same chain, unchanged.
Prosody-manipulated, not acted: it carries the flat, slow, low cue of deadpan sarcasm and not
the exaggerated kind (or any voice quality), which only a hosted TTS could act."""

from __future__ import annotations

from paraudit.dimensions.base import RenderedClip
from paraudit.errors import ParauditError
from paraudit.render.offline_chain import render_piper
from paraudit.render.profiles import EmotionProfile

SARCASTIC = EmotionProfile("sarcastic", pitch_st=-2.5, range_factor=0.5)
LENGTH_SCALE = 1.4
GAIN_DB = -2.0
VALUES = ("sincere", "sarcastic")


def render(text: str, value: str, *, voice: str = "joe", seed: int = 0) -> RenderedClip:
    if value not in VALUES:
        raise ParauditError(f"sarcasm has no value {value!r} (its values: {', '.join(VALUES)})")
    if value == "sarcastic":
        samples, rate, meta = render_piper(
            text,
            voice=voice,
            seed=seed,
            length_scale=LENGTH_SCALE,
            pitch=SARCASTIC,
            gain_db=GAIN_DB,
        )
    else:
        samples, rate, meta = render_piper(text, voice=voice, seed=seed)
    return RenderedClip(
        samples, rate, {**meta, "dimension": "sarcasm", "value": value, "text": text}
    )
