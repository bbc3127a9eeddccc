"""The Audio Scorer's measurements and per-emotion acceptance rules (paper B.2.3, Table 5).

Everything is relative to a *neutral baseline*: several neutral renderings of the same text with
the same voice, averaged (`neutral_baseline`). Thresholds are the published ones
(shared/reference/audio-qc-facts.md):

| target     | accept when                                                  | fitness          |
|------------|--------------------------------------------------------------|------------------|
| hesitant   | end slope ≥ 6 st/s; ≥ 5 words: k-th longest pause ≥ 2 syl.   | end slope        |
| frazzled   | rel. pitch ≥ +5 st; ≥ 2 syllables: rel. speed ≥ +30 %        | rel. pitch       |
| impatient  | |rel. pitch| ≤ 4 st; ≥ 2 syllables: rel. speed ≥ +30 %       | −|rel. pitch|    |
| empathetic | SER angry+disgusted ≤ 0.01; rel. speed ≤ +2 %                | −rel. speed      |
| bored      | sqrt(SER neutral · (SER sad + SER disgusted)) ≥ 0.05         | that product     |
| angry      | SER angry + disgusted ≥ 0.5                                  | that sum         |
| neutral    | SER neutral ≥ 0.8                                            | SER neutral      |
| sad        | SER sad ≥ 0.03                                               | SER sad          |
| happy      | SER happy ≥ 0.005                                            | SER happy        |

k = round(0.25 · gaps), clamped to 1..2, where gaps = words − 1 (the places a pause can fall);
the k-th longest measured silence counts 0 when there are fewer than k silences.

Without an SER model (the offline case: no SER weights can be installed here), the rules that
need SER use an ACOUSTIC FALLBACK written for this toolkit (not from the paper), and the verdict
says so (`source="acoustic-fallback"`). `surprised` has no published rule; its rule here is
ours (`source="paraudit"`), as are the SER-only rules for `fearful` and `disgusted` (no
acoustic rule: judging them needs an SER backend). The fallback thresholds are deliberately
modest fractions of the changes measured on acted-like prosody (offline-stack-notes.md); they
are untested against human judgement of emotion, and the dataset card must say which rule
accepted each clip.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

from paraudit.audio.pitch import last_voiced_time
from paraudit.dimensions.emotion import EMOTION_ALIASES
from paraudit.errors import ParauditError
from paraudit.qc.acoustics import clean_pitch, count_syllables, measure, silent_gaps

END_WINDOW_VOICED_S = 0.6
END_POINTS = 7
NAN = float("nan")

RuleSource = Literal["published", "acoustic-fallback", "paraudit"]


@dataclass(frozen=True)
class Baseline:
    """The mean of several neutral renderings of one text with one voice."""

    f0_hz: float
    syllable_rate: float
    """Syllables per second of speech span (pauses included)."""
    range_st: float
    rms_db: float
    renders: int

    @property
    def syllable_s(self) -> float:
        """Mean syllable duration: the unit pauses are measured in."""
        return 1.0 / self.syllable_rate if self.syllable_rate > 0 else NAN


def neutral_baseline(renders: Sequence[tuple[np.ndarray, int]], text: str) -> Baseline:
    """Average the neutral renderings `(samples, rate)` of `text` into a baseline."""
    if not renders:
        raise ParauditError("a neutral baseline needs at least one neutral rendering")
    feats = [measure(s, r, text) for s, r in renders]
    voiced = [f.f0_median_hz for f in feats if f.f0_median_hz > 0]
    if not voiced:
        raise ParauditError(f"no voiced speech in the neutral renderings of {text!r}")
    return Baseline(
        f0_hz=float(np.mean(voiced)),
        syllable_rate=float(np.mean([f.syllable_rate for f in feats])),
        range_st=float(np.mean([f.f0_range_st for f in feats])),
        rms_db=float(np.mean([f.rms_db for f in feats])),
        renders=len(feats),
    )


@dataclass(frozen=True)
class Measurements:
    """One rendering measured against its neutral baseline. NaN = could not be measured (and
    every rule comparing it fails)."""

    rel_pitch_st: float
    """12·log2(F0 / F0_neutral) of median F0."""
    rel_speed: float
    """(syllables/s − neutral) / neutral."""
    end_slope_st_s: float
    """Linear fit over the last 0.6 s of voiced speech (7 points), semitones per second."""
    rel_range_st: float
    """Change of the 10–90 % pitch range, semitones."""
    rel_loudness_db: float
    kth_pause_syl: float
    """The k-th longest silence, in neutral mean syllable durations."""
    k: int
    pauses_syl: tuple[float, ...]
    words: int
    syllables: int

    def as_dict(self) -> dict[str, float | int | list[float]]:
        d = asdict(self)
        d["pauses_syl"] = [round(p, 3) for p in self.pauses_syl]
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in d.items()}


def end_slope(samples: np.ndarray, rate: int) -> float:
    """Pitch slope (st/s) over the last `END_WINDOW_VOICED_S` of voiced frames, fitted through
    `END_POINTS` points (median semitones of equal chunks), after creak at the end is cut."""
    t, f0 = clean_pitch(samples, rate)
    if f0.size < END_POINTS:
        return NAN
    keep = t <= last_voiced_time(t, f0, float(t[-1])) + 1e-9
    t, f0 = t[keep], f0[keep]
    step = float(np.median(np.diff(t))) if t.size > 1 else 0.01
    n = min(t.size, max(END_POINTS, int(round(END_WINDOW_VOICED_S / step))))
    t, st = t[-n:], 12 * np.log2(f0[-n:])
    if n < END_POINTS:
        return NAN
    chunks = np.array_split(np.arange(n), END_POINTS)
    xs = np.array([t[c].mean() for c in chunks])
    ys = np.array([np.median(st[c]) for c in chunks])
    if xs[-1] - xs[0] <= 0:
        return NAN
    return float(np.polyfit(xs, ys, 1)[0])


def pause_rank(words: int) -> int:
    """k for the k-th longest pause: round(0.25 · (words − 1)), clamped to 1..2."""
    return min(2, max(1, math.floor(0.25 * max(0, words - 1) + 0.5)))


def measure_relative(samples: np.ndarray, rate: int, text: str, base: Baseline) -> Measurements:
    samples = np.asarray(samples, dtype=np.float64)
    f = measure(samples, rate, text)
    words = len(text.split())
    k = pause_rank(words)
    pauses = tuple(sorted((g / base.syllable_s for g in silent_gaps(samples, rate)), reverse=True))
    voiced = f.f0_median_hz > 0
    return Measurements(
        rel_pitch_st=12 * math.log2(f.f0_median_hz / base.f0_hz) if voiced else NAN,
        rel_speed=(f.syllable_rate - base.syllable_rate) / base.syllable_rate
        if base.syllable_rate > 0 and f.syllable_rate > 0
        else NAN,
        end_slope_st_s=end_slope(samples, rate) if voiced else NAN,
        rel_range_st=f.f0_range_st - base.range_st if voiced else NAN,
        rel_loudness_db=f.rms_db - base.rms_db if math.isfinite(f.rms_db) else NAN,
        kth_pause_syl=pauses[k - 1] if len(pauses) >= k else 0.0,
        k=k,
        pauses_syl=pauses,
        words=words,
        syllables=count_syllables(text),
    )


SER_LABELS = ("neutral", "happy", "sad", "surprised", "fearful", "angry", "disgusted")


@dataclass(frozen=True)
class Miss:
    """One threshold a rendering missed: `check` needed `value op limit` and did not hold."""

    check: str
    """The quantity, e.g. "end_slope" or "dnsmos_ovrl"."""
    value: float
    """What was measured (NaN when it could not be)."""
    op: str
    """"≥" or "≤": what the rule asks of the value."""
    limit: float
    unit: str = ""

    @property
    def rule(self) -> str:
        """The requirement, the same for every miss of it: "end_slope ≥ 6 st/s"."""
        return f"{self.check} {self.op} {self.limit:g}{self.unit}"


@dataclass(frozen=True)
class Verdict:
    """The Audio Scorer's decision on one rendering."""

    emotion: str
    accepted: bool
    fitness: float
    """The rule's main quantity; the best accepted rendering has the highest."""
    rule: str
    """Which rule decided, e.g. "hesitant: end slope + k-th pause (published)"."""
    source: RuleSource
    reasons: tuple[str, ...]
    """Why it was rejected (empty when accepted)."""
    values: Mapping[str, float]
    """The quantities the rule compared."""
    misses: tuple[Miss, ...] = ()
    """Each threshold the rendering missed, as numbers (`reasons` says the same in words)."""

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "values": {k: round(v, 4) for k, v in self.values.items()}}


