"""Urgency offline: calm = slower Piper reading with one phrase pause; urgent = fast reading,
no pause, +2.5 st, range ×1.25, +3 dB (measured effect: `benchmarks/dimensions.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from paraudit.dimensions.base import RenderedClip
from paraudit.errors import ParauditError
from paraudit.render.offline_chain import render_piper
from paraudit.render.profiles import EmotionProfile


@dataclass(frozen=True)
class UrgencyProfile:
    length_scale: float
    pauses: int
    pause_s: float
    pitch: EmotionProfile | None
    gain_db: float


# Piper's length scale is not linear in tempo: 1.1 → 0.7 measured a 1.55–1.76× syllable rate
# on the starter sentences, clear of the QC's 1.3× bound in each of the three voices.
PROFILES: dict[str, UrgencyProfile] = {
    "calm": UrgencyProfile(1.1, 1, 0.25, None, 0.0),
    "urgent": UrgencyProfile(
        0.7, 0, 0.0, EmotionProfile("urgent", pitch_st=2.5, range_factor=1.25), 3.0
    ),
}


def render(text: str, value: str, *, voice: str = "joe", seed: int = 0) -> RenderedClip:
    try:
        p = PROFILES[value]
    except KeyError:
        raise ParauditError(
            f"urgency has no value {value!r} (its values: {', '.join(PROFILES)})"
        ) from None
    samples, rate, meta = render_piper(
        text,
        voice=voice,
        seed=seed,
        length_scale=p.length_scale,
        pauses=p.pauses,
        pause_s=p.pause_s,
        pitch=p.pitch,
        gain_db=p.gain_db,
    )
    return RenderedClip(
        samples, rate, {**meta, "dimension": "urgency", "value": value, "text": text}
    )
