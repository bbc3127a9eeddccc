"""Render-and-retry with the Audio Scorer (paper B.2.3).

Each turn with a paralinguistic target is rendered again and again until 3 renderings were
accepted or 10 were tried; the accepted rendering with the highest fitness is kept. A turn with
no accepted rendering after 10 tries is dropped, and the caller drops its whole conversation.
`QCCounts` keeps the accept / retry / drop counts per emotion for the dataset card.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

import numpy as np

from paraudit.audio.clips import Clip
from paraudit.items.records import Speaker
from paraudit.qc import dnsmos
from paraudit.qc.rules import (
    RULES,
    Baseline,
    Miss,
    Verdict,
    canonical_emotion,
    judge,
    measure_relative,
    neutral_baseline,
    rule_description,
)
from paraudit.qc.ser import SERBackend
from paraudit.render.tts import LOCAL_COMPUTE, TTSBackend

MAX_ACCEPTED = 3
MAX_TRIES = 10
NEUTRAL_RENDERS = 3

C = TypeVar("C")


class TurnRequest(NamedTuple):
    """One turn to voice, in the order `TTSBackend.synthesize` takes it: the one request shape
    from the builders through voicing to the scorer (a plain tuple in that order is equal)."""

    text: str
    emotion: str
    role: Speaker
    voice: str


@dataclass(frozen=True)
class Scored(Generic[C]):
    clip: C
    verdict: Verdict
    attempt: int


@dataclass(frozen=True)
class RetryOutcome(Generic[C]):
    """What render-and-retry ended with: the kept rendering, or None (drop) and why."""

    best: Scored[C] | None
    verdicts: tuple[Verdict, ...]
    """Every try's verdict, in order."""
    repeated_at: int | None = None
    """The attempt whose rendering was byte-identical to an earlier one: retrying stopped there
    (the backend gives the same audio again, so further tries cannot change the verdict)."""

    @property
    def tries(self) -> int:
        return len(self.verdicts)

    @property
    def accepted(self) -> int:
        return sum(v.accepted for v in self.verdicts)

    @property
    def dropped(self) -> bool:
        return self.best is None

    @property
    def reasons(self) -> tuple[str, ...]:
        """For a dropped turn: each try's rejection reasons, "try k: …"."""
        return tuple(
            f"try {i}: {'; '.join(v.reasons) or 'accepted'}"
            for i, v in enumerate(self.verdicts, start=1)
        )


def render_with_retry(
    render: Callable[[int], C],
    score: Callable[[C], Verdict],
    *,
    max_accepted: int = MAX_ACCEPTED,
    max_tries: int = MAX_TRIES,
    fingerprint: Callable[[C], bytes] | None = None,
) -> RetryOutcome[C]:
    """Call `render(attempt)` and `score(clip)` for attempts 0, 1, … until `max_accepted`
    renderings were accepted or `max_tries` were made; keep the best accepted by fitness (the
    earliest among equals). With `fingerprint`, a rendering identical to an earlier try ends
    the retries unscored: a deterministic backend would give it again and again (a hosted TTS
    that ignores sampling; Piper once its profile strength is capped)."""
    if max_accepted < 1 or max_tries < max_accepted:
        raise ValueError("need 1 ≤ max_accepted ≤ max_tries")
    verdicts: list[Verdict] = []
    best: Scored[C] | None = None
    accepted = 0
    seen: set[bytes] = set()
    for attempt in range(max_tries):
        clip = render(attempt)
        if fingerprint is not None:
            fp = fingerprint(clip)
            if fp in seen:
                return RetryOutcome(best, tuple(verdicts), repeated_at=attempt)
            seen.add(fp)
        v = score(clip)
        verdicts.append(v)
        if v.accepted:
            accepted += 1
            if best is None or v.fitness > best.verdict.fitness:
                best = Scored(clip, v, attempt)
            if accepted >= max_accepted:
                break
    return RetryOutcome(best, tuple(verdicts))