class _Check:
    """Collects threshold checks; NaN fails every comparison."""

    def __init__(self) -> None:
        self.reasons: list[str] = []
        self.values: dict[str, float] = {}
        self.misses: list[Miss] = []

    def at_least(self, name: str, value: float, limit: float, unit: str = "") -> None:
        self.values[name] = value
        if not value >= limit:
            self.misses.append(Miss(name, value, "≥", limit, unit))
            self.reasons.append(f"{name} {value:.3g}{unit} < {limit:g}{unit}")

    def at_most(self, name: str, value: float, limit: float, unit: str = "") -> None:
        self.values[name] = value
        if not value <= limit:
            self.misses.append(Miss(name, value, "≤", limit, unit))
            self.reasons.append(f"{name} {value:.3g}{unit} > {limit:g}{unit}")


Probs = Mapping[str, float]
RuleFn = Callable[[_Check, Measurements, Probs | None], float]


def _hesitant(c: _Check, m: Measurements, p: Probs | None) -> float:
    c.at_least("end_slope", m.end_slope_st_s, 6.0, " st/s")
    if m.words >= 5:
        c.at_least(f"pause_{m.k}", m.kth_pause_syl, 2.0, " syl")
    return m.end_slope_st_s


def _frazzled(c: _Check, m: Measurements, p: Probs | None) -> float:
    c.at_least("rel_pitch", m.rel_pitch_st, 5.0, " st")
    if m.syllables >= 2:
        c.at_least("rel_speed", m.rel_speed, 0.30)
    return m.rel_pitch_st


