"""`?clips=joined` through the OpenAI loopback wire format: one clip per request whose duration
is the parts plus the spoken markers and the gaps, the joining recorded in usage."""

from __future__ import annotations

import asyncio
import base64
import io
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from paraudit.items.dataset import load_dataset
from paraudit.judges.joining import JOINED_NOTE, MARKER_GAP_S, PAUSE_S, join_prompt
from paraudit.protocols.parts import AudioPart, TextPart
from paraudit.runner.plan import PlanSpec, plan_instances
from paraudit.runner.run import RunConfig, Runner
from paraudit.specs import SpecError
from tests.conftest import needs
from tests.judges.loopback import Loopback

pytestmark = needs("openai", "openai")

PLAN = PlanSpec(probes=("J",), protocols=("pointwise", "pairwise"), cues=("none",), limit=1)


def test_joined_requests_carry_one_clip_of_the_parts_plus_markers_and_gaps(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    ds = load_dataset(tiny_dataset)
    planned = {i.instance_id: i for i in plan_instances(ds, PLAN)}
    with Loopback() as srv:
        spec = f"openai:test-model@{srv.url}/v1?clips=joined"
        cfg = RunConfig(tiny_dataset, [spec], tmp_path / "r", PLAN, concurrency=4)
        rows = asyncio.run(Runner(cfg).run())
    bodies = [r["body"] for r in srv.requests if r["path"].endswith("/chat/completions")]
    assert len(bodies) == len(planned)
    for body in bodies:
        content = body["messages"][0]["content"]
        audio = [p for p in content if p["type"] == "input_audio"]
        assert len(audio) == 1 and content[-1] is audio[0]  # one clip, after the text
        texts = [p["text"] for p in content if p["type"] == "text"]
        assert texts[-1] == JOINED_NOTE and "[Audio 1]" in texts and "[Audio 3]" in texts
        # Each clip's place in the text names its marker, in order.
        marks = [t for t in texts if t.startswith("[Audio ")]
        assert marks == [f"[Audio {k}]" for k in range(1, len(marks) + 1)]
    for r in rows:
        j = r["usage"]["joined"]
        inst = next(
            i for i in planned.values()
            if (i.item_id, i.protocol, i.order, i.branch, i.context_order)
            == (r["item_id"], r["protocol"], r["order"], r["branch"], r["context_order"])
        )  # fmt: skip
        clips = [p for p in inst.prompt if isinstance(p, AudioPart)]
        assert j["parts_sha256"] == [c.sha256 for c in clips]
        parts = [sf.info(str(c.path)).duration for c in clips]
        assert j["parts_s"] == pytest.approx(parts, abs=1e-6)
        assert j["parts_hz"] == [j["sample_rate"]] * len(parts)  # one rate: nothing resampled
        want = sum(parts) + sum(j["markers_s"]) + len(parts) * MARKER_GAP_S
        want += (len(parts) - 1) * PAUSE_S
        assert j["joined_s"] == pytest.approx(want, abs=2 / j["sample_rate"])
        assert r["audio_sent_sha256"] == [j["joined_sha256"]]
        assert r["judge"].endswith("?clips=joined")  # a judge of its own (label, cache keys)
    sent = {
        len(sf.read(io.BytesIO(base64.b64decode(p["input_audio"]["data"])))[0])
        for b in bodies
        for p in b["messages"][0]["content"]
        if p["type"] == "input_audio"
    }
    # What was sent is what usage records (the tiny dataset's clips are 16 kHz).
    assert {round(r["usage"]["joined"]["joined_s"] * 16000) for r in rows} == sent


def test_markers_are_spoken_and_a_single_clip_is_left_alone(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    inst = next(i for i in plan_instances(ds, PLAN) if i.protocol == "pointwise")
    joined, info = join_prompt(inst.prompt)
    assert info is not None and all(m > 0.2 for m in info.markers_s)  # "Audio n." said aloud
    [part] = [p for p in joined if isinstance(p, AudioPart)]
    x, rate = sf.read(part.path)
    first = round(info.markers_s[0] * rate)
    assert np.abs(x[:first]).max() > 0.05  # the marker is sound, then the gap is silence
    assert np.abs(x[first : first + round(MARKER_GAP_S * rate) - 1]).max() == 0.0
    one = (TextPart("x"), next(p for p in inst.prompt if isinstance(p, AudioPart)))
    assert join_prompt(one) == (one, None)


def test_clips_value_is_checked() -> None:
    from paraudit.judges.spec import parse_judge_spec

    with pytest.raises(SpecError, match="clips='glued' must be one of separate, joined"):
        parse_judge_spec("openai:m?clips=glued")
