"""The typed summary: it holds every key summarize() writes (and nothing else), summary.json
written from it keeps the shape summarize() built, and the committed JSON Schema is the one the
models generate."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import numpy as np
import pytest
from pydantic import ValidationError

from paraudit.runfolder.rows import ResultRow
from paraudit.stats.delivery import tally_rows
from paraudit.stats.judge_model import JudgeModel, audit_rows
from paraudit.stats.summary import SCHEMA, SECTIONS, summarize
from paraudit.stats.summary_model import SCHEMA_FILE, Summary, json_schema
from tests.stats.synthetic import result_line
from tests.stats.test_invariance import pitch_follower, rows_of


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    # Both task shapes (positional fills perception_turns/positions), a judge with a habit
    # (position bias), two cues, a staging probe S (answered as O: the judge model has none),
    # and a sampled judge.
    rng = np.random.default_rng(3)
    rows = audit_rows(JudgeModel("perfect"), 12, rng)
    rows += audit_rows(JudgeModel("first", first=True), 12, rng, task="positional-emotion")
    rows += [r._replace(probe="S") for r in rows if r.probe == "O"]
    # and probe N (null audio), answered as the real J was: null_audio's records
    rows += [r._replace(probe="N", asks="J", null="silence") for r in rows
             if r.probe == "J" and r.protocol == "pointwise"]  # fmt: skip
    # A judge sampled 5 times per question fills self_consistency.
    rows += audit_rows(JudgeModel("sampled", p=0.8, o=0.8, j=0.7, samples=5), 12, rng)
    # A judge on an invariance set (originals and their twins) fills invariance(_voices).
    rows += [r._replace(judge="twinned") for r in rows_of(pitch_follower, 12)]
    # Calls that sent audio, every other one with the provider's count (the delivery section).
    counted = {"prompt_tokens_details": {"audio_tokens": 20}, "audio_sent_s": 2.0}
    calls = [ResultRow.model_validate({**result_line(r), "audio_sent_sha256": ["0" * 64],
                                       "usage": counted if i % 2 else {}})
             for i, r in enumerate(rows)]  # fmt: skip
    return summarize(rows, replicates=200, permutations=100, delivery=tally_rows(calls).cells())


UNTYPED = {
    "strata", "reask", "text_dominance", "ties", "conflict", "generator_bias", "scaffold", "joined",
}  # fmt: skip


def test_every_section_is_filled_and_typed(raw: dict[str, Any]) -> None:
    s = Summary.of(raw)
    assert s.schema_id == SCHEMA
    # The subgroup scan needs the dataset's item attributes and re-ask noise sampled draws
    # (both plain records, not typed yet); text dominance the misleading cue and ties the ties
    # preset, conflict the dataset's conflict items: these rows have none of them
    # (tests/stats/test_pressure*.py, test_ties_run.py, test_conflict*.py).
    # The comparisons of judge pairs or runs are plain records too, and need the pair
    # (tests/stats/test_paired_units.py).
    for name in (n for n in SECTIONS if n not in UNTYPED):
        records = getattr(s, name)
        assert records, name  # each model is exercised by real records, not only declared
        assert all(not isinstance(r, dict) for r in records)


def test_summary_json_keeps_the_shape_summarize_built(raw: dict[str, Any]) -> None:
    s = Summary.of(raw)
    assert s.to_dict() == json.loads(json.dumps(raw))
    assert Summary.of(json.loads(s.to_json())) == s


def test_a_key_the_model_does_not_know_is_refused(raw: dict[str, Any]) -> None:
    bad = json.loads(json.dumps(raw))
    bad["states"][0]["masses"]["111"]["rte"] = 0.5
    with pytest.raises(ValidationError, match="rte"):
        Summary.of(bad)
    bad = json.loads(json.dumps(raw))
    bad["accuracy"][0]["delta"] = 0.1
    with pytest.raises(ValidationError, match="delta"):
        Summary.of(bad)


def test_the_committed_schema_is_the_generated_one() -> None:
    committed = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert committed == json_schema(), (
        "regenerate it: PYTHONPATH=src python -m paraudit.stats.summary_model"
    )


def test_a_real_summary_validates_against_the_committed_schema(raw: dict[str, Any]) -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(Summary.of(raw).to_json()), schema)
    wrong = json.loads(json.dumps(raw))
    wrong["protocol_gap"][0]["items"] = "many"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, schema)