def _impatient(c: _Check, m: Measurements, p: Probs | None) -> float:
    c.at_most("abs_rel_pitch", abs(m.rel_pitch_st), 4.0, " st")
    if m.syllables >= 2:
        c.at_least("rel_speed", m.rel_speed, 0.30)
    return -abs(m.rel_pitch_st)


def _empathetic(c: _Check, m: Measurements, p: Probs | None) -> float:
    if p is not None:
        c.at_most("ser_angry+disgusted", p["angry"] + p["disgusted"], 0.01)
    else:  # fallback for "does not sound angry": not raised in pitch or loudness
        c.at_most("rel_pitch", m.rel_pitch_st, 2.0, " st")
        c.at_most("rel_loudness", m.rel_loudness_db, 2.0, " dB")
    c.at_most("rel_speed", m.rel_speed, 0.02)
    return -m.rel_speed


def _bored(c: _Check, m: Measurements, p: Probs | None) -> float:
    if p is not None:
        score = math.sqrt(p["neutral"] * (p["sad"] + p["disgusted"]))
        c.at_least("ser_bored", score, 0.05)
        return score
    c.at_most("rel_range", m.rel_range_st, -1.0, " st")
    c.at_most("rel_speed", m.rel_speed, 0.0)
    c.at_most("rel_pitch", m.rel_pitch_st, 0.5, " st")
    return -m.rel_range_st


def _angry(c: _Check, m: Measurements, p: Probs | None) -> float:
    if p is not None:
        score = p["angry"] + p["disgusted"]
        c.at_least("ser_angry+disgusted", score, 0.5)
        return score
    c.at_least("rel_pitch", m.rel_pitch_st, 3.0, " st")
    c.at_least("rel_loudness", m.rel_loudness_db, 2.0, " dB")
    return m.rel_pitch_st


def _neutral(c: _Check, m: Measurements, p: Probs | None) -> float:
    if p is not None:
        c.at_least("ser_neutral", p["neutral"], 0.8)
        return p["neutral"]
    c.at_most("abs_rel_pitch", abs(m.rel_pitch_st), 1.5, " st")
    c.at_most("abs_rel_speed", abs(m.rel_speed), 0.10)
    c.at_most("abs_rel_loudness", abs(m.rel_loudness_db), 2.0, " dB")
    return -abs(m.rel_pitch_st)


def _sad(c: _Check, m: Measurements, p: Probs | None) -> float:
    if p is not None:
        c.at_least("ser_sad", p["sad"], 0.03)
        return p["sad"]
    c.at_most("rel_pitch", m.rel_pitch_st, -1.5, " st")
    c.at_most("rel_speed", m.rel_speed, -0.10)
    return -m.rel_pitch_st


def _happy(c: _Check, m: Measurements, p: Probs | None) -> float:
    if p is not None:
        c.at_least("ser_happy", p["happy"], 0.005)
        return p["happy"]
    c.at_least("rel_pitch", m.rel_pitch_st, 1.5, " st")
    c.at_least("rel_speed", m.rel_speed, -0.05)
    return m.rel_pitch_st


def _surprised(c: _Check, m: Measurements, p: Probs | None) -> float:
    if p is not None:
        c.at_least("ser_surprised", p["surprised"], 0.05)
        return p["surprised"]
    c.at_least("rel_pitch", m.rel_pitch_st, 1.5, " st")
    # A widened range or a final rise: either marks surprise in this rule.
    lift = max(m.rel_range_st / 2.0, m.end_slope_st_s / 3.0)
    c.at_least("max(rel_range/2, end_slope/3)", lift, 1.0)
    return m.rel_pitch_st


