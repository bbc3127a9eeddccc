"""The verdict-accuracy study (`benchmarks/verdicts.py`) for every dimension: each dimension's
values are two per question, like emotion's, so a simulated audit of any dimension is the same
rows under that dimension's task name. Run per dimension with the same seeds, every type gets
the diagnosis it gets on emotion — the study's figures hold for every dimension — and the
verdict speaks in the dimension's words; a type whose kind a dimension lacks is left out."""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np
import pytest

from benchmarks.verdicts import study
from paraudit.dimensions import registry
from paraudit.stats.judge_model import TYPES, JudgeModel, audit_rows, task_in
from paraudit.stats.summary import summarize

SHOWN = ("perfect", "perception bottleneck", "always first", "random", "hears only the last turn")
SMALL = {"audits": 2, "items": 40, "replicates": 200, "permutations": 100, "only": list(SHOWN)}


@cache
def on(dimension: str) -> dict[str, Counter[str]]:
    return study(**SMALL, dimension=dimension)  # type: ignore[arg-type]


@pytest.mark.parametrize("dimension", registry.names())
def test_the_study_gives_each_dimension_the_diagnoses_it_gives_emotion(dimension: str) -> None:
    dim = registry.get(dimension)
    here, emotion = on(dimension), on("emotion")
    has_positional = "positional" in dim.item_kinds
    want = {n for n in SHOWN if has_positional or TYPES[n].task.startswith("single-turn-")}
    assert set(here) == want
    for name in want:
        assert here[name] == emotion[name], (dimension, name)
        assert here[name]["diagnosis ok"] >= 1, here[name]  # a diagnosis its behaviour implies


@pytest.mark.parametrize("dimension", [d for d in registry.names() if d != "emotion"])
def test_a_dimension_s_simulated_verdict_speaks_its_words(dimension: str) -> None:
    task = task_in("single-turn-emotions", dimension)
    assert task == f"single-turn-{dimension}"
    rows = audit_rows(JudgeModel("deafP", p=0.5, o=0.95, j=0.5), 60, np.random.default_rng(3),
                      task=task)  # fmt: skip
    assert {r.task for r in rows} == {task}
    v = summarize(rows, replicates=200, permutations=100)["verdicts"][0]
    assert v["task"] == task and v["diagnosis"] == "perception bottleneck"
    words = registry.get(dimension).words.does_not_hear
    assert words in v["text"] + v["headline"], (words, v["headline"])
    assert "emotion" not in v["headline"]
