"""The invariance audit's statistics and rules, against simulated judges of known behaviour.

Rows are made the way a run on an invariance set stores them (originals asked J pointwise in
both branches and both response orders, each twin the same), so every rule is checked on what
it will read: a judge that follows the voice's pitch flips on voice twins and not on loudness
twins; a random judge is 'not discriminating'; an always-first judge (invariant, deaf) and a
perfect one are not; a good but noisy judge is flagged by accident rarely.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from paraudit.items.twins import twin_id
from paraudit.stats.invariance import MIN_ITEMS, invariance_sections
from paraudit.stats.statrow import StatRow
from paraudit.stats.summary import summarize
from paraudit.stats.summary_model import Summary

VARIANTS = ("voice-up", "voice-down", "loudness-up", "loudness-down", "noise-30db")
# A judge sees (item index, variant or None, branch, order, rng) and returns 'R1' or 'R2'.
JudgeFn = Callable[[int, str | None, int, str, random.Random], str]


def gold(branch: int, order: str) -> str:
    return "R1" if (branch == 0) == (order == "ab") else "R2"


def rows_of(judge: JudgeFn, items: int, seed: int = 0, task: str = "single-turn-emotions",
            variants: tuple[str, ...] = VARIANTS) -> list[StatRow]:  # fmt: skip
    rng = random.Random(seed)
    out = []
    for i in range(items):
        for variant in (None, *variants):
            item = f"it-{i:03d}" if variant is None else twin_id(f"it-{i:03d}", variant)
            for branch in (0, 1):
                for order in ("ab", "ba"):
                    pred = judge(i, variant, branch, order, rng)
                    g = gold(branch, order)
                    out.append(StatRow(**{
                        "judge": "sim", "task": task, "item_id": item, "branch": branch,
                        "probe": "J", "protocol": "pointwise", "cue": "none", "order": order,
                        "context_order": None, "pred": pred, "gold": g, "status": "ok",
                        "correct": pred == g,
                    }))  # fmt: skip
    return out


def perfect(i: int, v: str | None, b: int, o: str, rng: random.Random) -> str:
    return gold(b, o)


def first(i: int, v: str | None, b: int, o: str, rng: random.Random) -> str:
    return "R1"


def coin(i: int, v: str | None, b: int, o: str, rng: random.Random) -> str:
    return rng.choice(["R1", "R2"])


def pitch_follower(i: int, v: str | None, b: int, o: str, rng: random.Random) -> str:
    """Chooses by the voice's pitch band: each branch's pitch (the emotion moves it) falls in
    a band; a voice twin moves every clip one band, which flips the band's parity."""
    band = 2 * i + b + {"voice-up": 1, "voice-down": -1}.get(v or "", 0)
    branch_seen = band % 2  # the branch it believes it heard
    return gold(branch_seen, o)


def noisy(accuracy: float) -> JudgeFn:
    def judge(i: int, v: str | None, b: int, o: str, rng: random.Random) -> str:
        right = gold(b, o)
        return right if rng.random() < accuracy else ("R2" if right == "R1" else "R1")

    return judge


def flips_on_loudness(share: float) -> JudgeFn:
    def judge(i: int, v: str | None, b: int, o: str, rng: random.Random) -> str:
        right = gold(b, o)
        if v and v.startswith("loudness") and rng.random() < share:
            return "R2" if right == "R1" else "R1"
        return right

    return judge


def section(judge: JudgeFn, items: int = 40, seed: int = 0) -> dict[str, dict[str, Any]]:
    out = invariance_sections([("sim", "t", rows_of(judge, items, seed))], replicates=1000)
    return {r["change"]: r for r in out["invariance"]}


def test_pitch_follower_flips_on_voice_not_on_loudness() -> None:
    s = section(pitch_follower)
    assert s["voice"]["flip_rate"]["rate"] == pytest.approx(1.0)
    assert s["loudness"]["flip_rate"]["rate"] == pytest.approx(0.0)
    assert s["noise"]["flip_rate"]["rate"] == pytest.approx(0.0)
    assert s["voice"]["sensitivity"]["rate"] == pytest.approx(1.0)
    assert s["voice"]["flips"] and not s["loudness"]["flips"]
    # It follows pitch, which voice moves as much as the emotion: not discriminating.
    assert s["voice"]["not_discriminating"] and not s["loudness"]["not_discriminating"]
    # Per variant as well as pooled.
    assert s["voice-up"]["flip_rate"]["rate"] == pytest.approx(1.0)
    assert s["voice-up"]["pooled"] is False and s["voice"]["pooled"] is True


def test_no_skill_judges() -> None:
    rnd = section(coin)
    assert all(0.35 < r["flip_rate"]["rate"] < 0.65 for r in rnd.values())
    assert rnd["voice"]["not_discriminating"] and rnd["loudness"]["not_discriminating"]
    # Always the first option never flips: invariant (its deafness is another verdict's).
    fst = section(first)
    assert all(r["flip_rate"]["rate"] == 0 and not r["flips"] for r in fst.values())
    assert not any(r["not_discriminating"] for r in fst.values())
    assert fst["voice"]["sensitivity"]["rate"] == 0
    good = section(perfect)
    assert not any(r["flips"] or r["not_discriminating"] for r in good.values())


