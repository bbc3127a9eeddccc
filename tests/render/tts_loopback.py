"""A loopback HTTP server speaking the OpenAI audio/speech and Gemini generateContent (audio
modality) wire formats. It records every request and answers with real speech (Piper, rendered
once by the test) as a WAV (OpenAI) or base64 16-bit PCM (Gemini), or with a scripted error."""

from __future__ import annotations

import base64
import io
import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import soundfile as sf

RATE = 24000


@dataclass
class Failure:
    status: int
    message: str


class TTSLoopback:
    def __init__(
        self, speech: np.ndarray, *, streamed_wav: bool = False, vary: bool = False
    ) -> None:
        self.pcm16 = (np.clip(speech, -1, 1) * 32767).astype("<i2")
        self.streamed_wav = streamed_wav
        """Send WAV with placeholder (0xFFFFFFFF) chunk sizes, as streamed replies do."""
        self.vary = vary
        """Change one sample by one step per request, as a service that samples afresh gives
        different bytes each time (off: every reply is byte-identical, a deterministic TTS)."""
        self.requests: list[dict[str, Any]] = []
        self.failures: deque[Failure] = deque()
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _reply(self, status: int, body: bytes, ctype: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with outer.lock:
                    outer.requests.append(
                        {"path": self.path, "headers": dict(self.headers), "body": json.loads(raw)}
                    )
                    failure = outer.failures.popleft() if outer.failures else None
                    served = len(outer.requests)
                if failure is not None:
                    err = {"error": {"message": failure.message, "code": failure.status}}
                    self._reply(failure.status, json.dumps(err).encode(), "application/json")
                elif self.path.endswith("/audio/speech"):
                    self._reply(200, outer.wav(served), "audio/wav")
                elif ":generateContent" in self.path:
                    data = base64.b64encode(outer.reply_pcm16(served).tobytes()).decode()
                    body = {
                        "candidates": [
                            {
                                "content": {
                                    "role": "model",
                                    "parts": [
                                        {
                                            "inlineData": {
                                                "mimeType": f"audio/L16;codec=pcm;rate={RATE}",
                                                "data": data,
                                            }
                                        }
                                    ],
                                },
                                "finishReason": "STOP",
                            }
                        ]
                    }
                    self._reply(200, json.dumps(body).encode(), "application/json")
                else:
                    self._reply(404, b'{"error": {"message": "not found"}}', "application/json")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def reply_pcm16(self, served: int = 0) -> np.ndarray:
        if not self.vary:
            return self.pcm16
        out = self.pcm16.copy()
        out[served % len(out)] += 1 if out[served % len(out)] < 32767 else -1
        return out

    def wav(self, served: int = 0) -> bytes:
        buf = io.BytesIO()
        sf.write(buf, self.reply_pcm16(served), RATE, "PCM_16", format="WAV")
        data = buf.getvalue()
        if self.streamed_wav:
            data = data[:4] + b"\xff\xff\xff\xff" + data[8:]
            at = data.index(b"data")
            data = data[: at + 4] + b"\xff\xff\xff\xff" + data[at + 8 :]
        return data

    def __enter__(self) -> TTSLoopback:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
