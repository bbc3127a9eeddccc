"""build invariance on a real starter build (Piper + Praat): the twins, their audio, meta and
card; the run plan asks twins J pointwise only; and a judge whose choice follows the voice's
pitch median, run over the real twin audio, flips on voice twins and not on loudness twins."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from paraudit.audio.changes import VARIANTS
from paraudit.audio.pitch import estimate_f0_median
from paraudit.builders.invariance import build_invariance
from paraudit.errors import ParauditError
from paraudit.items.dataset import load_dataset
from paraudit.items.twins import split_twin
from paraudit.items.validate import dataset_errors
from paraudit.protocols.parts import AudioPart
from paraudit.runner.plan import PlanSpec, count_instances, plan_instances
from paraudit.stats.invariance import invariance_sections
from paraudit.stats.statrow import StatRow

CHANGES = ("voice", "loudness", "samplerate")


@pytest.fixture(scope="module")
def inv_set(starter_small: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("inv") / "inv"
    build_invariance(starter_small, out, CHANGES)
    return out


def test_twins_keep_words_responses_and_gold(inv_set: Path, starter_small: Path) -> None:
    assert dataset_errors(inv_set) == []
    ds, src = load_dataset(inv_set), load_dataset(starter_small)
    assert ds.manifest.mixed_audio_formats  # two sample rates: see builders/invariance.py
    assert ds.manifest.provenance["invariance"]["changes"] == list(CHANGES)
    twins = [it for it in ds.items if split_twin(it.id)]
    originals = [it for it in ds.items if not split_twin(it.id)]
    assert [it.id for it in originals] == [it.id for it in src.items]
    assert twins and {split_twin(t.id)[1] for t in twins} <= {  # type: ignore[index]
        v.name for c in CHANGES for v in VARIANTS[c]
    }
    for t in twins:
        inv = t.meta["invariance"]
        o = src.item(inv["twin_of"])
        assert t.context == o.context and t.task == o.task
        assert inv["variant"] in t.id and inv["params"]
        for bt, bo in zip(t.branches, o.branches, strict=True):
            assert bt.emotions == bo.emotions and bt.response == bo.response
            for turn, a, b in zip(o.context, bt.audio, bo.audio, strict=True):
                changed = turn.speaker == "human" or inv["change"] != "voice"
                assert (a != b) == changed, (t.id, turn.speaker)
        if inv["change"] == "samplerate":
            assert {sf.info(str(inv_set / a)).samplerate for a in t.branches[0].audio} == {16000}


def test_card_counts_every_twin(inv_set: Path, starter_small: Path) -> None:
    card = json.loads((inv_set / "card.json").read_text())
    n = len(load_dataset(starter_small).items)
    for c in CHANGES:
        for v in VARIANTS[c]:
            written = card["twins_written"].get(v.name, 0)
            dropped = sum(card["twins_dropped"].get(v.name, {}).values())
            assert written + dropped == n, v.name
    # Piper renders angry turns at full scale: +6 dB would clip them, so those are dropped
    # (and counted), never distorted.
    assert sum(card["twins_dropped"].get("loudness-up", {}).values()) >= 1
    assert "| loudness-down |" in (inv_set / "CARD.md").read_text()


def test_an_invariance_set_is_not_a_source(inv_set: Path, tmp_path: Path) -> None:
    with pytest.raises(ParauditError, match="already holds invariance twins"):
        build_invariance(inv_set, tmp_path / "again", ("noise",))


def test_plan_asks_twins_j_pointwise_only(inv_set: Path) -> None:
    ds = load_dataset(inv_set)
    spec = PlanSpec(probes=("J", "P", "O", "S", "T"), protocols=("pointwise", "pairwise"),
                    cues=("none",))  # fmt: skip
    asked = {(split_twin(i.item_id) is not None, i.probe, i.protocol)
             for i in plan_instances(ds, spec)}  # fmt: skip
    assert {(p, pr) for twin, p, pr in asked if twin} == {("J", "pointwise")}
    assert ("J", "pairwise") in {(p, pr) for twin, p, pr in asked if not twin}
    # --limit counts originals; their twins come with them.
    one = plan_instances(ds, PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",),
                                      limit=1))  # fmt: skip
    kept = {split_twin(i.item_id)[0] if split_twin(i.item_id) else i.item_id for i in one}
    assert len(kept) == 2  # one per task
    assert any(split_twin(i.item_id) for i in one)
    assert count_instances(ds, spec) == len(plan_instances(ds, spec))


def test_a_judge_following_the_voice_pitch_flips_on_voice_not_loudness(inv_set: Path) -> None:
    """The judge measures the median pitch of the conversation's human turns and answers R1 when
    it falls in an even 3-semitone band, R2 in an odd one: it follows the voice, not the
    emotion. A voice twin moves the pitch by one band (±3 st), loudness moves it not at all."""
    ds = load_dataset(inv_set)
    pitch: dict[str, float] = {}

    def median_st(part: AudioPart) -> float:
        if part.sha256 not in pitch:
            x, rate = sf.read(str(part.path), dtype="float64")
            pitch[part.sha256] = 12 * math.log2(estimate_f0_median(x, rate) / 100.0)
        return pitch[part.sha256]

    spec = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))
    rows = []
    for inst in plan_instances(ds, spec):
        audio = [p for p in inst.prompt if isinstance(p, AudioPart)]
        human = [median_st(a) for a, role in zip(audio, inst.question.clips, strict=True)
                 if role.role == "C" and role.speaker == "human"]  # fmt: skip
        pred = "R1" if math.floor(float(np.mean(human)) / 3.0) % 2 == 0 else "R2"
        rows.append(StatRow(**{"judge": "pitch", "task": inst.task, "item_id": inst.item_id,
                     "branch": inst.branch, "probe": "J", "protocol": "pointwise",
                     "cue": inst.cue, "order": inst.order, "context_order": None, "pred": pred,
                     "gold": inst.gold, "status": "ok", "correct": pred == inst.gold}))  # fmt: skip
    out = invariance_sections([("pitch", "all", rows)], replicates=200)
    flips = {r["change"]: r["flip_rate"]["rate"] for r in out["invariance"]}
    assert flips["voice"] >= 0.85
    assert flips["loudness"] <= 0.1
    assert flips["samplerate"] <= 0.1
