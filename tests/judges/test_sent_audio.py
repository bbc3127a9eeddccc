"""The seconds each call sent, recorded beside the audio the provider counted, through real
`paraudit run --report` against loopback servers speaking the OpenAI and Gemini wire formats:
a server that counts no audio is flagged, one that counts what arrived is not."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
import soundfile as sf
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.items.dataset import load_dataset
from paraudit.judges.sent_audio import sent_seconds, sent_usage
from paraudit.protocols.parts import AudioPart, TextPart
from paraudit.runfolder.rows import read_rows
from paraudit.runner.plan import PlanSpec, plan_instances
from tests.judges.loopback import Loopback

runner = CliRunner()


def _seconds(data: bytes) -> float:
    return float(sf.info(io.BytesIO(data)).duration)


def _openai_audio_seconds(body: dict[str, Any]) -> float:
    """What a server that decodes the clips it was sent would measure."""
    total = 0.0
    for part in body["messages"][0]["content"]:
        if part["type"] == "input_audio":
            total += _seconds(base64.b64decode(part["input_audio"]["data"]))
    return total


def _counting(rate: float) -> Any:
    def usage(body: dict[str, Any]) -> dict[str, Any]:
        tokens = round(rate * _openai_audio_seconds(body))
        return {
            "prompt_tokens": 40 + tokens,
            "completion_tokens": 7,
            "total_tokens": 47 + tokens,
            "prompt_tokens_details": {"audio_tokens": tokens, "cached_tokens": 0},
        }

    return usage


def _run_report(ds: Path, tmp: Path, spec: str) -> tuple[str, dict[str, Any]]:
    run, report = tmp / "run", tmp / "report"
    r = runner.invoke(
        app,
        ["run", str(ds), "--judge", spec, "--probes", "J,P,O", "--cues", "none",
         "--out", str(run), "--report", str(report)],
        env={"COLUMNS": "80"},
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output
    return r.output, json.loads((report / "summary.json").read_text())


def test_sent_seconds_are_the_clips_durations(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    inst = next(
        i
        for i in plan_instances(
            ds, PlanSpec(probes=("J",), protocols=("pairwise",), cues=("none",))
        )
    )
    clips = [p for p in inst.prompt if isinstance(p, AudioPart)]
    assert len(clips) >= 2
    expected = sum(sf.info(str(p.path)).duration for p in clips)
    assert sent_seconds(inst.prompt) == pytest.approx(expected)
    assert sent_usage(inst.prompt) == {"audio_sent_s": round(expected, 3)}
    assert sent_usage((TextPart("no audio here"),)) == {}  # a text-only call records nothing


pytest.importorskip("openai", reason="the 'openai' extra is not installed")


def test_a_server_that_counts_no_audio_is_flagged(tiny_dataset: Path, tmp_path: Path) -> None:
    with Loopback() as srv:
        srv.usage = _counting(0.0)  # HTTP 200, a valid answer, and audio_tokens: 0
        text, summary = _run_report(tiny_dataset, tmp_path, f"openai:test-model@{srv.url}/v1")
    rows = read_rows(tmp_path / "run")
    with_audio = [r for r in rows if r.audio_sent_sha256]
    assert with_audio and all(r.usage["audio_sent_s"] > 0 for r in with_audio)
    assert all(r.usage["prompt_tokens_details"]["audio_tokens"] == 0 for r in with_audio)
    cells = summary["delivery"]
    assert {c["task"] for c in cells} == {r.task for r in with_audio}
    for c in cells:
        n = sum(1 for r in with_audio if r.task == c["task"])
        assert c["calls_with_audio"] == c["checked"] == c["none_counted"] == c["flagged"] == n
        assert c["text"].startswith(f"the provider counted no audio for {n} of {n} calls")
        assert c["rate_per_s"] == 10.0 and "realtime-costs" in c["rate_source"]
    for v in summary["verdicts"]:
        kinds = [b["kind"] for b in v["behaviours"]]
        assert "audio not delivered" in kinds
        assert "Audio not delivered in" in v["headline"]
    assert "audio delivery: " in text and "not delivered in" in " ".join(text.split())
    md = (tmp_path / "report" / "summary.md").read_text()
    assert "## Audio delivery" in md and "the provider counted no audio for" in md
    assert "the provider counted no audio for" in (tmp_path / "report" / "report.html").read_text()


def test_a_server_that_counts_what_arrived_is_not_flagged(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    with Loopback() as srv:
        srv.usage = _counting(10.0)  # OpenAI's documented 1 token per 100 ms
        text, summary = _run_report(tiny_dataset, tmp_path, f"openai:test-model@{srv.url}/v1")
    for c in summary["delivery"]:
        assert c["flagged"] == 0 and c["checked"] == c["calls_with_audio"] > 0
        assert c["counted"] == pytest.approx(c["expected"], rel=0.05)
        assert c["text"].startswith("the provider counted audio in all")
    assert all(
        b["kind"] != "audio not delivered" for v in summary["verdicts"] for b in v["behaviours"]
    )
    assert "counted in every checked call for openai:test-model" in " ".join(text.split())


def test_a_server_that_counts_far_too_few_is_flagged(tiny_dataset: Path, tmp_path: Path) -> None:
    with Loopback() as srv:
        srv.usage = _counting(1.0)  # a tenth of the documented rate: most of the audio lost
        _, summary = _run_report(tiny_dataset, tmp_path, f"openai:test-model@{srv.url}/v1")
    for c in summary["delivery"]:
        assert c["too_few"] == c["flagged"] == c["checked"] > 0 and c["none_counted"] == 0
        assert "far too few audio tokens" in c["text"]


def test_a_server_that_reports_no_audio_count_is_not_checked(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    with Loopback() as srv:  # the default usage: text counts only, as many compatible servers
        _, summary = _run_report(tiny_dataset, tmp_path, f"openai:test-model@{srv.url}/v1")
    for c in summary["delivery"]:
        assert c["not_checked"] == c["calls_with_audio"] > 0 and c["flagged"] == 0
        assert c["text"].startswith("not checked")
    assert all(
        b["kind"] != "audio not delivered" for v in summary["verdicts"] for b in v["behaviours"]
    )


def _gemini_counting(rate: float) -> Any:
    def usage(body: dict[str, Any]) -> dict[str, Any]:
        datas = [p["inlineData"]["data"] for c in body["contents"] for p in c["parts"]
                 if "inlineData" in p]  # fmt: skip
        seconds = sum(_seconds(base64.urlsafe_b64decode(d + "=" * (-len(d) % 4))) for d in datas)
        audio = round(rate * seconds)
        return {
            "promptTokenCount": 40 + audio,
            "candidatesTokenCount": 7,
            "totalTokenCount": 47 + audio,
            "promptTokensDetails": [
                {"modality": "TEXT", "tokenCount": 40},
                *([{"modality": "AUDIO", "tokenCount": audio}] if audio else []),
            ],
        }

    return usage


@pytest.mark.parametrize(("rate", "flagged"), [(32.0, False), (0.0, True)])
def test_gemini_audio_tokens_by_modality(
    tiny_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rate: float, flagged: bool
) -> None:
    pytest.importorskip("google.genai", reason="the 'gemini' extra is not installed")
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    with Loopback(models=("gemini-test",)) as srv:
        srv.gemini_usage = _gemini_counting(rate)  # no AUDIO entry at all when none counted
        _, summary = _run_report(tiny_dataset, tmp_path, f"gemini:gemini-test@{srv.url}")
    for c in summary["delivery"]:
        assert c["checked"] == c["calls_with_audio"] > 0
        assert (c["none_counted"] == c["checked"]) is flagged
        assert c["rate_per_s"] == 32.0 and "gemini-api/docs/audio" in c["rate_source"]
        if not flagged:
            assert c["counted"] == pytest.approx(c["expected"], rel=0.05)
