"""The `desta:` judge through the runner up to `model.generate` (the DeSTA2.5-Audio package
needs a GPU and is not on PyPI): a recording `desta` module stands at the package boundary."""

from __future__ import annotations

import asyncio
import importlib.machinery
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from paraudit.errors import ParauditError
from paraudit.items.dataset import load_dataset
from paraudit.judges.desta_backend import AUDIO_TOKEN, NO_WORDS, transcripts_of
from paraudit.judges.registry import load_judge
from paraudit.protocols.instances import Instance
from paraudit.protocols.parts import AudioPart, TextPart
from paraudit.runner.plan import PlanSpec, plan_instances
from paraudit.runner.run import RunConfig, Runner
from paraudit.specs import SpecError

PLAN = PlanSpec(probes=("J", "P"), protocols=("pointwise", "pairwise"), cues=("none",), limit=1)


class _Output:
    def __init__(self, text: str, audios: list[tuple[str, str]]) -> None:
        self.text = [text]
        self.audios = audios
        self.generated_ids = [[1, 2, 3]]


class _Model:
    loaded: list[str] = []
    moved: list[str] = []
    calls: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []

    @classmethod
    def from_pretrained(cls, name: str) -> _Model:
        cls.loaded.append(name)
        return cls()

    def to(self, device: str) -> _Model:
        self.moved.append(device)
        return self

    def generate(self, messages: list[dict[str, Any]], **kwargs: Any) -> _Output:
        self.calls.append((messages, kwargs))
        # As the package does: a clip given no words is transcribed by its own ASR.
        audios = [
            (a["audio"], "heard " + Path(a["audio"]).stem[:6] if a["text"] is None else a["text"])
            for m in messages
            for a in m.get("audios", [])
        ]
        return _Output('{"reasoning": "r", "pred": "R1"}', audios)


@pytest.fixture
def recording_desta(monkeypatch: pytest.MonkeyPatch) -> type[_Model]:
    module = types.ModuleType("desta")
    module.__spec__ = importlib.machinery.ModuleSpec("desta", None)  # "installed" to find_spec
    module.DeSTA25AudioModel = _Model  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "desta", module)
    _Model.loaded, _Model.moved, _Model.calls = [], [], []
    return _Model


def _run(ds: Path, out: Path, spec: str) -> list[dict[str, Any]]:
    return asyncio.run(Runner(RunConfig(ds, [spec], out, PLAN, concurrency=4)).run())


def _planned(ds: Path) -> dict[tuple[str, tuple[str, ...]], Instance]:
    """Every planned prompt by the message text and the clip paths it should become."""
    return {
        (
            "\n".join(p.text if isinstance(p, TextPart) else AUDIO_TOKEN for p in i.prompt),
            tuple(str(p.path) for p in i.prompt if isinstance(p, AudioPart)),
        ): i
        for i in plan_instances(load_dataset(ds), PLAN)
    }


def test_each_prompt_is_one_user_message_with_one_audio_token_per_clip_and_its_words(
    starter_small: Path, tmp_path: Path, recording_desta: type[_Model]
) -> None:
    rows = _run(starter_small, tmp_path / "r", "desta:org/desta25")
    assert recording_desta.loaded == ["org/desta25"] and recording_desta.moved == ["cuda"]
    planned = _planned(starter_small)
    words = transcripts_of(load_dataset(starter_small))
    seen: set[tuple[str, str, str]] = set()
    for messages, kwargs in recording_desta.calls:
        assert kwargs == {"do_sample": False, "max_new_tokens": 1024}  # greedy by default
        [msg] = messages
        assert msg["role"] == "user"
        # The text in prompt order, and each clip's own file in the same order.
        inst = planned[(msg["content"], tuple(a["audio"] for a in msg["audios"]))]
        clips = [p for p in inst.prompt if isinstance(p, AudioPart)]
        assert msg["content"].count(AUDIO_TOKEN) == len(msg["audios"]) == len(clips)
        assert [a["text"] for a in msg["audios"]] == [words[c.sha256] for c in clips]
        seen.add((inst.task, inst.probe, inst.protocol))
    assert len(recording_desta.calls) == len({r["key"] for r in rows})  # every prompt, once
    tasks = {t for t, _, _ in seen}
    assert len(tasks) >= 2 and "single-turn-emotions" in tasks  # and multi-turn ones
    assert {("single-turn-emotions", "J", "pairwise"), ("positional-emotion", "J", "pointwise"),
            ("positional-emotion", "P", "pointwise")} <= seen  # fmt: skip
    j = [r for r in rows if r["probe"] == "J" and r["protocol"] == "pointwise"]
    assert j and {r["pred"] for r in j} == {"R1"}
    assert all(r["usage"]["completion_tokens"] == 3 for r in rows)


def test_transcript_none_sends_no_words_and_asr_records_what_the_package_heard(
    starter_small: Path, tmp_path: Path, recording_desta: type[_Model]
) -> None:
    _run(starter_small, tmp_path / "none", "desta:m?transcript=none")
    texts = {a["text"] for msgs, _ in recording_desta.calls for a in msgs[0]["audios"]}
    assert texts == {NO_WORDS}
    recording_desta.calls.clear()
    rows = _run(starter_small, tmp_path / "asr", "desta:m?transcript=asr")
    texts = {a["text"] for msgs, _ in recording_desta.calls for a in msgs[0]["audios"]}
    assert texts == {None}
    for r in rows:
        heard = r["usage"]["transcripts"]
        assert r["usage"]["transcript"] == "asr" and heard
        assert all(h.startswith("heard ") for h in heard)
    # The option changes what the model reads: it is part of the label (and cache keys).
    assert {r["judge"] for r in rows} == {"desta:m?transcript=asr"}


def test_a_temperature_samples_with_it(
    starter_small: Path, tmp_path: Path, recording_desta: type[_Model]
) -> None:
    judge = load_judge("desta:m?temperature=0.7&max_tokens=32&transcript=none&device=cpu")
    inst = next(iter(_planned(starter_small).values()))  # transcript=none: no dataset needed
    asyncio.run(judge.generate(inst.prompt))
    [(_, kwargs)] = recording_desta.calls
    assert kwargs == {"do_sample": True, "max_new_tokens": 32, "temperature": 0.7, "top_p": 1.0}
    assert recording_desta.moved == ["cpu"]


def test_missing_package_is_one_line_with_the_install_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "desta", None)  # import fails, find_spec raises
    monkeypatch.setattr("paraudit.judges.registry._importable", lambda m: m != "desta")
    with pytest.raises(ParauditError) as e:
        load_judge("desta:DeSTA-ntu/DeSTA2.5-Audio-Llama-3.1-8B")
    msg = str(e.value)
    assert "\n" not in msg and "git clone https://github.com/kehanlu/DeSTA2.5-Audio" in msg
    assert "not on PyPI" in msg


def test_options_are_checked_when_parsed(recording_desta: type[_Model]) -> None:
    with pytest.raises(SpecError, match="transcript='whisper' must be one of given, none, asr"):
        load_judge("desta:m?transcript=whisper")
    with pytest.raises(SpecError, match="no option 'transcripts'"):
        load_judge("desta:m?transcripts=none")
