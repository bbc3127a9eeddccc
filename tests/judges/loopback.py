"""A loopback HTTP server speaking the OpenAI chat-completions and Gemini generateContent wire
formats. It records every request and answers from a script (status codes, Retry-After,
delays, malformed bodies) or, by default, with a valid reply that picks the first option."""

from __future__ import annotations

import itertools
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Scripted:
    status: int = 200
    body: Any = None
    """JSON-able body, or raw bytes for a malformed reply; None = the default valid reply."""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    content_type: str = "application/json"
    """What the reply claims to be (an HTML error page from a proxy says text/html)."""


def first_option_reply(prompt_text: str) -> str:
    if '"C[t]": "E[1 or 2]"' in prompt_text:
        turns = re.findall(r"Conversation C turn (\d+) \(human\) clip", prompt_text)
        pred: Any = {f"C{t}": "E1" for t in turns}
    elif '{"CA": "R1", "CB": "R2"} or' in prompt_text:
        pred = {"CA": "R1", "CB": "R2"}
    else:
        pred = "R1"
    return json.dumps({"reasoning": "loopback", "pred": pred})


class _Server(ThreadingHTTPServer):
    # The default backlog (5) resets connections when a client opens dozens at once, which
    # no real API server does.
    request_queue_size = 256
    daemon_threads = True


class Loopback:
    def __init__(
        self,
        models: tuple[str, ...] = ("test-model",),
        *,
        listing: Scripted | None = None,
        keep_alive: bool = False,
    ) -> None:
        """keep_alive: answer in HTTP/1.1 and keep each connection open, as provider APIs do
        (benchmarks); by default HTTP/1.0, one connection per request."""
        self.models = models
        self.listing = listing
        """How to answer GET /models instead of listing `models` (status, body, delay)."""
        self.delay = 0.0
        """Seconds every chat/generate request waits before its answer (latency)."""
        self.usage: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        """Chat completions: the `usage` object to report for a request body (default: fixed
        text-only counts)."""
        self.gemini_usage: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        """generateContent: the `usageMetadata` to report for a request body."""
        self.edit: Callable[[dict[str, Any], dict[str, Any]], Scripted | None] | None = None
        """Called with each chat/generate request's body and the default reply, which it may
        change (the answer, the reply's `model`); a Scripted it returns is sent instead (a
        status, Retry-After). Used when the script queue is empty."""
        self.requests: list[dict[str, Any]] = []
        self.uploads: dict[str, bytes] = {}
        self.session_ids = itertools.count()
        """Files API: file URI → the bytes uploaded."""
        self.script: deque[Scripted] = deque()
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"
            # Headers and body go out in two writes: on a connection kept open, Nagle's
            # algorithm would hold the body back until the client's delayed ACK (~40 ms).
            disable_nagle_algorithm = keep_alive

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, s: Scripted, default: Any) -> None:
                if s.delay:
                    time.sleep(s.delay)
                body = s.body if s.body is not None else default
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(s.status)
                self.send_header("Content-Type", s.content_type)
                for k, v in s.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _next(self) -> Scripted:
                with outer.lock:
                    return outer.script.popleft() if outer.script else Scripted()

            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/").endswith("/models") and outer.listing is not None:
                    self._send(outer.listing, {"error": {"message": "scripted"}})
                    return
                if self.path.rstrip("/").endswith("/models"):
                    self._send(
                        Scripted(),
                        {
                            "object": "list",
                            "data": [
                                {"id": m, "object": "model", "created": 0, "owned_by": "loopback"}
                                for m in outer.models
                            ],
                        },
                    )
                    return
                m = re.search(r"/models/([^/:?]+)$", self.path)
                if m and m.group(1) in outer.models:
                    self._send(
                        Scripted(),
                        {"id": m.group(1), "object": "model", "created": 0, "owned_by": "loopback"},
                    )
                    return
                self._send(Scripted(status=404), {"error": {"message": "not found"}})

            def _upload(self, command: str, raw: bytes) -> None:
                # Gemini Files API, resumable protocol: "start" hands out an upload URL, then
                # "upload, finalize" carries the bytes and returns the file record.
                if command == "start":
                    with outer.lock:
                        n = next(outer.session_ids)
                    url = f"{outer.url}/upload-session/{n}"
                    self._send(Scripted(headers={"x-goog-upload-url": url}), {})
                    return
                n = self.path.rsplit("/", 1)[-1]
                uri = f"{outer.url}/v1beta/files/f{n}"
                with outer.lock:
                    outer.uploads[uri] = raw
                status = "final" if "finalize" in command else "active"
                self._send(
                    Scripted(headers={"X-Goog-Upload-Status": status}),
                    {
                        "file": {
                            "name": f"files/f{n}",
                            "uri": uri,
                            "mimeType": "audio/wav",
                            "state": "ACTIVE",
                        }
                    },
                )

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                command = self.headers.get("X-Goog-Upload-Command")
                if command:
                    self._upload(command.strip(), raw)
                    return
                body = json.loads(raw)
                with outer.lock:
                    outer.requests.append(
                        {"path": self.path, "headers": dict(self.headers), "body": body}
                    )
                s = self._next()
                if outer.delay:
                    time.sleep(outer.delay)
                if self.path.endswith("/chat/completions"):
                    text = "\n".join(
                        m["content"]
                        if isinstance(m["content"], str)  # e.g. a plain system message
                        else "\n".join(p.get("text", "") for p in m["content"])
                        for m in body["messages"]
                    )
                    default = {
                        "id": "chatcmpl-loop",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {
                                    "role": "assistant",
                                    "content": first_option_reply(text),
                                },
                            }
                        ],
                        "usage": outer.usage(body)
                        if outer.usage is not None
                        else {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                    }
                elif ":generateContent" in self.path:
                    text = "\n".join(
                        p.get("text", "")
                        for c in body["contents"]
                        for p in c["parts"]
                        if "text" in p
                    )
                    default = {
                        "candidates": [
                            {
                                "content": {
                                    "role": "model",
                                    "parts": [{"text": first_option_reply(text)}],
                                },
                                "finishReason": "STOP",
                                "index": 0,
                            }
                        ],
                        "usageMetadata": outer.gemini_usage(body)
                        if outer.gemini_usage is not None
                        else {
                            "promptTokenCount": 11,
                            "candidatesTokenCount": 7,
                            "totalTokenCount": 18,
                        },
                    }
                else:
                    s, default = Scripted(status=404), {"error": {"message": "no route"}}
                if outer.edit is not None and s == Scripted():
                    s = outer.edit(body, default) or s
                self._send(s, default)

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Loopback:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class Silent:
    """A server that accepts connections (the kernel completes the handshake) and never
    answers: what a hung gateway looks like to a client."""

    def __enter__(self) -> Silent:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        return self

    def __exit__(self, *exc: Any) -> None:
        self.sock.close()


def free_port() -> int:
    """A loopback port with nothing listening on it (for unreachable-server tests)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port
