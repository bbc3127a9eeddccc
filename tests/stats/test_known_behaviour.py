"""Known-behaviour judges through the real runner: each gets the verdict its behaviour implies,
and the summary equals an independent recomputation from results.jsonl.

The judges are scripted: each rebuilds the audit plan of the dataset it is given, so it knows,
for every prompt it receives, which instance (item, probe, branch, order, gold) it is, and
answers by a fixed behaviour — never by parsing the prompt's wording. The dataset (30 items per
task, tones written here) is made so that no verdict is a "small sample" one.
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

from paraudit.items.dataset import audio_name, load_dataset, write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn
from paraudit.judges import registry
from paraudit.judges.base import Judge, Reply
from paraudit.protocols.instances import Instance
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.report.build import write_report
from paraudit.runner.plan import PlanSpec, plan_instances
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.summary import summarize
from tests.conftest import tone
from tests.stats.synthetic import stat_rows

ITEMS_PER_TASK = 30
PLAN = PlanSpec(
    probes=("J", "P", "O", "T"), protocols=("pointwise", "pairwise"), cues=("none", "hard")
)
BEHAVIOURS = (
    "perfect",
    "potemkin",
    "perception",
    "mapping",
    "first",
    "second",
    "deaf",
    "random",
    # issue 17: the paper's headline patterns, habits and noise
    "pairwiseonly",
    "cued",
    "orderab",
    "lastturn",
    "longer",
    "noise10",
    "noise20",
    "noise30",
    "noise50",
)


def _dataset(root: Path, tmp: Path) -> Path:
    """30 single-turn and 30 positional items; every clip unique, so no two prompts collide."""
    tmp.mkdir(parents=True, exist_ok=True)
    audio: dict[str, Path] = {}
    freq = iter(range(90, 10_000, 3))

    def clip() -> str:
        p = tmp / f"{len(audio)}.wav"
        rel = audio_name(tone(p, float(next(freq)), seconds=0.35))
        audio[rel] = p
        return rel

    def response(text: str) -> Response:
        return Response(text=text, emotion="empathetic", audio=clip())

    items = []
    pairs = [("angry", "sad"), ("happy", "sad"), ("angry", "neutral"), ("sad", "happy")]
    for i in range(ITEMS_PER_TASK):
        e0, e1 = pairs[i % len(pairs)]
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
    for i in range(ITEMS_PER_TASK):
        ctx = (
            Turn(speaker="human", text=f"Book a table for {i}."),
            Turn(speaker="assistant", text="Booked for four."),
            Turn(speaker="human", text=f"Order taxi number {i}."),
            Turn(speaker="assistant", text="Taxi at seven."),
            Turn(speaker="human", text="Send me the details."),
        )
        n1, a1, a2, x1, x2, n2 = (clip() for _ in range(6))
        early = Branch(
            emotions=("neutral", "neutral", "angry", "neutral", "angry"),
            audio=(n1, a1, x1, a2, x2),
            response=response(f"Fixed the party size {i}."),
        )
        late = Branch(
            emotions=("neutral", "neutral", "neutral", "neutral", "angry"),
            audio=(n1, a1, n2, a2, x2),
            response=response(f"Fixed the taxi time {i}, sorry about that."),
        )
        items.append(
            AuditItem(
                id=f"pos-{i}",
                task="positional-emotion",
                context=ctx,
                branches=(early, late) if i % 2 else (late, early),
            )
        )
    write_dataset(
        root,
        DatasetManifest(name="known", tasks=("single-turn-emotions", "positional-emotion")),
        items,
        audio,
    )
    return root


def _key(prompt: Prompt) -> tuple[str, ...]:
    return tuple(p.sha256 if isinstance(p, AudioPart) else p.text for p in prompt)


def _flip(label: str) -> str:
    return {"R1": "R2", "R2": "R1", "E1": "E2", "E2": "E1"}[label]


def _wrong(gold: str | dict[str, str]) -> str | dict[str, str]:
    if isinstance(gold, str):
        return _flip(gold)
    return {k: _flip(v) for k, v in gold.items()}


def _fixed(inst: Instance, first: bool) -> str | dict[str, str]:
    """The first (or second) option everywhere, whatever the question."""
    if inst.answer == "choice":
        return "R1" if first else "R2"
    if inst.answer == "matching":
        return {"CA": "R1", "CB": "R2"} if first else {"CA": "R2", "CB": "R1"}
    assert isinstance(inst.gold, dict)
    return dict.fromkeys(inst.gold, "E1" if first else "E2")


def text_preference(item_id: str) -> int:
    """The branch whose response a text-only reader prefers: fixed per item (it stands for a
    preference formed from the words), the same whatever the audio."""
    return hashlib.sha256(item_id.encode()).digest()[0] % 2


def _prefer(inst: Instance) -> str:
    """R1 or R2: the label of the text-preferred response in this instance's order."""
    first_branch = 0 if inst.order == "ab" else 1
    return "R1" if text_preference(inst.item_id) == first_branch else "R2"


