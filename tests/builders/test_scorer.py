from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paraudit.builders.scorer import AudioScorer, QCCounts, render_with_retry
from paraudit.errors import ParauditError
from paraudit.items.records import Speaker
from paraudit.qc import dnsmos as dnsmos_module
from paraudit.qc.dnsmos import DnsmosScore
from paraudit.qc.rules import Verdict
from paraudit.render.backends import make_tts
from paraudit.render.tts import TTSBackend

RATE = 16000


def verdict(accepted: bool, fitness: float) -> Verdict:
    return Verdict(
        "sad", accepted, fitness, "sad: scripted", "published", () if accepted else ("no",), {}
    )


def scripted(script: list[tuple[bool, float]]) -> tuple[list[int], Any]:
    calls: list[int] = []

    def render(attempt: int) -> int:
        calls.append(attempt)
        return attempt

    return calls, (render, lambda a: verdict(*script[a]))


def test_stops_at_three_accepted_and_keeps_the_fittest() -> None:
    script = [(False, 0), (True, 0.2), (False, 0), (True, 0.9), (True, 0.5)] + [(True, 9)] * 5
    calls, (render, score) = scripted(script)
    out = render_with_retry(render, score)
    assert calls == [0, 1, 2, 3, 4]  # the 3rd acceptance ends it; the fitter later ones unseen
    assert out.best is not None and out.best.clip == 3 and out.best.attempt == 3
    assert (out.tries, out.accepted, out.dropped) == (5, 3, False)


def test_stops_at_ten_tries_and_keeps_an_only_acceptance() -> None:
    script = [(False, 0)] * 9 + [(True, 0.1)]
    calls, (render, score) = scripted(script)
    out = render_with_retry(render, score)
    assert calls == list(range(10)) and out.best is not None and out.best.clip == 9


def test_a_turn_that_never_passes_is_dropped_with_every_reason() -> None:
    calls, (render, score) = scripted([(False, 0)] * 12)
    out = render_with_retry(render, score)
    assert len(calls) == 10 and out.best is None and out.dropped
    assert out.reasons[0] == "try 1: no" and len(out.reasons) == 10


def test_equal_fitness_keeps_the_earliest() -> None:
    calls, (render, score) = scripted([(True, 0.5), (True, 0.5), (True, 0.5)])
    out = render_with_retry(render, score)
    assert out.best is not None and out.best.clip == 0


def test_counts_for_the_card() -> None:
    counts = QCCounts()
    for script in (
        [(True, 1.0)] * 3,
        [(False, 0)] * 10,
        [(False, 0), (True, 1.0)] + [(True, 0)] * 8,
    ):
        _, (render, score) = scripted(script)
        counts.record("sad", render_with_retry(render, score))
    d = counts.as_dict()["sad"]
    assert d == {
        "turns": 3,
        "kept": 2,
        "dropped": 1,
        "tries": 3 + 10 + 4,
        "retries": 17 - 3,
        "accepted_tries": 3 + 0 + 3,
        "rules": {"sad: scripted [published]": 3},
    }


class Tones(TTSBackend):
    """A deterministic test backend: harmonic tones whose pitch and pace follow the emotion
    and the attempt (frazzled: +2 st and 40 % faster at attempt 0, +1 st per attempt). Like a
    service that samples afresh, each attempt's bytes differ (by a level change far below any
    threshold), so retries run their course."""

    name = "tones"
    voices = ("low", "high")
    sample_rate = RATE

    def __init__(self) -> None:
        super().__init__("tones", None)

    @property
    def label(self) -> str:
        return "tones"

    def render(
        self, text: str, emotion: str, role: Speaker, voice: str, attempt: int
    ) -> tuple[np.ndarray, int, dict[str, Any]]:
        f0 = 110.0 if voice == "low" else 190.0
        seconds = 2.0
        if emotion == "frazzled":
            f0 *= 2 ** ((2 + attempt) / 12)
            seconds /= 1.4
        t = np.arange(int(RATE * seconds)) / RATE
        level = 0.2 * (1 + 1e-4 * attempt)
        x = level * (np.sin(2 * np.pi * f0 * t) + 0.5 * np.sin(4 * np.pi * f0 * t))
        return x, RATE, {"f0": f0}


