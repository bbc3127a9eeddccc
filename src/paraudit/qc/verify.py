"""Does a rendering move away from neutral in its profile's direction?

Measured against a neutral rendering of the same text and voice (audio-qc-facts.md:
baseline-relative pitch in semitones, relative speed, pauses, end slope).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from paraudit.qc.acoustics import ProsodyFeatures


class ProfileTarget(Protocol):
    """What a direction check reads of a prosody profile (render's `EmotionProfile`): qc sits
    below render, so it names the fields it needs instead of importing the class."""

    @property
    def pitch_st(self) -> float: ...
    @property
    def range_factor(self) -> float: ...
    @property
    def length_scale(self) -> float: ...
    @property
    def gain_db(self) -> float: ...
    @property
    def pauses(self) -> int: ...
    @property
    def pause_s(self) -> float: ...
    @property
    def end_rise_st(self) -> float: ...


@dataclass(frozen=True)
class ProsodyDelta:
    """A rendering's measured change against the neutral rendering of the same text."""

    f0_shift_st: float
    """12·log2(F0 / F0_neutral) of the medians."""
    f0_range_delta_st: float
    """Change of the 10–90 % pitch range, semitones."""
    rate_ratio: float
    """Syllables per second relative to neutral (> 1 faster)."""
    rms_db: float
    """Loudness change, dB."""
    pause_delta_s: float
    """Change of the longest internal pause, seconds."""
    end_slope_delta: float
    """Change of the end pitch slope, semitones per second."""
    end_level_delta: float
    """Change of the end pitch level (relative to each clip's median), semitones."""

    def as_dict(self) -> dict[str, float]:
        return {k: round(float(getattr(self, k)), 3) for k in self.__dataclass_fields__}


def delta(clip: ProsodyFeatures, neutral: ProsodyFeatures) -> ProsodyDelta:
    def st(a: float, b: float) -> float:
        return 12 * math.log2(a / b) if a > 0 and b > 0 else 0.0

    return ProsodyDelta(
        f0_shift_st=st(clip.f0_median_hz, neutral.f0_median_hz),
        f0_range_delta_st=clip.f0_range_st - neutral.f0_range_st,
        rate_ratio=clip.syllable_rate / neutral.syllable_rate if neutral.syllable_rate else 1.0,
        rms_db=clip.rms_db - neutral.rms_db,
        pause_delta_s=clip.longest_pause_s - neutral.longest_pause_s,
        end_slope_delta=clip.end_slope_st_s - neutral.end_slope_st_s,
        end_level_delta=clip.end_level_st - neutral.end_level_st,
    )


def direction_failures(profile: ProfileTarget, d: ProsodyDelta, words: int = 10) -> list[str]:
    """Why `d` does not go the way `profile` pushes; empty when it does.

    Margins are fractions of the nominal change: a profile must show at least part of each
    intended change, in its sign, or the rendering is retried. Pitch range and pauses are only
    judged on utterances of five (range: six) words or more (audio-qc-facts.md): a two-word
    turn has too few pitch points for a range and no phrase boundary for a pause.
    """
    long_enough = words >= 5
    range_judged = words >= 6
    fails: list[str] = []
    if abs(profile.pitch_st) >= 1.5:
        want = 0.4 * profile.pitch_st
        if (profile.pitch_st > 0 and d.f0_shift_st < want) or (
            profile.pitch_st < 0 and d.f0_shift_st > want
        ):
            fails.append(
                f"pitch moved {d.f0_shift_st:+.1f} st, expected about {profile.pitch_st:+.1f}"
            )
    if profile.length_scale <= 0.93 and d.rate_ratio < 1.03:
        fails.append(f"rate ×{d.rate_ratio:.2f}, expected faster")
    if profile.length_scale >= 1.05 and d.rate_ratio > 0.96:
        fails.append(f"rate ×{d.rate_ratio:.2f}, expected slower")
    if abs(profile.gain_db) >= 1.5:
        want = 0.4 * profile.gain_db
        if (profile.gain_db > 0 and d.rms_db < want) or (profile.gain_db < 0 and d.rms_db > want):
            fails.append(f"loudness {d.rms_db:+.1f} dB, expected about {profile.gain_db:+.1f}")
    if range_judged and profile.range_factor >= 1.2 and d.f0_range_delta_st <= 0:
        fails.append(f"pitch range {d.f0_range_delta_st:+.1f} st, expected wider")
    if range_judged and profile.range_factor <= 0.85 and d.f0_range_delta_st >= 0:
        fails.append(f"pitch range {d.f0_range_delta_st:+.1f} st, expected narrower")
    if (
        long_enough
        and profile.pauses
        and profile.pause_s >= 0.3
        and d.pause_delta_s < 0.5 * profile.pause_s
    ):
        fails.append(f"longest pause {d.pause_delta_s:+.2f} s, expected a pause")
    if profile.end_rise_st >= 3.0 and d.end_slope_delta <= 0 and d.end_level_delta <= 0.5:
        fails.append(
            f"end slope {d.end_slope_delta:+.1f} st/s and end level {d.end_level_delta:+.1f} st, "
            "expected a rise"
        )
    return fails