class KnownJudge(Judge):
    """Answers every instance by a fixed behaviour (the spec's model names it)."""

    plans: ClassVar[dict[str, dict[tuple[str, ...], list[Instance]]]] = {}
    loaded: ClassVar[dict[str, dict[str, AuditItem]]] = {}
    dataset: ClassVar[Path]

    @classmethod
    def plan(cls) -> dict[tuple[str, ...], list[Instance]]:
        key = str(cls.dataset)
        if key not in cls.plans:
            by: dict[tuple[str, ...], list[Instance]] = defaultdict(list)
            for inst in plan_instances(load_dataset(cls.dataset), PLAN):
                by[_key(inst.prompt)].append(inst)
            cls.plans[key] = dict(by)
        return cls.plans[key]

    @classmethod
    def items(cls) -> dict[str, AuditItem]:
        # Loaded once per dataset, as the plan is: the length habit asks for every J and T
        # prompt, and reading items.jsonl each time was a tenth of this judge's run.
        key = str(cls.dataset)
        if key not in cls.loaded:
            cls.loaded[key] = {i.id: i for i in load_dataset(cls.dataset).items}
        return cls.loaded[key]

    def behaviour(self) -> str:
        return self.spec.split("?")[0].split(":", 1)[1]

    async def generate(self, prompt: Prompt, *, sample: int = 0, **_: Any) -> Reply:
        found = self.plan()[_key(prompt)]
        inst = found[0]
        # Only the transcript control sends one prompt for two instances (same words, both
        # branches): it has no gold, and every behaviour answers it from the words.
        assert len(found) == 1 or {i.probe for i in found} == {"T"}
        pred = self.answer(inst, prompt)
        return Reply(json.dumps({"reasoning": self.behaviour(), "pred": pred}))

    def answer(self, inst: Instance, prompt: Prompt) -> str | dict[str, str]:
        b = self.behaviour()
        # Each kind of behaviour draws its own coins (one seed per kind and prompt), so two
        # coin judges are not the same judge; the noisy judges share theirs (common random
        # numbers: the answers 10 % noise flips are among those 20 % flips). The draws are
        # fixed, so each verdict is too.
        kind = "noise" if b.startswith("noise") else b
        seed = repr(_key(prompt)) if b == "random" else kind + repr(_key(prompt))
        rng = random.Random(hashlib.sha256(seed.encode()).digest())
        if b == "first" or b == "second":
            return _fixed(inst, b == "first")
        if b.startswith("random"):  # random2, random3 …: other, independent coin judges
            return _fixed(inst, rng.random() < 0.5) if inst.answer != "turns" else {
                k: rng.choice(["E1", "E2"]) for k in inst.gold  # type: ignore[union-attr]
            }  # fmt: skip
        if b == "longer" and inst.probe in ("J", "T") and inst.answer == "choice":
            # A length habit: the longer response, whatever the audio (T included).
            item = self.items()[inst.item_id]
            first = 0 if inst.order == "ab" else 1
            texts = {"R1": item.branches[first].response.text,
                     "R2": item.branches[1 - first].response.text}  # fmt: skip
            return max(texts, key=lambda k: len(texts[k]))
        if b.startswith("noise"):
            # A perfect judge whose every answer is flipped with this probability.
            if inst.probe == "T":
                return _prefer(inst)
            return _wrong(inst.gold) if rng.random() < int(b[5:]) / 100 else inst.gold
        coin = _wrong(inst.gold) if rng.random() < 0.5 else inst.gold
        if b == "pairwiseonly":
            # The paper's Gemini pattern: the contrast is heard when both worlds are shown.
            return _prefer(inst) if inst.probe == "T" else (
                inst.gold if inst.protocol == "pairwise" or inst.probe == "O" else coin
            )  # fmt: skip
        if b == "cued":
            # Right only when the prompt names what to listen for; a coin otherwise.
            if inst.probe == "T":
                return _prefer(inst)
            return inst.gold if inst.cue != "none" or inst.probe == "O" else coin
        if b == "orderab":
            # Right when the responses come in the given order, wrong when swapped.
            if inst.probe == "T":
                return _prefer(inst)
            return inst.gold if inst.order == "ab" else _wrong(inst.gold)
        if b == "lastturn":
            # Hears only the last human turn: P there is right, earlier turns are coins; J is
            # right only where the contrast lies in the last turn (single-turn items).
            if inst.probe == "T":
                return _prefer(inst)
            if inst.probe == "O" or inst.task == "single-turn-emotions":
                return inst.gold
            if inst.probe == "P" and isinstance(inst.gold, dict):
                keys = sorted(inst.gold, key=lambda k: int(k[1:]))
                return {
                    k: inst.gold[k] if k == keys[-1] else rng.choice(["E1", "E2"]) for k in keys
                }
            return coin
        if inst.probe == "T":
            return _prefer(inst)
        if b == "deaf" or b == "longer":
            # Words only: the text-preferred response for J (so J repeats T), the option whose
            # emotion name sorts first for P; O carries the emotions in words, so it is right.
            if inst.probe == "O":
                return inst.gold
            if inst.probe == "J" and inst.answer == "choice":
                return _prefer(inst)
            if inst.probe == "J":
                return {"CA": _prefer(inst), "CB": _flip(_prefer(inst))}
            best = min(inst.options, key=lambda k: inst.options[k])
            return best if inst.answer == "choice" else dict.fromkeys(inst.gold, best)  # type: ignore[arg-type]
        right = {
            "perfect": {"P", "O", "J"},
            "potemkin": {"P", "O"},
            "perception": {"O"},
            "mapping": {"P"},
        }[b]
        return inst.gold if inst.probe in right else _wrong(inst.gold)


