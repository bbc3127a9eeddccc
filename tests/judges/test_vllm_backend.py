"""vLLM engine arguments, and the `vllm:` judge through the runner up to `LLM.chat` (vLLM
itself needs a GPU and is not installable here; see scripts/gpu-check.sh)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import importlib.machinery
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from paraudit.items.dataset import load_dataset
from paraudit.judges.base import FatalJudgeError
from paraudit.judges.registry import load_judge
from paraudit.judges.vllm_backend import llm_kwargs
from paraudit.protocols.parts import AudioPart
from paraudit.runner.plan import PlanSpec, plan_instances
from paraudit.runner.run import RunConfig, Runner


def test_engine_sizing_options_reach_the_engine() -> None:
    kw = llm_kwargs(
        "m", {"limit_audio": "20", "max_model_len": "8192", "gpu_memory_utilization": "0.8"}, 7
    )
    assert kw == {
        "model": "m",
        "limit_mm_per_prompt": {"audio": 20},
        "seed": 7,
        "max_model_len": 8192,
        "gpu_memory_utilization": 0.8,
    }
    assert llm_kwargs("m", {}, None) == {
        "model": "m",
        "limit_mm_per_prompt": {"audio": 16},
        "seed": 0,
    }


# -- Up to the wire: vLLM needs a GPU and is not installable here, so a recording `vllm` module
# stands at the package boundary (LLM, SamplingParams) and everything paraudit does up to
# `LLM.chat` runs for real, through the real runner.


class _Output:
    def __init__(self, text: str) -> None:
        self.text = text
        self.token_ids = list(range(len(text.split())))


class _RequestOutput:
    def __init__(self, text: str) -> None:
        self.outputs = [_Output(text)]


class _Recorder:
    engines: list[dict[str, Any]] = []
    batches: list[tuple[list[Any], Any]] = []


class _LLM:
    def __init__(self, **kwargs: Any) -> None:
        _Recorder.engines.append(kwargs)

    def chat(self, convs: list[Any], params: Any, use_tqdm: bool = True) -> list[_RequestOutput]:
        assert use_tqdm is False
        _Recorder.batches.append((convs, params))
        return [_RequestOutput('{"reasoning": "first", "pred": "R1"}') for _ in convs]


class _SamplingParams:
    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs


@pytest.fixture
def recording_vllm(monkeypatch: pytest.MonkeyPatch) -> type[_Recorder]:
    module = types.ModuleType("vllm")
    module.__spec__ = importlib.machinery.ModuleSpec("vllm", None)  # "installed" to find_spec
    module.LLM = _LLM  # type: ignore[attr-defined]
    module.SamplingParams = _SamplingParams  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", module)
    _Recorder.engines, _Recorder.batches = [], []
    return _Recorder


def test_runner_sends_batched_chats_with_each_clip_as_a_data_uri(
    starter_small: Path, tmp_path: Path, recording_vllm: type[_Recorder]
) -> None:
    plan = PlanSpec(probes=("J", "P"), protocols=("pointwise", "pairwise"), cues=("none",), limit=2)
    spec = "vllm:org/audio-model?max_tokens=64&temperature=0&seed=3&batch_size=4&max_model_len=8192"
    cfg = RunConfig(starter_small, [spec], tmp_path / "r", plan, concurrency=8)
    rows = asyncio.run(Runner(cfg).run())
    # One engine, loaded once, sized as asked.
    assert recording_vllm.engines == [
        {
            "model": "org/audio-model",
            "limit_mm_per_prompt": {"audio": 16},
            "seed": 3,
            "max_model_len": 8192,
        }
    ]
    batches = recording_vllm.batches
    assert max(len(convs) for convs, _ in batches) == 4  # gathered up to batch_size
    assert sum(len(convs) for convs, _ in batches) == len({r["key"] for r in rows})
    _, params = batches[0]
    assert params.kwargs == {"temperature": 0.0, "top_p": 1.0, "seed": 3, "max_tokens": 64}
    # Each conversation is exactly one planned prompt, as one user turn: its texts and clips in
    # the prompt's order, every clip a data URI of that clip's own bytes.
    ds = load_dataset(starter_small)
    planned = {_parts(inst.prompt): inst.prompt for inst in plan_instances(ds, plan)}
    sent: dict[tuple[str, ...], list[str]] = {}
    for convs, _ in batches:
        for conv in convs:
            [turn] = conv
            assert turn["role"] == "user"
            parts, clips = [], []
            for part in turn["content"]:
                if part["type"] == "audio_url":
                    mime, b64 = part["audio_url"]["url"].removeprefix("data:").split(";base64,")
                    assert mime.startswith("audio/")
                    sha = hashlib.sha256(base64.b64decode(b64)).hexdigest()
                    parts.append("audio:" + sha)
                    clips.append(sha)
                else:
                    assert part["type"] == "text"
                    parts.append("text:" + part["text"])
            assert tuple(parts) in planned
            sent[tuple(parts)] = clips
    assert set(sent) == set(planned)  # every planned prompt sent (once: the count above)
    # The recorded reply answers pointwise J (R1); the other questions ask for other answer
    # forms (emotion labels, one per context), so their rows are unparsed.
    j = [r for r in rows if r["probe"] == "J" and r["protocol"] == "pointwise"]
    assert j and {r["status"] for r in j} == {"ok"} and {r["pred"] for r in j} == {"R1"}
    for r in rows:
        assert r["audio_sent_sha256"] == sent[_parts(_prompt_of(ds, plan, r))]
        assert r["usage"]["completion_tokens"] == 4  # the recorded reply's token ids
    # The judge itself reports the clips it sent (not the runner's fallback to the prompt's).
    judge = load_judge(spec)
    judge.llm = _LLM()  # type: ignore[attr-defined]
    prompt = next(iter(planned.values()))
    [reply] = judge._run([prompt])  # type: ignore[attr-defined]
    assert list(reply.sent_audio_sha256 or ()) == sent[_parts(prompt)]


def _parts(prompt: Any) -> tuple[str, ...]:
    return tuple(
        "audio:" + p.sha256 if isinstance(p, AudioPart) else "text:" + p.text for p in prompt
    )


def _prompt_of(ds: Any, plan: PlanSpec, row: dict[str, Any]) -> Any:
    for inst in plan_instances(ds, plan):
        if (inst.item_id, inst.probe, inst.protocol, inst.cue, inst.order, inst.branch) == (
            row["item_id"],
            row["probe"],
            row["protocol"],
            row["cue"],
            row["order"],
            row["branch"],
        ) and inst.context_order == row["context_order"]:
            return inst.prompt
    raise AssertionError(row)


def test_engine_that_cannot_load_stops_the_run_in_one_line(
    starter_small: Path,
    tmp_path: Path,
    recording_vllm: type[_Recorder],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(**kwargs: Any) -> None:
        raise RuntimeError("CUDA out of memory while loading\nlong trace")

    monkeypatch.setattr(sys.modules["vllm"], "LLM", broken)
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",), limit=1)
    cfg = RunConfig(starter_small, ["vllm:org/m"], tmp_path / "r", plan)
    with pytest.raises(FatalJudgeError, match="vllm: cannot load 'org/m'") as e:
        asyncio.run(Runner(cfg).run())
    assert str(e.value) == "vllm: cannot load 'org/m' (CUDA out of memory while loading)"
    assert not (tmp_path / "r" / "results.jsonl").exists()


def test_joined_clips_reach_the_engine_as_one_data_uri(
    starter_small: Path, recording_vllm: type[_Recorder]
) -> None:
    plan = PlanSpec(probes=("J",), protocols=("pairwise",), cues=("none",), limit=1)
    judge = load_judge("vllm:org/m?clips=joined")
    judge.llm = _LLM()  # type: ignore[attr-defined]
    prompt = plan_instances(load_dataset(starter_small), plan)[0].prompt
    [reply] = judge._run([prompt])  # type: ignore[attr-defined]
    [(convs, _)] = recording_vllm.batches
    audio = [p for p in convs[0][0]["content"] if p["type"] == "audio_url"]
    assert len(audio) == 1 and reply.usage["joined"]["clips"] == "joined"
    assert len(reply.usage["joined"]["parts_sha256"]) == sum(
        isinstance(p, AudioPart) for p in prompt
    )
    assert list(reply.sent_audio_sha256 or ()) == [reply.usage["joined"]["joined_sha256"]]
    assert judge.params()["clips"] == "joined"


def test_audio_positions_vllm_reports_are_recorded_and_an_empty_map_is_not_checked() -> None:
    """vLLM's `multi_modal_placeholders` (where a version fills it) names the audio positions
    the engine reserved: their total is the call's `audio_features`. An empty map is left out,
    so a vLLM that never fills it cannot flag every call (stats/delivery.py: not checked)."""
    from paraudit.judges.vllm_backend import placeholder_usage
    from paraudit.stats.delivery import call_status

    class _Range:
        def __init__(self, offset: int, length: int) -> None:
            self.offset, self.length = offset, length

    out: Any = _RequestOutput("x")
    out.prompt_token_ids = list(range(120))
    out.multi_modal_placeholders = {"audio": [_Range(5, 40), _Range(60, 25)]}
    u = placeholder_usage(out)
    assert u == {"prompt_tokens": 120, "audio_features": 65}
    assert call_status(u)[0] == "delivered"
    out.multi_modal_placeholders = {"image": [_Range(5, 9)]}  # a map without audio: none
    assert call_status(placeholder_usage(out))[0] == "none counted"
    out.multi_modal_placeholders = {}
    assert placeholder_usage(out) == {"prompt_tokens": 120}
    assert call_status(placeholder_usage(out))[0] == "not checked"
    assert placeholder_usage(_RequestOutput("x")) == {}  # an older vLLM: nothing said
