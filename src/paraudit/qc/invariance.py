"""QC of an invariance twin: did the change alter its one property and leave the emotion's
prosody as the build's QC accepted it?

The build's checks (qc/verify.py, qc/rules.py) measure a clip against a neutral rendering of the
same text and voice; a dataset keeps no neutral renderings, so a twin is measured against the
clip it was made from, with the same Praat measurements (qc/acoustics.measure). A twin passes
when the changed property moved as documented and every other cue the emotion rules read —
median pitch, pitch range, loudness, speaking rate, end level, longest pause — stayed within a
tolerance of the original, so the emotion the original was accepted for still reads. The
tolerances sit below the changes the emotion profiles make (pitch ≥ 3 st, range ≥ 2.5 st, end
rise 4–5 st, loudness ≥ 2 dB for every emotion but neutral) and above what Praat's medians
wander on an unchanged clip (range and end level move by up to ~2 st under PSOLA alone on the
bundled low voice, measured on the starter set).

Recording conditions (telephone, reverb) have a rule of their own (`check_condition`): the
condition is measured where it acts (energy above 4 kHz for the phone line, the tail after the
last word for the room) and the level must stay; the prosodic figures are recorded but do not
gate, because the condition itself moves Praat's estimates with the speech unchanged: over the
first 4 starter texts of each of the five new dimensions (40 clips a condition, `python
benchmarks/conditions.py`) the room moved the pitch median by up to 1.8 st (5.9 st on whisper,
where a pitch track is mostly spurious), the end level by up to 5.7 st and the speaking rate (its
tail lengthens the speech span) by up to 11 %; the phone line moved the end level by up to 3.3 st.
Gating on them would keep only the mildest twins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from paraudit.audio.conditions import band_energy_db, speech_end_s, tail_decay_db
from paraudit.qc.acoustics import ProsodyFeatures, measure

PITCH_TOL_ST = 1.0
"""An unchanged median pitch may move this much (Praat's median wanders by a few tenths)."""
VOICE_TOL_ST = 1.5
RANGE_TOL_ST = 2.5
LOUDNESS_TOL_DB = 1.5
GAIN_TOL_DB = 0.5
RATE_TOL = 0.05
"""Relative speaking-rate tolerance; the rate variants must land within it of their target."""
END_LEVEL_TOL_ST = 2.5
PAUSE_TOL_S = 0.15
MIN_SNR_DB = 27.0
PHONE_DROP_DB = 30.0
"""A phone line's twin: energy above 4 kHz, relative to the 300-3400 Hz band, at least this far
below the original's (measured 49.7-70.6 dB, benchmarks/conditions.py)."""
ROOM_TAIL_DB = -35.0
"""A room's twin: energy 30-200 ms after the last word at least this level relative to the last
200 ms of speech (measured -6.6 to -23.8 dB, benchmarks/conditions.py) ..."""
ROOM_DRR_DB = 0.0
"""... and its direct-to-reverberant ratio at most this: the twin's part that the dry clip (at
its best-fitting gain) does not explain is at least as strong as the direct sound, as for a
talker beyond the room's critical distance (about 0.6 m here; measured -6.4 to -20.9 dB at 2 m,
benchmarks/conditions.py). An unchanged or only louder copy has no such part at all."""
TAIL_FLOOR_DB = -80.0


@dataclass(frozen=True)
class TwinCheck:
    """One twin clip against its original: accepted, and the measured changes."""

    accepted: bool
    reasons: tuple[str, ...]
    failed: tuple[str, ...]
    """The names of the failed measures (e.g. 'pitch range'), for the card's counts."""
    pitch_st: float
    range_st: float
    loudness_db: float
    rate_ratio: float
    end_level_st: float
    pause_s: float
    condition: dict[str, float] | None = None
    """A recording condition's own measure (`check_condition`), None for the other changes."""

    def as_dict(self) -> dict[str, object]:
        return {
            "accepted": self.accepted,
            "reasons": list(self.reasons),
            **{
                k: round(float(getattr(self, k)), 3)
                for k in ("pitch_st", "range_st", "loudness_db", "rate_ratio", "end_level_st",
                          "pause_s")
            },
            **({"condition": self.condition} if self.condition is not None else {}),
        }  # fmt: skip


def _st(a: float, b: float) -> float:
    return 12 * math.log2(a / b) if a > 0 and b > 0 else math.nan


def compare(
    original: ProsodyFeatures, twin: ProsodyFeatures, change: str, params: dict[str, object]
) -> TwinCheck:
    """The rule, on measured features (see the module docstring)."""
    pitch = _st(twin.f0_median_hz, original.f0_median_hz)
    rng = twin.f0_range_st - original.f0_range_st
    loud = twin.rms_db - original.rms_db
    ratio = twin.syllable_rate / original.syllable_rate if original.syllable_rate > 0 else math.nan
    end = twin.end_level_st - original.end_level_st
    pause = twin.longest_pause_s - original.longest_pause_s
    want_pitch = float(params.get("pitch_median_st", 0.0))  # type: ignore[arg-type]
    want_gain = float(params.get("gain_db", 0.0))  # type: ignore[arg-type]
    want_rate = float(params.get("rate_factor", 1.0))  # type: ignore[arg-type]
    reasons: list[str] = []
    failed: list[str] = []

    def within(name: str, value: float, target: float, tol: float, unit: str) -> None:
        if not math.isfinite(value) or abs(value - target) > tol:
            failed.append(name)
            reasons.append(f"{name} {value:+.2f} {unit}, expected {target:+.2f} ± {tol:g}")

    within("pitch", pitch, want_pitch, VOICE_TOL_ST if change == "voice" else PITCH_TOL_ST, "st")
    within("pitch range", rng, 0.0, RANGE_TOL_ST, "st")
    within(
        "loudness", loud, want_gain, GAIN_TOL_DB if change == "loudness" else LOUDNESS_TOL_DB, "dB"
    )
    within("rate", ratio, want_rate, RATE_TOL * want_rate, "×")
    within("end level", end, 0.0, END_LEVEL_TOL_ST, "st")
    # A slower twin's pauses lengthen with it: the tolerance scales with the duration change.
    within("longest pause", pause, original.longest_pause_s * (1 / want_rate - 1), PAUSE_TOL_S, "s")
    return TwinCheck(
        not reasons, tuple(reasons), tuple(failed), pitch, rng, loud, ratio, end, pause
    )


def check_twin(
    original: np.ndarray,
    rate: int,
    twin: np.ndarray,
    twin_rate: int,
    text: str,
    change: str,
    params: dict[str, object],
    *,
    measured_snr_db: float | None = None,
) -> TwinCheck:
    """Measure both clips and apply `compare`; an added-noise twin must also keep its SNR; a
    recording condition goes to `check_condition`."""
    if change in ("telephone", "reverb"):
        return check_condition(original, rate, twin, twin_rate, text, change)
    c = compare(measure(original, rate, text), measure(twin, twin_rate, text), change, params)
    if measured_snr_db is not None and measured_snr_db < MIN_SNR_DB:
        reasons = (*c.reasons, f"SNR {measured_snr_db:.1f} dB < {MIN_SNR_DB:g} dB")
        failed = (*c.failed, "SNR")
        return TwinCheck(False, reasons, failed, *(getattr(c, k) for k in _FIGURES))
    return c


_FIGURES = ("pitch_st", "range_st", "loudness_db", "rate_ratio", "end_level_st", "pause_s")


def condition_measures(
    original: np.ndarray, rate: int, twin: np.ndarray, change: str
) -> dict[str, float]:
    """telephone: how far the energy above 4 kHz (relative to 300-3400 Hz) fell, dB; reverb:
    the twin's tail level after the original's last word, and its direct-to-reverberant ratio
    against the original, dB (the module's constants hold the bounds)."""
    if change == "telephone":

        def high(x: np.ndarray) -> float:
            return band_energy_db(x, rate, 4000.0, rate / 2) - band_energy_db(x, rate, 300, 3400)

        return {"high_band_drop_db": high(original) - high(twin)}
    wet = max(TAIL_FLOOR_DB, tail_decay_db(twin, rate, speech_end_s(original, rate)))
    x = np.asarray(original, dtype=np.float64)
    y = np.asarray(twin, dtype=np.float64)[: x.size]
    y = np.pad(y, (0, x.size - y.size))
    gain = float(np.dot(x, y) / np.dot(x, x)) if np.dot(x, x) > 0 else 0.0
    direct, rest = float(np.sum((gain * x) ** 2)), float(np.sum((y - gain * x) ** 2))
    drr = 10 * math.log10(direct / rest) if rest > 0 and direct > 0 else math.inf
    return {"tail_db": wet, "drr_db": min(drr, 99.0)}


def check_condition(
    original: np.ndarray, rate: int, twin: np.ndarray, twin_rate: int, text: str, change: str
) -> TwinCheck:
    """A recording-condition twin: the condition measured where it acts, the level kept (the
    module docstring says why the prosodic figures are recorded but not gated)."""
    c = compare(measure(original, rate, text), measure(twin, twin_rate, text), change, {})
    m = condition_measures(original, rate, twin, change)
    reasons: list[str] = []
    failed: list[str] = []
    if twin_rate != rate:
        reasons.append(f"sample rate {twin_rate} Hz, expected the original's {rate} Hz")
        failed.append("sample rate")
    if change == "telephone" and not m["high_band_drop_db"] >= PHONE_DROP_DB:
        failed.append("band limit")
        reasons.append(
            f"energy above 4 kHz fell {m['high_band_drop_db']:.1f} dB, expected >= "
            f"{PHONE_DROP_DB:g}"
        )
    if change == "reverb" and not (m["tail_db"] >= ROOM_TAIL_DB and m["drr_db"] <= ROOM_DRR_DB):
        failed.append("room tail")
        reasons.append(
            f"tail after the last word {m['tail_db']:.1f} dB, direct-to-reverberant "
            f"{m['drr_db']:.1f} dB; expected >= {ROOM_TAIL_DB:g} and <= {ROOM_DRR_DB:g}"
        )
    if not (math.isfinite(c.loudness_db) and abs(c.loudness_db) <= LOUDNESS_TOL_DB):
        failed.append("loudness")
        reasons.append(f"loudness {c.loudness_db:+.2f} dB, expected +0.00 ± {LOUDNESS_TOL_DB:g}")
    return TwinCheck(
        not reasons,
        tuple(reasons),
        tuple(failed),
        c.pitch_st,
        c.range_st,
        c.loudness_db,
        c.rate_ratio,
        c.end_level_st,
        c.pause_s,
        {k: round(float(v), 2) for k, v in m.items()},
    )
