"""hf: full audits on CPU through tiny random-weight Qwen2-Audio and Qwen2.5-Omni thinkers.

Random weights produce gibberish, so these tests assert plumbing, batching, conversion records
and parsing outcomes, not answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from paraudit.errors import ParauditError
from paraudit.items.dataset import load_dataset
from paraudit.runner.plan import PlanSpec, plan_instances
from paraudit.runner.run import RunConfig, Runner
from tests.conftest import needs
from tests.judges.tiny_hf import build_omni_thinker, build_qwen2_audio

# Found, not imported (tiny_hf imports torch when a model is built).
pytestmark = [needs("torch", "hf"), needs("transformers", "hf")]

PLAN = PlanSpec(probes=("J", "P"), protocols=("pointwise", "pairwise"), cues=("none",), limit=3)


def _audit(ds: Path, out: Path, spec: str) -> tuple[list[dict[str, Any]], Runner]:
    runner = Runner(RunConfig(ds, [spec], out, PLAN, concurrency=8))
    return asyncio.run(runner.run()), runner


@pytest.mark.parametrize(
    "build", [build_qwen2_audio, build_omni_thinker], ids=["qwen2-audio", "qwen2.5-omni-thinker"]
)
def test_full_audit_through_hf(build: Any, starter_small: Path, tmp_path: Path) -> None:
    model_dir = build(tmp_path / "model")
    rows, runner = _audit(
        starter_small, tmp_path / "run", f"hf:{model_dir}?batch_size=4&max_tokens=12"
    )
    n = len(plan_instances(load_dataset(starter_small), PLAN))
    assert len(rows) == n and runner.progress.calls_made == n
    assert {r["status"] for r in rows} <= {"ok", "unparsed"}  # gibberish is unparsed, never a crash
    assert all(r["raw"] is not None and r["reason"] for r in rows if r["status"] == "unparsed")
    # Who answered: the checkpoint the backend loaded, per row.
    assert {r["served"]["model"] for r in rows} == {str(model_dir)}
    import sqlite3

    usage = [
        json.loads(u)
        for (u,) in sqlite3.connect(tmp_path / "run" / "calls.sqlite").execute(
            "SELECT usage FROM calls"
        )
    ]
    assert max(u["batch"] for u in usage) > 1  # calls were batched
    assert all(u["completion_tokens"] <= 12 for u in usage)
    assert any(
        "22050→16000 Hz (scipy.signal.resample_poly)" in u["audio_conversion"] for u in usage
    )
    spec = json.loads((tmp_path / "run" / "run.json").read_text())
    assert "resample_poly" in spec["judge_details"][0]["audio_conversion"]
    # Greedy decoding is reproducible: a fresh run in a new folder gives the same raw replies.
    again, _ = _audit(
        starter_small, tmp_path / "again", f"hf:{model_dir}?batch_size=4&max_tokens=12"
    )
    assert [r["raw"] for r in again] == [r["raw"] for r in rows]


def test_unloadable_model_is_a_clear_error(starter_small: Path, tmp_path: Path) -> None:
    with pytest.raises(ParauditError, match="hf: cannot load"):
        _audit(starter_small, tmp_path / "run", f"hf:{tmp_path / 'no-such-model'}")


@pytest.mark.parametrize(
    "build", [build_qwen2_audio, build_omni_thinker], ids=["qwen2-audio", "qwen2.5-omni-thinker"]
)
def test_constrained_decoding_only_ever_emits_a_valid_label(
    build: Any, starter_small: Path, tmp_path: Path
) -> None:
    model_dir = build(tmp_path / "model")
    spec = f"hf:{model_dir}?batch_size=4&max_tokens=12&constrain=labels"
    rows, _ = _audit(starter_small, tmp_path / "run", spec)
    # Random weights: unconstrained, nearly every reply is gibberish (unparsed); constrained,
    # every reply is one of the question's answers, whatever its kind (choice, matching, turns).
    assert rows and {r["status"] for r in rows} == {"ok"}
    kinds = set()
    for r in rows:
        assert json.loads(r["raw"]) == {"pred": r["pred"]}
        labels = set(r["options"])
        preds = [r["pred"]] if isinstance(r["pred"], str) else list(r["pred"].values())
        assert set(preds) <= labels
        kinds.add(type(r["pred"]).__name__ + ("-turns" if "C1" in str(r["pred"]) else ""))
    assert len(kinds) >= 2
    assert {r["judge"] for r in rows} == {f"hf:{model_dir}?constrain=labels&max_tokens=12"}


def test_the_omni_thinker_flag_is_greedy_by_default(tmp_path: Path) -> None:
    from paraudit.judges.registry import load_judge

    judge: Any = load_judge(f"hf:{tmp_path}")
    judge.model = type("FullOmni", (), {"thinker": object()})()
    assert judge.generation_kwargs() == {
        "max_new_tokens": 256,
        "do_sample": False,
        "thinker_do_sample": False,
        "return_audio": False,
    }
    judge.temperature = 0.7
    kw = judge.generation_kwargs()
    assert kw["thinker_do_sample"] is True and kw["thinker_temperature"] == 0.7
    judge.model = object()  # a model without a thinker gets only the usual flags
    assert "thinker_do_sample" not in judge.generation_kwargs()


def test_joined_clips_reach_the_processor_as_one(starter_small: Path, tmp_path: Path) -> None:
    model_dir = build_qwen2_audio(tmp_path / "model")
    plan = PlanSpec(probes=("J",), protocols=("pairwise",), cues=("none",), limit=1)
    spec = f"hf:{model_dir}?max_tokens=4&clips=joined"
    rows = asyncio.run(Runner(RunConfig(starter_small, [spec], tmp_path / "r", plan)).run())
    assert rows and all(r["judge"].endswith("clips=joined&max_tokens=4") for r in rows)
    for r in rows:
        j = r["usage"]["joined"]
        assert len(j["parts_sha256"]) >= 4 and j["joined_s"] > sum(j["parts_s"])


def test_the_processors_audio_frames_are_recorded_and_a_dropped_clip_is_flagged(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    """Each call records the feature frames the processor produced and those its clips imply at
    the extractor's hop; a processor that ignores `audio=` (lmms-eval PR #1081) produces none,
    and the delivery check flags the call."""
    from paraudit.judges.registry import load_judge
    from paraudit.protocols.parts import AudioPart
    from paraudit.stats.delivery import call_status

    model_dir = build_qwen2_audio(tmp_path / "model")
    plan = PlanSpec(probes=("J",), protocols=("pointwise", "pairwise"), cues=("none",))
    insts = plan_instances(load_dataset(tiny_dataset), plan)[:4]

    class DropsAudio:
        """The processor as it is, except that it ignores the audio it is given."""

        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        def __call__(self, **kwargs: Any) -> Any:
            # As a processor that reads another keyword (`audios=`): the clips never reach
            # the extractor, and their placeholders are not expanded.
            kwargs.pop("audio", None)
            kwargs.pop("sampling_rate", None)
            token = self.inner.audio_token
            kwargs["text"] = [t.replace(token, "") for t in kwargs["text"]]
            return self.inner(**kwargs)

    async def ask(drop: bool) -> list[Any]:
        judge: Any = load_judge(f"hf:{model_dir}?batch_size=4&max_tokens=4")
        await judge.preflight()
        if drop:
            judge.processor = DropsAudio(judge.processor)
        return list(await asyncio.gather(*(judge.generate(i.prompt) for i in insts)))

    for inst, reply in zip(insts, asyncio.run(ask(False)), strict=True):
        clips = sum(isinstance(p, AudioPart) for p in inst.prompt)
        u = reply.usage
        assert u["audio_features"] > 0 and u["audio_sent_s"] > 0
        # Clips under the extractor's chunk (tiny_hf.CHUNK_S) reach it whole: every frame the
        # samples imply.
        assert abs(u["audio_features"] - u["audio_features_expected"]) <= clips
        assert call_status(u)[0] == "delivered"
    for reply in asyncio.run(ask(True)):
        assert reply.usage["audio_features"] == 0
        assert call_status(reply.usage)[0] == "none counted"