@dataclass
class EmotionCounts:
    turns: int = 0
    kept: int = 0
    dropped: int = 0
    tries: int = 0
    accepted_tries: int = 0
    stopped_identical: int = 0
    """Turns whose retries stopped at a rendering identical to an earlier try."""
    rules: dict[str, int] = field(default_factory=dict)
    """Rule (with its source) → turns it decided."""

    @property
    def retries(self) -> int:
        """Renderings beyond the first, over all turns."""
        return self.tries - self.turns


@dataclass
class QCCounts:
    """Accept / retry / drop counts per target emotion (for the dataset card)."""

    by_emotion: dict[str, EmotionCounts] = field(default_factory=dict)

    def record(self, emotion: str, outcome: RetryOutcome[Any]) -> None:
        c = self.by_emotion.setdefault(emotion, EmotionCounts())
        c.turns += 1
        c.tries += outcome.tries
        c.accepted_tries += outcome.accepted
        c.stopped_identical += outcome.repeated_at is not None
        if outcome.dropped:
            c.dropped += 1
        else:
            c.kept += 1
        if outcome.verdicts:
            v = outcome.verdicts[-1]
            key = f"{v.rule} [{v.source}]"
            c.rules[key] = c.rules.get(key, 0) + 1

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {
            e: {
                "turns": c.turns,
                "kept": c.kept,
                "dropped": c.dropped,
                "tries": c.tries,
                "retries": c.retries,
                "accepted_tries": c.accepted_tries,
                # Only where it happened: the card's column then says retries were cut short.
                **({"stopped_identical": c.stopped_identical} if c.stopped_identical else {}),
                "rules": dict(sorted(c.rules.items())),
            }
            for e, c in sorted(self.by_emotion.items())
        }


def _fingerprint(clip: Clip) -> bytes:
    samples = np.ascontiguousarray(clip.samples, dtype=np.float64)
    return hashlib.sha256(samples.tobytes() + str(clip.sample_rate).encode()).digest()


