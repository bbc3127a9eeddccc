"""Known-behaviour judges for the subgroup scan, through the real runner and `paraudit report`:
a contrast specialist, a label-prior judge, a time-limited listener, and a perfect judge as
the control; each gets the subgroup its behaviour implies named in the verdict, and only it.

The dataset is written here: 80 single-turn items over four contrasts (20 each) and 60
positional items whose clip lengths vary, so that the human turn where the mood shifts starts
anywhere from 1.6 s to 12.8 s into the conversation.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any, ClassVar

import pytest
import soundfile as sf

from paraudit.items.dataset import audio_name, load_dataset, write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn
from paraudit.judges import registry
from paraudit.judges.base import Judge, Reply
from paraudit.protocols.instances import Instance
from paraudit.protocols.parts import Prompt
from paraudit.report.build import write_report
from paraudit.runner.plan import PlanSpec, plan_instances
from paraudit.runner.run import RunConfig, Runner
from tests.conftest import tone
from tests.stats.test_known_behaviour import _key, _wrong

PLAN = PlanSpec(probes=("J", "P", "O"), protocols=("pointwise",), cues=("none",))
PAIRS = [("angry", "sad"), ("happy", "sad"), ("angry", "neutral"), ("surprised", "neutral")]
CALM = {"neutral": 0, "sad": 1, "happy": 2, "surprised": 3, "angry": 4}
BEHAVIOURS = (
    "perfect",
    "contrast",
    "calmest",
    "sadprior",
    "first8",
    "fresh80?samples=5",
    "fixed80?samples=5",
)


def _dataset(root: Path, tmp: Path) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    audio: dict[str, Path] = {}
    freq = iter(range(90, 20_000, 3))

    def clip(seconds: float = 0.4) -> str:
        p = tmp / f"{len(audio)}.wav"
        rel = audio_name(tone(p, float(next(freq)), seconds=seconds))
        audio[rel] = p
        return rel

    def response(text: str) -> Response:
        return Response(text=text, emotion="empathetic", audio=clip())

    items = []
    for i in range(80):
        e0, e1 = PAIRS[i % 4] if i % 8 < 4 else PAIRS[i % 4][::-1]
        items.append(
            AuditItem(
                id=f"st-{i}",
                task="single-turn-emotions",
                context=(Turn(speaker="human", text=f"They moved meeting {i} to Friday."),),
                branches=(
                    Branch(emotions=(e0,), audio=(clip(),), response=response(f"Not okay {i}.")),
                    Branch(emotions=(e1,), audio=(clip(),), response=response(f"A letdown {i}.")),
                ),
            )
        )
    for i in range(60):
        d = 0.8 + 2.4 * i / 59  # every clip of the item lasts d s: shifts at 2d or 4d s
        ctx = (
            Turn(speaker="human", text=f"Book a table for {i}."),
            Turn(speaker="assistant", text="Booked for four."),
            Turn(speaker="human", text=f"Order taxi number {i}."),
            Turn(speaker="assistant", text="Taxi at seven."),
            Turn(speaker="human", text="Send me the details."),
        )
        n1, a1, a2, x1, x2, n2 = (clip(d) for _ in range(6))
        calm, shift = ("neutral",) * 4, ("neutral", "neutral", "angry", "neutral")
        early = Branch(emotions=(*shift, "angry"), audio=(n1, a1, x1, a2, x2),
                       response=response(f"Party size {i}."))  # fmt: skip
        late = Branch(emotions=(*calm, "angry"), audio=(n1, a1, n2, a2, x2),
                      response=response(f"Taxi time {i}, sorry."))  # fmt: skip
        items.append(AuditItem(id=f"pos-{i}", task="positional-emotion", context=ctx,
                               branches=(early, late) if i % 2 else (late, early)))  # fmt: skip
    write_dataset(root, DatasetManifest(name="strata", tasks=("single-turn-emotions",
                  "positional-emotion")), items, audio)  # fmt: skip
    return root


class StrataJudge(Judge):
    """Answers every instance by a fixed behaviour (the spec's model names it)."""

    dataset: ClassVar[Path]
    cache: ClassVar[dict[str, Any]] = {}

    @classmethod
    def lookup(cls) -> tuple[dict[tuple[str, ...], Instance], dict[str, AuditItem]]:
        if "plan" not in cls.cache:
            ds = load_dataset(cls.dataset)
            by: dict[tuple[str, ...], Instance] = {}
            for inst in plan_instances(ds, PLAN):
                by.setdefault(_key(inst.prompt), inst)
            cls.cache["plan"] = by
            cls.cache["items"] = {i.id: i for i in ds.items}
        return cls.cache["plan"], cls.cache["items"]

    @classmethod
    def onsets(cls, item: AuditItem, branch: int) -> list[float]:
        """When each context turn starts, in seconds of the branch's audio."""
        out, t = [], 0.0
        for a in item.branches[branch].audio:
            out.append(t)
            t += float(sf.info(str(cls.dataset / a)).duration)
        return out

    async def generate(self, prompt: Prompt, *, sample: int = 0, **_: Any) -> Reply:
        plan, items = self.lookup()
        inst = plan[_key(prompt)]
        b = self.spec.split("?")[0].split(":", 1)[1]
        # fresh80 draws anew on every ask (the sample index is in its seed); every other
        # behaviour gives one prompt the same answer however often it is asked.
        salt = f"{sample}" if b == "fresh80" else ""
        rng = random.Random(hashlib.sha256((b + salt + repr(_key(prompt))).encode()).digest())
        pred = self.answer(b, inst, items[inst.item_id], rng)
        return Reply(json.dumps({"reasoning": b, "pred": pred}))

    def answer(
        self, b: str, inst: Instance, item: AuditItem, rng: random.Random
    ) -> str | dict[str, str]:
        gold = inst.gold
        coin = gold if rng.random() < 0.5 else _wrong(gold)
        if b in ("fresh80", "fixed80"):
            return gold if rng.random() < 0.8 else _wrong(gold)
        if b == "perfect" or inst.probe == "O":
            return gold
        assert inst.branch is not None
        labels = {br.emotions[0] for br in item.branches}
        if b == "contrast":
            # Hears the angry/sad contrast only: a coin on every other item.
            single = inst.task == "single-turn-emotions"
            return gold if single and labels == {"angry", "sad"} else coin
        if b == "sadprior":
            # A label prior: answers "sad" whenever it is offered, whatever it hears (and its J
            # follows that answer); hears every other contrast.
            if inst.task != "single-turn-emotions" or "sad" not in labels:
                return gold
            mine = item.branches[inst.branch].emotions[0]
            return gold if mine == "sad" else _wrong(gold)
        if b == "calmest":
            # Hears every negative emotion as the calmest option: angry is never heard; its
            # J follows what it heard.
            if inst.task != "single-turn-emotions" or "angry" not in labels:
                return gold
            heard = min(labels, key=CALM.__getitem__)
            return gold if item.branches[inst.branch].emotions[0] == heard else _wrong(gold)
        # first8: hears the first 8 s of the conversation, a coin on what comes later.
        onsets = self.onsets(item, inst.branch)
        if isinstance(gold, dict):
            return {k: v if onsets[int(k[1:]) - 1] < 8 else rng.choice(["E1", "E2"])
                    for k, v in gold.items()}  # fmt: skip
        emotions = item.branches[inst.branch].emotions
        first = next((i for i, e in enumerate(emotions) if e != emotions[0]), 0)
        return gold if onsets[first] < 8 else coin


class _EP:
    def load(self) -> type[Judge]:
        return StrataJudge


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("strata-known")
    ds = _dataset(tmp / "ds", tmp / "clips")
    StrataJudge.dataset = ds
    StrataJudge.cache = {}
    mp = pytest.MonkeyPatch()
    mp.setattr(registry, "_third_party", lambda: {"strata": _EP()})
    try:
        cfg = RunConfig(ds, [f"strata:{b}" for b in BEHAVIOURS], tmp / "run", PLAN,
                        concurrency=32)  # fmt: skip
        asyncio.run(Runner(cfg).run())
    finally:
        mp.undo()
    out = tmp / "report"
    write_report([tmp / "run"], out, replicates=1000)
    html = (out / "report.html").read_text()
    assert 'id="strata"' in html and "<details><summary>every stratum" in html
    assert (out / "tables" / "strata_splits.csv").is_file()
    # The sampled judges' re-ask section, also collapsed, with its table.
    assert 'id="reask"' in html and (out / "tables" / "reask.csv").is_file()
    raw: dict[str, Any] = json.loads((out / "summary.json").read_text())
    return raw


def _found(summary: dict[str, Any], behaviour: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for v in summary["verdicts"]:
        if v["judge"] == f"strata:{behaviour}":
            for b in v["behaviours"]:
                if b["kind"] == "fails in a subgroup":
                    out[v["task"]].append(b["text"])
    return dict(out)


def test_homogeneous_judges_have_no_subgroup(summary: dict[str, Any]) -> None:
    for b in ("perfect", "fresh80?samples=5", "fixed80?samples=5"):
        assert _found(summary, b) == {}, b
    assert any(r["judge"] == "strata:perfect" for r in summary["strata"])  # scanned


def test_the_contrast_specialist_is_named(summary: dict[str, Any]) -> None:
    found = _found(summary, "contrast")
    assert set(found) == {"single-turn-emotions"}
    assert any(t.startswith("succeeds only on the angry/sad contrast: J 100 %") for t in
               found["single-turn-emotions"]), found  # fmt: skip


def test_the_label_prior_is_named_with_its_recall(summary: dict[str, Any]) -> None:
    found = _found(summary, "calmest")
    assert set(found) == {"single-turn-emotions"}
    assert any(t.startswith("fails when the user is angry: P recall 0 % [0, 0]") for t in
               found["single-turn-emotions"]), found  # fmt: skip
    conf = next(r["confusion"] for r in summary["strata"] if r["judge"] == "strata:calmest"
                and r["kind"] == "confusion" and r["task"] == "single-turn-emotions")  # fmt: skip
    assert conf["angry"] == {"angry": 0, "sad": 40, "neutral": 40}  # 20 items × 2 orders each


def test_the_time_limited_listener_misses_late_shifts(summary: dict[str, Any]) -> None:
    found = _found(summary, "first8")
    assert set(found) == {"positional-emotion"}, found
    assert any(t.startswith("misses shifts after 8 s: J") for t in
               found["positional-emotion"]), found  # fmt: skip
    v = next(v for v in summary["verdicts"] if v["judge"] == "strata:first8"
             and v["task"] == "positional-emotion")  # fmt: skip
    assert "misses shifts after 8 s" in v["text"]


def test_reask_noise_is_named_and_fixed_errors_are_not(summary: dict[str, Any]) -> None:
    def verdicts(b: str) -> list[dict[str, Any]]:
        return [v for v in summary["verdicts"] if v["judge"] == f"strata:{b}?samples=5"]

    for v in verdicts("fresh80"):
        kinds = [h["kind"] for h in v["behaviours"]]
        assert "one draw less accurate" in kinds, (v["task"], v["headline"])
        # The headline shows the single draw beside the majority it reports.
        assert "(one draw is right " in v["headline"], v["headline"]
    for v in verdicts("fixed80"):
        assert all(h["kind"] != "one draw less accurate" for h in v["behaviours"])
        assert "one draw" not in v["headline"]
    fixed = [r for r in summary["reask"] if r["judge"].startswith("strata:fixed80")]
    fresh = [r for r in summary["reask"] if r["judge"].startswith("strata:fresh80")]
    assert fixed and all(r["reask"]["rate"] == 0.0 for r in fixed)
    assert fresh and all(0.2 < r["reask"]["rate"] < 0.45 for r in fresh if r["probe"] != "P"
                         or r["task"] == "single-turn-emotions")  # fmt: skip


def test_the_label_prior_is_named_and_its_confusion_shows_the_prior(
    summary: dict[str, Any],
) -> None:
    found = _found(summary, "sadprior")
    assert set(found) == {"single-turn-emotions"}, found
    assert any(t.startswith("fails when the user is happy: P recall 0 % [0, 0]")
               for t in found["single-turn-emotions"]), found  # fmt: skip
    conf = next(r["confusion"] for r in summary["strata"] if r["judge"] == "strata:sadprior"
                and r["kind"] == "confusion" and r["task"] == "single-turn-emotions")  # fmt: skip
    assert conf["happy"] == {"happy": 0, "sad": 40}  # heard as sad every time
    # 40 sad branches (two contrasts) × 2 orders, every one answered sad
    assert conf["sad"]["sad"] == 80 and sum(conf["sad"].values()) == 80