def test_audio_scorer_retries_until_the_rendering_carries_its_emotion() -> None:
    scorer = AudioScorer(Tones())
    out = scorer.render_turn("we could maybe move the meeting", "frazzled", "human", "low")
    # Pitch reaches +5 st at attempt 3; attempts 3, 4, 5 are accepted; 5 is the highest.
    assert out.tries == 6 and out.accepted == 3
    assert out.best is not None and out.best.attempt == 5
    assert out.best.verdict.source == "published"
    assert abs(out.best.verdict.values["rel_pitch"] - 7.0) < 0.3
    assert scorer.counts.as_dict()["frazzled"]["kept"] == 1
    # The baseline was rendered once per (text, role, voice): three neutral renderings.
    assert scorer.tts.fresh_renders == 3 + 6
    scorer.render_turn("we could maybe move the meeting", "frazzled", "human", "low")
    assert scorer.tts.fresh_renders == 3 + 6 + 6


def test_turns_in_threads_give_the_same_outcomes() -> None:
    text = "we could maybe move the meeting"
    jobs = [
        (text, e, "human", v) for e in ("frazzled", "neutral", "happy") for v in ("low", "high")
    ]
    serial = AudioScorer(Tones(), max_tries=5).render_turns(jobs)
    seen: list[object] = []
    scorer = AudioScorer(Tones(), max_tries=5)
    threaded = scorer.render_turns(jobs + jobs[:2], workers=3, on_done=lambda j, o: seen.append(j))
    assert list(threaded) == jobs and sorted(map(str, seen)) == sorted(map(str, jobs))
    for job in jobs:
        a, b = serial[job], threaded[job]
        assert [v.accepted for v in a.verdicts] == [v.accepted for v in b.verdicts]
        assert (a.best is None) == (b.best is None)
        assert a.best is None or b.best is None or a.best.attempt == b.best.attempt
    assert sum(c["turns"] for c in scorer.counts.as_dict().values()) == len(jobs)


def test_audio_scorer_drops_what_never_passes_and_names_the_fallback() -> None:
    scorer = AudioScorer(Tones(), max_tries=4)
    out = scorer.render_turn("that is such good news", "happy", "human", "high")
    assert out.dropped and out.tries == 4
    assert all("rel_pitch" in r for r in out.reasons)
    counts = scorer.counts.as_dict()["happy"]
    assert counts["dropped"] == 1
    assert list(counts["rules"]) == [
        "happy: rel. pitch ≥ +1.5 st, rel. speed ≥ −5 % (acoustic fallback, no SER) "
        "[acoustic-fallback]"
    ]
    assert "no SER" in scorer.describe()["rules"]["angry"]
    with pytest.raises(ParauditError, match="no rule for emotion 'smug'"):
        scorer.render_turn("x y", "smug", "human", "high")


def test_dnsmos_gate_rejects_low_quality(monkeypatch: pytest.MonkeyPatch) -> None:
    scores = iter([1.8, 3.4, 3.5, 3.6])
    monkeypatch.setattr(
        dnsmos_module, "dnsmos", lambda s, r: DnsmosScore(3.0, 3.0, next(scores), 3.0)
    )
    scorer = AudioScorer(Tones(), min_dnsmos_ovrl=3.0)
    out = scorer.render_turn("we could maybe move the meeting", "neutral", "human", "low")
    assert out.verdicts[0].reasons == ("DNSMOS OVRL 1.80 < 3",)
    assert [v.accepted for v in out.verdicts] == [False, True, True, True]
    assert out.best is not None and out.best.verdict.values["dnsmos_ovrl"] == 3.4


def test_piper_renderings_pass_the_published_hesitant_rule(tmp_path: Path) -> None:
    scorer = AudioScorer(make_tts("piper", cache_dir=tmp_path), max_accepted=1)
    text = "Maybe we could move the meeting to Friday instead"
    out = scorer.render_turn(text, "hesitant", "human", "plain")
    assert out.best is not None, out.reasons
    v = out.best.verdict
    assert v.source == "published" and v.values["end_slope"] >= 6.0
    assert v.values["pause_2"] >= 2.0 and math.isfinite(v.fitness)
    # Piper is deterministic: one neutral rendering is the whole baseline.
    assert scorer.describe()["neutral_renders"] == 1
    sad = scorer.render_turn(text, "sad", "human", "plain")
    assert sad.best is not None and sad.best.verdict.source == "acoustic-fallback"


