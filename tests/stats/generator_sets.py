"""Two audit sets built offline from the same source by two loopback generators of different
families (an "openai" gpt model and a "google" gemini model, both served by the builders'
scripted chat server), and scripted judges run on both through the real runner.

The gemini generator writes the fake's replies as they are; the gpt one words every response a
little differently (so the two sets' prompts differ, as two generators' would) and declares
the sentences about trains impossible (so each set keeps sources the other lacks).

A judge's spec names its family and behaviour (`known:gemini-own`): `perfect`, `noiseNN`
(flips NN % of its answers, drawn per prompt, so each set gets its own noise), `own` (right
on items composed by its own family, a coin elsewhere).
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import soundfile as sf

from paraudit.builders.pipeline import BuildOptions, build
from paraudit.builders.voicing import Voiced
from paraudit.compose.llm import CompletionCache, ComposerLLM, LLMSpec
from paraudit.compose.prompts import FINAL_ANSWER_LINE
from paraudit.items.dataset import load_dataset
from paraudit.judges import registry
from paraudit.judges.base import Judge, Reply
from paraudit.protocols.instances import Instance
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.runner.plan import PlanSpec, plan_instances
from paraudit.runner.run import RunConfig, Runner
from paraudit.specs import model_family
from paraudit.stats.statrow import StatRow
from tests.builders.fakes import (
    ChatServer,
    QuickVoicer,
    scripted_generator,
    write_emocf,
    write_od3,
)

PLAN = PlanSpec(probes=("J",), protocols=("pointwise", "pairwise"), cues=("none",))
PAIRS = [("anger", "sadness"), ("surprise", "neutral"), ("surprise", "sadness"),
         ("anger", "surprise")]  # fmt: skip
# 24 sentences, 4 about trains (only the gemini generator composes those).
SENTENCES = [
    (f"The train to town {i} left early." if i % 6 == 0 else f"They moved meeting {i} again.",
     *PAIRS[i % len(PAIRS)])
    for i in range(24)
]  # fmt: skip
GENERATORS = {"gpt": "gpt-4o-mini", "gemini": "gemini-2.0-flash"}


def gpt_generator(messages: list[dict[str, Any]]) -> str:
    text = scripted_generator(messages)
    prompt = messages[-1]["content"]
    if "PositionalWinoSound" in prompt and "taxi" in prompt:
        return f"No clear second goal.\n{FINAL_ANSWER_LINE}\nimpossible"
    if "friendly voice assistant" not in prompt:
        return text
    if "train" in prompt:
        return "impossible"
    answer = json.loads(text)
    return json.dumps({k: v.replace(".", ", truly.", 1) for k, v in answer.items()})


class ToneVoicer(QuickVoicer):
    """QuickVoicer with one distinct tone per request: its 97 pitches collide across the
    ~100 clips of these sets (and validation refuses identical audio for two emotions)."""

    def voice_all(
        self, jobs: Sequence[Any], on_done: Callable[[], None] | None = None
    ) -> dict[Any, Voiced]:
        out: dict[Any, Voiced] = {}
        for n, job in enumerate(dict.fromkeys(jobs)):
            buf = io.BytesIO()
            sf.write(buf, 0.3 * np.sin(np.arange(8000) * (0.02 + n / 1e3)), 16000, "PCM_16",
                     format="WAV")  # fmt: skip
            path = self.root / f"{hashlib.sha256(repr(tuple(job)).encode()).hexdigest()}.wav"
            path.write_bytes(buf.getvalue())
            out[job] = Voiced(path, True, 1, (), {}, 0.5)
        return out


def build_set(
    tmp: Path, family: str, seed: int = 0, n: int | None = None, kind: str = "single-turn"
) -> Path:
    """The set one generator composes from SENTENCES (single-turn) or the fakes' OD3 sample
    (positional), with tones for audio and no QC drops."""
    reply = gpt_generator if family == "gpt" else scripted_generator
    out = tmp / f"set-{kind}-{family}-{seed}-{n}"
    source = (
        write_emocf(tmp / "emocf.jsonl", SENTENCES)
        if kind == "single-turn"
        else write_od3(tmp / "od3.jsonl")
    )
    with ChatServer(reply) as chat:
        port = chat.server.server_address[1]
        spec = f"openai:{GENERATORS[family]}@http://127.0.0.1:{port}/v1"
        store = CompletionCache(tmp / f"compose-{family}.sqlite")
        try:
            o = BuildOptions(
                kind=kind,
                source=source,
                out=out,
                seed=seed,
                n=n,
                dnsmos=False,
                rate_balance=False,
            )
            clips = tmp / f"clips-{family}"
            clips.mkdir(exist_ok=True)
            build(o, ComposerLLM(LLMSpec.parse(spec), store), ToneVoicer(clips))
        finally:
            store.close()
    return out


def _key(prompt: Prompt) -> tuple[str, ...]:
    return tuple(p.sha256 if isinstance(p, AudioPart) else p.text for p in prompt)


def _wrong(gold: str | dict[str, str]) -> str | dict[str, str]:
    flip = {"R1": "R2", "R2": "R1"}
    return flip[gold] if isinstance(gold, str) else {k: flip[v] for k, v in gold.items()}


class FamilyJudge(Judge):
    """Answers each J instance by the behaviour its spec names (see the module docstring)."""

    dataset: ClassVar[Path]
    plans: ClassVar[dict[str, dict[tuple[str, ...], Instance]]] = {}
    generator: ClassVar[dict[str, str]] = {}
    """dataset → family of the generator that composed it."""

    @classmethod
    def plan(cls) -> dict[tuple[str, ...], Instance]:
        key = str(cls.dataset)
        if key not in cls.plans:
            ds = load_dataset(cls.dataset)
            cls.plans[key] = {_key(i.prompt): i for i in plan_instances(ds, PLAN)}
            gen = ds.items[0].meta["generator"]
            cls.generator[key] = model_family(gen["model"], gen["backend"])
        return cls.plans[key]

    async def generate(self, prompt: Prompt, *, sample: int = 0, **_: Any) -> Reply:
        inst = self.plan()[_key(prompt)]
        model = self.spec.split(":", 1)[1]
        family, behaviour = model_family(model, "openai"), model.split("-", 1)[1]
        rng = random.Random(hashlib.sha256((model + repr(_key(prompt))).encode()).digest())
        if behaviour == "perfect":
            pred = inst.gold
        elif behaviour.startswith("noise"):
            pred = _wrong(inst.gold) if rng.random() < int(behaviour[5:]) / 100 else inst.gold
        else:
            assert behaviour == "own", behaviour
            mine = self.generator[str(self.dataset)] == family
            pred = inst.gold if mine or rng.random() < 0.5 else _wrong(inst.gold)
        return Reply(json.dumps({"reasoning": behaviour, "pred": pred}))


class _EP:
    def load(self) -> type[Judge]:
        return FamilyJudge


JUDGES = ("known:gemini-perfect", "known:gemini-own", "known:gpt-perfect", "known:gpt-noise25",
          "known:qwen-noise10", "builtin:first")  # fmt: skip


@dataclass(frozen=True)
class GeneratorRuns:
    sets: dict[str, Path]
    runs: dict[str, Path]


def run_on(dataset: Path, out: Path, judges: tuple[str, ...] = JUDGES) -> Path:
    FamilyJudge.dataset = dataset
    mp = pytest.MonkeyPatch()
    mp.setattr(registry, "_third_party", lambda: {"known": _EP()})
    try:
        asyncio.run(Runner(RunConfig(dataset, list(judges), out, PLAN, concurrency=16)).run())
    finally:
        mp.undo()
    return out


def make_runs(tmp: Path) -> GeneratorRuns:
    sets = {f: build_set(tmp, f) for f in GENERATORS}
    return GeneratorRuns(sets, {f: run_on(sets[f], tmp / f"run-{f}") for f in GENERATORS})


def only(rows: list[StatRow], judges: set[str]) -> list[StatRow]:
    return [r for r in rows if r.judge in judges]


def by_judge(cell: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {j["judge"]: j for j in cell["judges"]}
