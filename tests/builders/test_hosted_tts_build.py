"""A build voiced by a hosted TTS: the OpenAI audio/speech wire format on a loopback server that
answers with real Piper speech of the requested words in the requested emotion."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import soundfile as sf

from paraudit.items.dataset import load_dataset
from paraudit.items.validate import errors_of, validate_dataset
from paraudit.render.backends import make_tts
from paraudit.render.tts_styles import STYLES, instructions_for
from tests.builders.conftest import Sources, cli
from tests.builders.fakes import ChatServer

pytestmark = pytest.mark.slow


class SpeechServer:
    """POST /v1/audio/speech → WAV; the emotion is recovered from the `instructions` sent."""

    def __init__(self, cache: Path) -> None:
        self.piper = make_tts("piper", cache_dir=cache)
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                text, instr = body["input"], body.get("instructions", "")
                emotion = next(e for e in STYLES if instructions_for(text, e)[0] == instr)
                role = "assistant" if emotion == "empathetic" else "human"
                samples, rate, _ = outer.piper.render(text, emotion, role, "plain", 0)
                buf = io.BytesIO()
                sf.write(buf, samples, rate, "PCM_16", format="WAV")
                data = buf.getvalue()
                self.send_response(200)
                self.send_header("Content-Type", "audio/wav")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"


@pytest.fixture
def speech(sources: Sources) -> Iterator[SpeechServer]:
    s = SpeechServer(sources.cache)
    s.thread.start()
    yield s
    s.server.shutdown()
    s.server.server_close()


def test_single_turn_voiced_by_openai_tts(
    chat: ChatServer,
    sources: Sources,
    speech: SpeechServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    out = tmp_path / "ds"
    code, output = cli(
        "build",
        "single-turn",
        "--source",
        str(sources.emocf),
        "--llm",
        chat.spec,
        "--tts",
        f"openai:gpt-4o-mini-tts@{speech.url}?voices=echo,alloy,ash",
        "--pairs",
        "sadness/anger",
        "--max-accepted",
        "1",
        "--max-tries",
        "2",
        "--out",
        str(out),
        "--cache",
        str(tmp_path / "cache"),
        "--no-dnsmos",
        "--no-balance",
    )
    assert code == 0, output
    assert errors_of(validate_dataset(out)) == []  # balance warnings may show on tiny sets
    ds = load_dataset(out)
    assert len(ds.items) >= 1
    assert all(
        r["model"] == "gpt-4o-mini-tts" and r["response_format"] == "wav" for r in speech.requests
    )
    for it in ds.items:
        voices = it.meta["voices"]
        assert voices["human"] != voices["assistant"]
        assert {voices["human"], voices["assistant"]} <= {"echo", "alloy", "ash"}
        info = sf.info(str(out / it.branches[0].audio[0]))
        assert info.samplerate == 24000
    card = json.loads((out / "card.json").read_text())
    assert card["tts"]["backend"] == "openai" and "Audio Scorer" in card["qc"]["rule"]