def _ser_only(label: str) -> RuleFn:
    def rule(c: _Check, m: Measurements, p: Probs | None) -> float:
        if p is None:
            raise ParauditError(
                f"the Audio Scorer needs an SER backend to judge '{label}' (no acoustic rule)"
            )
        c.at_least(f"ser_{label}", p[label], 0.05)
        return p[label]

    return rule


# emotion → (rule, needs SER, description, the rule is the paper's)
RULES: dict[str, tuple[RuleFn, bool, str, bool]] = {
    "hesitant": (_hesitant, False, "end slope ≥ 6 st/s + k-th pause ≥ 2 syl", True),
    "frazzled": (_frazzled, False, "rel. pitch ≥ +5 st + rel. speed ≥ +30 %", True),
    "impatient": (_impatient, False, "|rel. pitch| ≤ 4 st + rel. speed ≥ +30 %", True),
    "empathetic": (_empathetic, True, "SER angry+disgusted ≤ 0.01 + rel. speed ≤ +2 %", True),
    "bored": (_bored, True, "sqrt(SER neutral·(sad+disgusted)) ≥ 0.05", True),
    "angry": (_angry, True, "SER angry+disgusted ≥ 0.5", True),
    "neutral": (_neutral, True, "SER neutral ≥ 0.8", True),
    "sad": (_sad, True, "SER sad ≥ 0.03", True),
    "happy": (_happy, True, "SER happy ≥ 0.005", True),
    "surprised": (_surprised, True, "SER surprised ≥ 0.05", False),
    "fearful": (_ser_only("fearful"), True, "SER fearful ≥ 0.05", False),
    "disgusted": (_ser_only("disgusted"), True, "SER disgusted ≥ 0.05", False),
}
FALLBACK_DESCRIPTIONS = {
    "empathetic": "rel. pitch ≤ +2 st, rel. loudness ≤ +2 dB, rel. speed ≤ +2 %",
    "bored": "rel. range ≤ −1 st, rel. speed ≤ 0, rel. pitch ≤ +0.5 st",
    "angry": "rel. pitch ≥ +3 st, rel. loudness ≥ +2 dB",
    "neutral": "|rel. pitch| ≤ 1.5 st, |rel. speed| ≤ 10 %, |rel. loudness| ≤ 2 dB",
    "sad": "rel. pitch ≤ −1.5 st, rel. speed ≤ −10 %",
    "happy": "rel. pitch ≥ +1.5 st, rel. speed ≥ −5 %",
    "surprised": "rel. pitch ≥ +1.5 st, and rel. range ≥ +2 st or end slope ≥ 3 st/s",
    "fearful": "none: needs SER",
    "disgusted": "none: needs SER",
}


def canonical_emotion(emotion: str) -> str:
    e = emotion.lower()
    e = EMOTION_ALIASES.get(e, e)
    if e not in RULES:
        raise ParauditError(
            f"the Audio Scorer has no rule for emotion '{emotion}' (known: {', '.join(RULES)})"
        )
    return e


def rule_description(emotion: str, with_ser: bool) -> tuple[str, RuleSource]:
    """What rule will judge `emotion`, and where it comes from (for the dataset card)."""
    e = canonical_emotion(emotion)
    _, needs_ser, text, published = RULES[e]
    if needs_ser and not with_ser:
        return f"{e}: {FALLBACK_DESCRIPTIONS[e]} (acoustic fallback, no SER)", "acoustic-fallback"
    return f"{e}: {text}", "published" if published else "paraudit"


def judge(emotion: str, m: Measurements, ser: Probs | None = None) -> Verdict:
    """Accept or reject one rendering of `emotion`; `ser` = probabilities over `SER_LABELS`
    (None when no SER backend is available)."""
    e = canonical_emotion(emotion)
    fn, needs_ser, _, _ = RULES[e]
    if ser is not None:
        missing = [k for k in SER_LABELS if k not in ser]
        if missing:
            raise ParauditError(f"SER probabilities lack {', '.join(missing)}")
    c = _Check()
    fitness = fn(c, m, ser if needs_ser else None)
    rule, source = rule_description(e, ser is not None)
    accepted = not c.reasons
    return Verdict(
        emotion=e,
        accepted=accepted,
        fitness=fitness if math.isfinite(fitness) else -math.inf,
        rule=rule,
        source=source,
        reasons=tuple(c.reasons),
        values=c.values,
        misses=tuple(c.misses),
    )