def test_flip_share_is_measured_and_named() -> None:
    s = section(flips_on_loudness(0.38), items=80)
    assert s["loudness"]["flip_rate"]["rate"] == pytest.approx(0.38, abs=0.06)
    lo, hi = s["loudness"]["flip_rate"]["ci_low"], s["loudness"]["flip_rate"]["ci_high"]
    assert lo < 0.38 < hi
    assert s["loudness"]["flips"] and not s["voice"]["flips"]
    assert not s["loudness"]["not_discriminating"]  # it still follows the emotion every time


def test_rules_over_a_family_of_simulated_judges() -> None:
    """The flag's error rates, by simulation (40 items, 30 seeds each): a random judge is
    caught nearly always; an 80 %-accurate noisy judge (sensitivity ≈ 68 %, flips ≈ 32 %) and
    a perfect one are flagged rarely or never; a deaf constant one never."""

    def rate(judge: JudgeFn, key: str = "not_discriminating") -> float:
        return sum(section(judge, 40, seed)["voice"][key] for seed in range(30)) / 30

    assert rate(coin) >= 0.9
    assert rate(noisy(0.8)) <= 0.1
    assert rate(noisy(0.95)) == 0
    assert rate(first) == 0
    assert rate(pitch_follower) == 1
    # 'flips on' is raised for the noisy judge (it does flip a third of the time) and never
    # for a judge that keeps its choice.
    assert rate(noisy(0.8), "flips") >= 0.9
    assert rate(perfect, "flips") == 0


def test_too_few_items_raise_no_flag() -> None:
    s = section(coin, items=MIN_ITEMS - 1)
    assert not any(r["flips"] or r["not_discriminating"] for r in s.values())


def test_per_voice_accuracy_table() -> None:
    out = invariance_sections([("sim", "t", rows_of(pitch_follower, 20))], replicates=500)
    voices = {r["voice"]: r for r in out["invariance_voices"]}
    assert list(voices) == ["original", "voice-down", "voice-up"]
    assert voices["original"]["accuracy"]["rate"] == pytest.approx(1.0)
    assert voices["voice-up"]["accuracy"]["rate"] == pytest.approx(0.0)
    assert voices["original"]["n"] == 20 * 4


def test_summary_keeps_twins_out_and_names_the_behaviours() -> None:
    rows = rows_of(pitch_follower, 30)
    raw = summarize(rows, replicates=300)
    acc = next(
        a for a in raw["accuracy"]
        if (a["probe"], a["protocol"], a["cue"]) == ("J", "pointwise", "none")
    )  # fmt: skip
    assert acc["n"] == 30 * 4  # only the originals' answers
    assert acc["accuracy"] == pytest.approx(1.0)
    summary = Summary.of(raw)
    kinds = [b.kind for v in summary.verdicts for b in v.behaviours]
    assert "flips on irrelevant changes" in kinds and "not discriminating" in kinds
    texts = [b.text for v in summary.verdicts for b in v.behaviours]
    assert any(t.startswith("flips on voice changes 100.0%") for t in texts)
    assert {r.change for r in summary.invariance} >= {"voice", "loudness", "noise"}
    assert all("Invariance: flips on voice changes" in v.text for v in summary.verdicts)
    # A run without twins has no invariance section.
    plain = summarize([r for r in rows if "~inv-" not in r.item_id], replicates=100)
    assert "invariance" not in plain


def test_speaker_and_condition_twins_get_accuracy_rows() -> None:
    """A judge that hears the contrast in the original voice only (right there, a coin on
    another speaker and on a phone line, its own answers kept in a room): one row per voice
    and condition, the original's on the same items."""

    def studio_only(i: int, v: str | None, b: int, o: str, rng: random.Random) -> str:
        if v in ("speaker-joe-deep", "telephone-g711"):
            return rng.choice(["R1", "R2"])
        return gold(b, o)

    variants = ("speaker-joe-deep", "telephone-g711", "reverb-room", "loudness-up")
    rows = rows_of(studio_only, 60, variants=variants)
    out = invariance_sections([("sim", "single-turn-whisper", rows)], replicates=300)
    acc = {r["voice"]: r["accuracy"]["rate"] for r in out["invariance_voices"]}
    assert set(acc) == {"original", "speaker-joe-deep", "telephone-g711", "reverb-room"}
    assert acc["original"] == acc["reverb-room"] == 1.0
    assert 0.35 < acc["speaker-joe-deep"] < 0.65 and 0.35 < acc["telephone-g711"] < 0.65
    flips = {r["change"]: r["flips"] for r in out["invariance"] if r["pooled"]}
    assert flips == {"speaker": True, "telephone": True, "reverb": False, "loudness": False}
