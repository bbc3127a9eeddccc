"""The known-behaviour suite for every new dimension: the scripted judges of
tests/stats/test_known_behaviour.py through the real runner on a 30-item single-turn dataset of
each dimension (its task, values, P options and O annotation), each getting the diagnosis its
behaviour implies there as on emotion, and the perception failure named in the dimension's
words."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from paraudit.dimensions import registry as dimensions
from paraudit.items.dataset import audio_name, write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn
from paraudit.judges import registry
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.summary import summarize
from tests.conftest import tone
from tests.stats.synthetic import stat_rows
from tests.stats.test_known_behaviour import _EP, EXPECTED, ITEMS_PER_TASK, PLAN, KnownJudge

NEW = ("emphasis", "urgency", "whisper", "sarcasm", "hesitation")
BEHAVIOURS = (
    "perfect",
    "potemkin",
    "perception",
    "mapping",
    "first",
    "deaf",
    "random",
    "random2",
    "random3",
    "cued",
    "orderab",
    "noise20",
)


def _dataset(name: str, root: Path, tmp: Path) -> Path:
    """30 single-turn items of dimension `name`, each value in branch 0 of half of them."""
    dim = dimensions.get(name)
    values = [v.name for v in dim.values]
    tmp.mkdir(parents=True, exist_ok=True)
    audio: dict[str, Path] = {}
    freq = iter(range(90, 10_000, 3))

    def clip() -> str:
        p = tmp / f"{len(audio)}.wav"
        rel = audio_name(tone(p, float(next(freq)), seconds=0.35))
        audio[rel] = p
        return rel

    items = []
    task = dim.task_for("single-turn")
    for i in range(ITEMS_PER_TASK):
        text = f"I asked for table {i} on Friday."
        order = values if i % 2 else values[::-1]
        branches = tuple(
            Branch(
                emotions=(v,),
                audio=(clip(),),
                response=Response(text=f"Reply {k} to {i}.", emotion=v, audio=clip()),
            )
            for k, v in enumerate(order)
        )
        meta: dict[str, Any] = {"dimension": name}
        if name == "emphasis":  # P offers the two focus words, O writes the stressed one
            meta |= {"focus": [3, 5], "focus_words": ["table", "on"]}
        items.append(
            AuditItem(
                id=f"{name[:3]}-{i}",
                task=task,
                context=(Turn(speaker="human", text=text),),
                branches=(branches[0], branches[1]),
                meta=meta,
            )
        )
    manifest = DatasetManifest(name=f"known-{name}", tasks=(task,), emotions=dim.names,
                               dimension=name)  # fmt: skip
    write_dataset(root, manifest, items, audio)
    return root


@pytest.fixture(scope="module", params=NEW)
def known(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, dict[str, Any]]:
    name = request.param
    tmp = tmp_path_factory.mktemp(f"known-{name}")
    KnownJudge.dataset = _dataset(name, tmp / "ds", tmp / "clips")
    mp = pytest.MonkeyPatch()
    mp.setattr(registry, "_third_party", lambda: {"known": _EP()})
    try:
        cfg = RunConfig(KnownJudge.dataset, [f"known:{b}" for b in BEHAVIOURS], tmp / "run",
                        PLAN, concurrency=32)  # fmt: skip
        rows = asyncio.run(Runner(cfg).run())
    finally:
        mp.undo()
    assert {r["status"] for r in rows} == {"ok"}
    return name, summarize(stat_rows(rows), replicates=1000)


def test_every_behaviour_gets_its_verdict_in_every_dimension(
    known: tuple[str, dict[str, Any]],
) -> None:
    name, summary = known
    verdicts = {v["judge"].split(":", 1)[1]: v for v in summary["verdicts"]}
    assert set(verdicts) == set(BEHAVIOURS)
    for b, v in verdicts.items():
        assert v["task"] == f"single-turn-{name}" and v["items"] == ITEMS_PER_TASK
        if b.startswith("random"):
            continue
        want = EXPECTED[b].get(v["task"], EXPECTED[b].get("*"))
        assert v["diagnosis"] in want, (name, b, v["headline"])
    # A coin judge is "at chance" in all but about 1 % of audits, not in every one: a component
    # tested at 99 % is above ½ by luck in ~0.5 % of them (urgency's first coin judge, after
    # its O wording changed, drew O 63 % over 30 items, one-sided p ≈ 0.002, and read
    # "perception bottleneck"). So three independent coin judges: never a skill claimed
    # (native at chance for each), and at most one of the three with a component pattern.
    coins = [verdicts[b] for b in BEHAVIOURS if b.startswith("random")]
    assert all(v["native"]["outcome"] == "at chance" for v in coins), [v["headline"] for v in coins]
    lucky = [v["headline"] for v in coins if v["diagnosis"] not in EXPECTED["random"]["*"]]
    assert len(lucky) <= 1, lucky
    # The perception failure is told in the dimension's words, never emotion's.
    words = dimensions.get(name).words.does_not_hear
    perception = verdicts["perception"]
    assert words in perception["text"] + perception["headline"], perception["text"]
    assert "emotion" not in perception["headline"]