class AudioScorer:
    """Renders turns with a TTS backend and keeps only renderings that carry their emotion.

    Baselines: `neutral_renders` neutral renderings of the same text, role and voice, averaged,
    computed once per (text, role, voice); one rendering for a deterministic backend (Piper),
    whose renderings of one request are identical. With `ser=None` the rules that need SER use
    their acoustic fallbacks (the verdicts and counts name the rule). `min_dnsmos_ovrl` adds a
    quality gate: a rendering whose DNSMOS OVRL is below it is rejected.
    """

    def __init__(
        self,
        tts: TTSBackend,
        ser: SERBackend | None = None,
        *,
        neutral_renders: int = NEUTRAL_RENDERS,
        max_accepted: int = MAX_ACCEPTED,
        max_tries: int = MAX_TRIES,
        min_dnsmos_ovrl: float | None = None,
    ) -> None:
        self.tts = tts
        self.ser = ser
        self.neutral_renders = neutral_renders
        self.max_accepted = max_accepted
        self.max_tries = max_tries
        self.min_dnsmos_ovrl = min_dnsmos_ovrl
        self.counts = QCCounts()
        self._baselines: dict[tuple[str, Speaker, str], Baseline] = {}
        self._lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        """For the dataset card: policy, SER model, and the rule each emotion is judged by."""
        return {
            "max_accepted": self.max_accepted,
            "max_tries": self.max_tries,
            "neutral_renders": 1 if self.tts.deterministic else self.neutral_renders,
            "ser": self.ser.label if self.ser else None,
            "min_dnsmos_ovrl": self.min_dnsmos_ovrl,
            "rules": {e: rule_description(e, self.ser is not None)[0] for e in RULES},
        }

    def baseline(self, text: str, role: Speaker, voice: str) -> Baseline:
        key = (text, role, voice)
        with self._lock:
            known = self._baselines.get(key)
        if known is not None:
            return known
        n = 1 if self.tts.deterministic else self.neutral_renders
        clips: list[Clip] = []
        seen: set[bytes] = set()
        for i in range(n):
            clip = self.tts.synthesize(text, "neutral", role, voice, attempt=i)
            if _fingerprint(clip) in seen:
                break  # the service repeats itself: more of the same leaves the mean as it is
            seen.add(_fingerprint(clip))
            clips.append(clip)
        with LOCAL_COMPUTE:
            base = neutral_baseline([(c.samples, c.sample_rate) for c in clips], text)
        with self._lock:
            return self._baselines.setdefault(key, base)

    def score(self, clip: Clip, text: str, emotion: str, base: Baseline) -> Verdict:
        with LOCAL_COMPUTE:
            return self._score(clip, text, emotion, base)

    def _score(self, clip: Clip, text: str, emotion: str, base: Baseline) -> Verdict:
        m = measure_relative(clip.samples, clip.sample_rate, text, base)
        probs = self.ser.probabilities(clip.samples, clip.sample_rate) if self.ser else None
        v = judge(emotion, m, probs)
        values = {**v.values, **{f"ser_{k}": p for k, p in (probs or {}).items()}}
        reasons = list(v.reasons)
        misses = list(v.misses)
        if self.min_dnsmos_ovrl is not None:
            ovrl = dnsmos.dnsmos(clip.samples, clip.sample_rate).ovrl
            values["dnsmos_ovrl"] = ovrl
            if not ovrl >= self.min_dnsmos_ovrl:
                reasons.append(f"DNSMOS OVRL {ovrl:.2f} < {self.min_dnsmos_ovrl:g}")
                misses.append(Miss("dnsmos_ovrl", ovrl, "≥", self.min_dnsmos_ovrl))
        return Verdict(
            emotion=v.emotion,
            accepted=not reasons,
            fitness=v.fitness if math.isfinite(v.fitness) else -math.inf,
            rule=v.rule,
            source=v.source,
            reasons=tuple(reasons),
            values=values,
            misses=tuple(misses),
        )

    def render_turn(self, text: str, emotion: str, role: Speaker, voice: str) -> RetryOutcome[Clip]:
        """Render-and-retry one turn; `outcome.best` is None when the turn must be dropped."""
        canonical_emotion(emotion)  # unknown emotions fail before any rendering
        base = self.baseline(text, role, voice)
        outcome = render_with_retry(
            lambda attempt: self.tts.synthesize(text, emotion, role, voice, attempt=attempt),
            lambda clip: self.score(clip, text, emotion, base),
            max_accepted=self.max_accepted,
            max_tries=self.max_tries,
            fingerprint=_fingerprint,
        )
        with self._lock:
            self.counts.record(canonical_emotion(emotion), outcome)
        return outcome

    def render_turns(
        self,
        jobs: Sequence[TurnRequest],
        *,
        workers: int = 1,
        on_done: Callable[[TurnRequest, RetryOutcome[Clip]], None] | None = None,
    ) -> dict[TurnRequest, RetryOutcome[Clip]]:
        """Render-and-retry distinct (text, emotion, role, voice) jobs, `workers` at a time in
        threads. Worth it for hosted TTS, whose calls wait on the network; local synthesis and
        measurement (Praat, Piper) run one at a time under `LOCAL_COMPUTE`. Each job's tries
        stay in order, so results do not depend on `workers`."""
        unique = list(dict.fromkeys(jobs))
        out: dict[TurnRequest, RetryOutcome[Clip]] = {}

        def one(job: TurnRequest) -> tuple[TurnRequest, RetryOutcome[Clip]]:
            return job, self.render_turn(*job)

        pool = ThreadPoolExecutor(workers) if workers > 1 else None
        try:
            for job, outcome in pool.map(one, unique) if pool else map(one, unique):
                out[job] = outcome
                if on_done:
                    on_done(job, outcome)
        finally:
            if pool:
                pool.shutdown(cancel_futures=True)
        return out
