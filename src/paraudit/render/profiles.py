"""Emotion as a prosody profile, applied to a neutral Piper rendering.

Starting values come from a 48-sentence trial with this voice (shared/reference/
offline-stack-notes.md); they are *prosody manipulations*, not acted emotion, and every dataset
built with them says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from paraudit.items.records import Speaker


@dataclass(frozen=True)
class EmotionProfile:
    """How one emotion is realised on top of the neutral rendering."""

    name: str
    """The emotion label this profile renders."""
    length_scale: float = 1.0
    """Piper phoneme length scale (< 1 faster). Not linear in tempo: verified by measurement."""
    pitch_st: float = 0.0
    """Shift of the pitch level, in semitones."""
    range_factor: float = 1.0
    """Scaling of pitch excursions around the median (in the log domain)."""
    gain_db: float = 0.0
    """Gain on top of the fixed global gain."""
    pauses: int = 0
    """Pauses inserted at phrase boundaries."""
    pause_s: float = 0.0
    """Length of each inserted pause."""
    end_rise_st: float = 0.0
    """Rise over the last 0.4 s of voicing (question-like or hesitant ending)."""
    wobble_st: float = 0.0
    """Amplitude of a slow pitch wobble (frazzled)."""

    def scaled(self, strength: float) -> EmotionProfile:
        """The same profile pushed `strength` times as far from neutral (used for retries)."""
        return replace(
            self,
            length_scale=1.0 + (self.length_scale - 1.0) * strength,
            pitch_st=self.pitch_st * strength,
            range_factor=math.exp(math.log(self.range_factor) * strength),
            gain_db=self.gain_db * strength,
            pause_s=self.pause_s * strength,
            end_rise_st=self.end_rise_st * strength,
            wobble_st=self.wobble_st * strength,
        )

    def params(self) -> dict[str, float | int | str]:
        return {
            "name": self.name,
            "length_scale": round(self.length_scale, 6),
            "pitch_st": round(self.pitch_st, 6),
            "range_factor": round(self.range_factor, 6),
            "gain_db": round(self.gain_db, 6),
            "pauses": self.pauses,
            "pause_s": round(self.pause_s, 6),
            "end_rise_st": round(self.end_rise_st, 6),
            "wobble_st": round(self.wobble_st, 6),
        }


HUMAN_PROFILES: dict[str, EmotionProfile] = {
    p.name: p
    for p in (
        EmotionProfile("neutral"),
        EmotionProfile("angry", length_scale=0.76, pitch_st=5.5, range_factor=1.45, gain_db=6.0),
        EmotionProfile(
            "sad",
            length_scale=1.45,
            pitch_st=-3.0,
            range_factor=0.55,
            gain_db=-6.0,
            pauses=1,
            pause_s=0.35,
        ),
        EmotionProfile("surprised", pitch_st=3.0, range_factor=1.8, gain_db=2.0, end_rise_st=5.0),
        EmotionProfile("happy", length_scale=0.85, pitch_st=2.5, range_factor=1.35, gain_db=2.0),
        EmotionProfile(
            "frazzled",
            length_scale=0.72,
            pitch_st=3.5,
            range_factor=1.3,
            gain_db=3.0,
            wobble_st=0.8,
        ),
        EmotionProfile(
            "hesitant",
            length_scale=1.3,
            pitch_st=-1.0,
            range_factor=0.8,
            gain_db=-3.0,
            pauses=2,
            pause_s=0.55,
            end_rise_st=3.0,
        ),
    )
}

ASSISTANT_PROFILES: dict[str, EmotionProfile] = {
    p.name: p
    for p in (
        EmotionProfile("neutral"),
        EmotionProfile("happy", length_scale=0.85, pitch_st=2.0, range_factor=1.4, gain_db=1.5),
        EmotionProfile(
            "empathetic", length_scale=1.2, pitch_st=-1.5, range_factor=0.8, gain_db=-2.0
        ),
    )
}


def profile_for(speaker: Speaker, emotion: str) -> EmotionProfile:
    table = HUMAN_PROFILES if speaker == "human" else ASSISTANT_PROFILES
    try:
        return table[emotion]
    except KeyError:
        known = ", ".join(sorted(table))
        raise ValueError(f"no {speaker} profile for emotion '{emotion}' (known: {known})") from None