def test_hosted_turns_through_the_scorer_in_threads(tmp_path: Path) -> None:
    """The loopback service returns the same neutral Piper sentence (its bytes varied by one
    sample per request, as a sampling service's differ): neutral turns pass, frazzled ones
    never do, and every request carries its own emotion's instructions."""
    from paraudit.audio.clips import resample
    from paraudit.render.piper_voice import load_synth, resolve_voice
    from paraudit.render.tts_styles import STYLES
    from tests.render.tts_loopback import RATE as HOSTED_RATE
    from tests.render.tts_loopback import TTSLoopback

    text = "They moved the meeting to Friday."
    synth = load_synth(resolve_voice(None))
    speech = resample(synth.synthesize(text), synth.sample_rate, HOSTED_RATE)
    with TTSLoopback(speech, vary=True) as server:
        tts = make_tts(f"openai:gpt-4o-mini-tts@{server.url}/v1", cache_dir=tmp_path)
        scorer = AudioScorer(tts, max_tries=4)
        jobs = [(text, "neutral", "human", "echo"), (text, "frazzled", "human", "alloy")]
        out = scorer.render_turns(jobs, workers=2)
        bodies = [r["body"] for r in server.requests]
    assert out[jobs[0]].best is not None and out[jobs[0]].accepted == 3
    assert out[jobs[1]].dropped and out[jobs[1]].tries == 4
    # 3 neutral baseline renderings per voice; the neutral turn reuses them from the cache
    # (same request), then 4 frazzled tries.
    assert len(bodies) == 3 + 3 + 4
    frazzled = [b for b in bodies if b["instructions"] == STYLES["frazzled"][0]]
    assert len(frazzled) == 4 and all(b["voice"] == "alloy" for b in frazzled)


def test_one_turn_request_shape_from_builders_to_the_tts() -> None:
    # Builders, voicing and the scorer once passed (text, speaker, emotion, voice) and
    # (text, emotion, role, voice) tuples and reshuffled between them.
    import inspect

    from paraudit.builders.scorer import TurnRequest

    params = list(inspect.signature(TTSBackend.synthesize).parameters)
    assert list(TurnRequest._fields) == params[1:5]
    job = TurnRequest("Hi there.", "sad", "human", "low")
    assert job == ("Hi there.", "sad", "human", "low") and hash(job) == hash(tuple(job))


class Same(Tones):
    """A deterministic service that ignores the emotion and the attempt: every request gives
    the same bytes (the issue's case: 1,229 TTS requests, 0 items)."""

    def render(
        self, text: str, emotion: str, role: Speaker, voice: str, attempt: int
    ) -> tuple[np.ndarray, int, dict[str, object]]:
        return Tones.render(self, text, "neutral", role, voice, 0)


def test_retrying_stops_at_a_byte_identical_rendering() -> None:
    scorer = AudioScorer(Same(), max_tries=10)
    out = scorer.render_turn("we could maybe move the meeting", "frazzled", "human", "low")
    # The second try repeats the first: a third could only repeat it again.
    assert out.dropped and out.tries == 1 and out.repeated_at == 1
    # Two neutral renderings (the second repeats the first), then two frazzled tries.
    assert scorer.tts.fresh_renders == 2 + 2
    assert scorer.counts.as_dict()["frazzled"]["stopped_identical"] == 1
    # A rejected turn says, in numbers, which threshold it missed.
    assert out.verdicts[-1].misses and out.verdicts[-1].misses[0].rule.startswith("rel_pitch ≥")


def test_hosted_deterministic_service_is_asked_twice_per_failing_turn(tmp_path: Path) -> None:
    from paraudit.audio.clips import resample
    from paraudit.render.piper_voice import load_synth, resolve_voice
    from tests.render.tts_loopback import RATE as HOSTED_RATE
    from tests.render.tts_loopback import TTSLoopback

    text = "They moved the meeting to Friday."
    synth = load_synth(resolve_voice(None))
    speech = resample(synth.synthesize(text), synth.sample_rate, HOSTED_RATE)
    with TTSLoopback(speech) as server:
        tts = make_tts(f"openai:gpt-4o-mini-tts@{server.url}/v1", cache_dir=tmp_path)
        out = AudioScorer(tts, max_tries=10).render_turn(text, "frazzled", "human", "alloy")
        asked = len(server.requests)
    assert out.dropped and out.repeated_at == 1
    assert asked == 2 + 2  # was 3 + 10