class _EP:
    def load(self) -> type[Judge]:
        return KnownJudge


@pytest.fixture(scope="module")
def known_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("known")
    ds = _dataset(tmp / "ds", tmp / "clips")
    KnownJudge.dataset = ds
    mp = pytest.MonkeyPatch()
    mp.setattr(registry, "_third_party", lambda: {"known": _EP()})
    try:
        cfg = RunConfig(ds, [f"known:{b}" for b in BEHAVIOURS], tmp / "run", PLAN, concurrency=32)
        rows = asyncio.run(Runner(cfg).run())
    finally:
        mp.undo()
    return tmp / "run", rows


@pytest.fixture(scope="module")
def known_summary(
    known_run: tuple[Path, list[dict[str, Any]]], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("known-report")
    write_report([known_run[0]], out, replicates=2000)  # 0 % and 100 % cells: no crash
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    assert (out / "report.html").stat().st_size > 0
    return summary


def _verdicts(summary: dict[str, Any], behaviour: str) -> list[dict[str, Any]]:
    vs = [v for v in summary["verdicts"] if v["judge"].endswith(f":{behaviour}")]
    assert len(vs) == 2 and all(v["items"] == ITEMS_PER_TASK and not v["small_sample"] for v in vs)
    return vs


def _reliable(summary: dict[str, Any], behaviour: str) -> list[float]:
    return [
        s["groups"]["reliable"]["rate"]
        for s in summary["states"]
        if s["judge"].endswith(f":{behaviour}") and s["cue"] == "all"
    ]


EXPECTED: dict[str, dict[str, set[str]]] = {
    # behaviour → task → the diagnoses its behaviour implies ("*" for both tasks)
    "perfect": {"*": {"reliable"}},
    "potemkin": {"*": {"Potemkin"}},
    "perception": {"*": {"perception bottleneck"}},
    "mapping": {"*": {"response-mapping bottleneck"}},
    "first": {"*": {"position-biased"}},
    "second": {"*": {"position-biased"}},
    "deaf": {"*": {"ignores the audio"}},
    "random": {"*": {"at chance"}},
    "pairwiseonly": {"*": {"recoverable only in pairwise"}},
    "cued": {"*": {"works only when cued"}},
    "orderab": {"*": {"order-dependent"}},
    "lastturn": {
        "single-turn-emotions": {"reliable"},
        "positional-emotion": {"hears only some turns"},
    },
    "longer": {"*": {"ignores the audio"}},
    "noise10": {"*": {"reliable", "usable, no systematic failure mode"}},
    "noise20": {"*": {"reliable", "usable, no systematic failure mode"}},
    "noise30": {"*": {"usable, no systematic failure mode"}},
    "noise50": {"*": {"at chance"}},
}


@pytest.mark.parametrize("behaviour", BEHAVIOURS)
def test_every_behaviour_gets_the_verdict_it_implies(
    known_summary: dict[str, Any], behaviour: str
) -> None:
    for v in _verdicts(known_summary, behaviour):
        want = EXPECTED[behaviour].get(v["task"], EXPECTED[behaviour].get("*"))
        assert v["diagnosis"] in want, (v["task"], v["headline"], v["text"])
        assert v["headline"] and "\n" not in v["headline"]
        # Every step names the cue its evidence comes from; nothing is pooled over cues.
        assert v["native"]["cue"] == "none"
        assert all(c["cue"] != "all" for c in v["components"])


@pytest.mark.parametrize(
    ("behaviour", "phrase"),
    [
        ("potemkin", "Potemkin: perceives the cue and maps it when told"),
        ("perception", "perception bottleneck: maps the cue when told"),
        ("mapping", "response-mapping bottleneck: hears the cue"),
        ("first", "position-biased towards the first option (J pointwise"),
        ("second", "position-biased towards the second option (J pointwise"),
        ("deaf", "ignores the audio"),
        ("random", "it behaves like a guess"),
        ("pairwiseonly", "recoverable in pairwise"),
        ("cued", "works only when cued (hard"),
        ("orderab", "order-dependent"),
        ("noise20", "no systematic failure mode"),
    ],
)
def test_headlines_say_why(known_summary: dict[str, Any], behaviour: str, phrase: str) -> None:
    for v in _verdicts(known_summary, behaviour):
        assert phrase in v["headline"], v["headline"]


def test_behaviours_name_the_habit_and_only_it(known_summary: dict[str, Any]) -> None:
    def kinds(b: str) -> list[set[str]]:
        return [{h["kind"] for h in v["behaviours"]} for v in _verdicts(known_summary, b)]

    assert all("ignores the audio" in k and "repeats its text-only choice" in k
               for k in kinds("deaf"))  # fmt: skip
    assert all(k == {"order-dependent"} for k in kinds("orderab"))
    for b in ("perfect", "random", "noise20", "pairwiseonly", "potemkin"):
        assert kinds(b) == [set(), set()], b
    last = [v for v in _verdicts(known_summary, "lastturn") if v["task"] == "positional-emotion"]
    assert "hears only the last human turn" in last[0]["headline"]


def test_at_chance_judges_are_greyed_not_interpreted(known_summary: dict[str, Any]) -> None:
    for behaviour in ("first", "second"):
        assert _reliable(known_summary, behaviour) == [0.0, 0.0]
        states = [s for s in known_summary["states"] if s["judge"].endswith(f":{behaviour}")]
        assert not any(s["interpretable"] for s in states)  # cond. Potemkin greyed
    for v in _verdicts(known_summary, "random"):
        assert v["kind"] == "at chance" and all(not c["dependence_tested"] for c in v["components"])


def test_a_cue_the_judge_ignores_does_not_change_its_verdict(
    known_run: tuple[Path, list[dict[str, Any]]],
    known_summary: dict[str, Any],
    tmp_path: Path,
) -> None:
    """A real run with cue none alone (as `--cues none` asks) gives every judge whose
    behaviour ignores the cue the diagnosis and headline of the run that also asked the hard
    cue; the known run's rows of cue none are those very answers."""
    behaviours = [b for b in BEHAVIOURS if b != "cued"]
    mp = pytest.MonkeyPatch()
    mp.setattr(registry, "_third_party", lambda: {"known": _EP()})
    plan = PlanSpec(probes=PLAN.probes, protocols=PLAN.protocols, cues=("none",))
    try:
        cfg = RunConfig(KnownJudge.dataset, [f"known:{b}" for b in behaviours],
                        tmp_path / "run", plan, concurrency=32)  # fmt: skip
        rows = asyncio.run(Runner(cfg).run())
    finally:
        mp.undo()
    assert {r["cue"] for r in rows} == {"none"}
    key = ("judge", "item_id", "probe", "protocol", "order", "context_order", "branch")
    none_rows = {
        tuple(r.get(k) for k in key): r["pred"] for r in known_run[1] if r["cue"] == "none"
    }
    assert all(none_rows[tuple(r.get(k) for k in key)] == r["pred"] for r in rows)
    alone = summarize(stat_rows(rows), replicates=2000)
    before = {(v["judge"], v["task"]): v for v in alone["verdicts"]}
    for v in known_summary["verdicts"]:
        if v["judge"].endswith(":cued"):
            continue
        b = before[(v["judge"], v["task"])]
        assert (b["diagnosis"], b["headline"]) == (v["diagnosis"], v["headline"]), v["judge"]


def _recompute(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Plain-loop recomputation of the numbers the verdicts rest on."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for judge, task in {(r["judge"], r["task"]) for r in rows}:
        rs = [r for r in rows if r["judge"] == judge and r["task"] == task]
        jp = [r for r in rs if r["probe"] == "J" and r["protocol"] == "pointwise"]
        unit: dict[tuple[Any, ...], list[bool]] = defaultdict(list)
        for r in rs:
            if r["protocol"] == "pointwise" and r["probe"] in "POJ":
                unit[(r["probe"], r["item_id"], r["branch"], r["cue"])].append(r["correct"])
        states: dict[str, int] = defaultdict(int)
        for (probe, item, branch, cue), js in unit.items():
            if probe == "J":
                p, o = unit[("P", item, branch, cue)], unit[("O", item, branch, cue)]
                states[f"{int(all(p))}{int(all(o))}{int(all(js))}"] += 1
        firsts = [r["pred"] == "R1" for r in jp]
        picked = {}
        for r in rs:
            if r["probe"] == "T":
                first = 0 if r["order"] == "ab" else 1
                picked[(r["item_id"], r["order"])] = first if r["pred"] == "R1" else 1 - first
        agree = []
        for r in jp:
            first = 0 if r["order"] == "ab" else 1
            chose = first if r["pred"] == "R1" else 1 - first
            agree.append(chose == picked[(r["item_id"], r["order"])])
        n = sum(states.values())
        out[(judge, task)] = {
            "j": sum(r["correct"] for r in jp) / len(jp),
            "masses": {s: c / n for s, c in states.items()},
            "first_share_j_none": sum(
                f for f, r in zip(firsts, jp, strict=True) if r["cue"] == "none"
            )
            / sum(r["cue"] == "none" for r in jp),
            "j_t": sum(agree) / len(agree),
        }
    return out


def test_statistics_equal_an_independent_recomputation(
    known_run: tuple[Path, list[dict[str, Any]]], known_summary: dict[str, Any]
) -> None:
    rows = known_run[1]
    assert {r["status"] for r in rows} == {"ok"}
    ref = _recompute(rows)
    acc = {
        (a["judge"], a["task"]): a
        for a in known_summary["accuracy"]
        if a["probe"] == "J" and a["protocol"] == "pointwise" and a["cue"] == "all"
    }
    states = {(s["judge"], s["task"]): s for s in known_summary["states"] if s["cue"] == "all"}
    pos = {
        (p["judge"], p["task"]): p
        for p in known_summary["position_bias"]
        if (p["probe"], p["protocol"], p["cue"]) == ("J", "pointwise", "none")
    }
    tc = {(t["judge"], t["task"]): t for t in known_summary["transcript_control"]}
    assert set(ref) == set(acc) == set(states)
    for key, r in ref.items():
        assert acc[key]["accuracy"] == pytest.approx(r["j"])
        assert acc[key]["items"] == ITEMS_PER_TASK
        for s, m in states[key]["masses"].items():
            assert m["rate"] == pytest.approx(r["masses"].get(s, 0.0)), (key, s)
        assert pos[key]["rate"] == pytest.approx(r["first_share_j_none"])
        assert tc[key]["j_t_agreement"]["rate"] == pytest.approx(r["j_t"])
    # The numbers the behaviours imply, exactly: a judge that picks by position or by words
    # alone is right on exactly half of the pointwise J instances.
    for key in ref:
        judge = key[0].split(":", 1)[1]
        if judge in ("first", "second", "deaf"):
            assert ref[key]["j"] == 0.5
        if judge == "deaf":
            assert ref[key]["j_t"] == 1.0
        if judge == "perfect":
            assert ref[key]["j"] == 1.0 and ref[key]["j_t"] == 0.5
