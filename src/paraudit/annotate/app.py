"""The listening-test web app (FastAPI): annotator pages and API, audio, admin page and export.

What the browser may learn is decided here and only here. An annotator's responses carry the
transcript, speakers, response texts and opaque audio URLs — never the item id, branch, emotion
labels, answer key, file names, the kind of stimulus (repeat, catch) or anyone else's answers.
Every URL carries a secret token; a wrong one is 403, an unknown resource 404.
"""

from __future__ import annotations

import hmac
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint

from paraudit.annotate import admin
from paraudit.annotate.assignment import stimulus
from paraudit.annotate.store import AnnotationStore, AnswerRefused
from paraudit.dimensions import registry
from paraudit.items.records import AuditItem
from paraudit.items.taxonomy import item_dimension

SPEAKERS = {"human": "User", "assistant": "Voice assistant"}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; media-src 'self'; "
    "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)

CLIP = r"^[A-Za-z0-9_-]{16}$"


def asset(name: str) -> str:
    return resources.files("paraudit.annotate").joinpath("static", name).read_text("utf-8")


def byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """(first, last) byte of a single 'bytes=' range, clamped to the file; None to send all.

    Safari on phones plays media only from servers that answer range requests with 206.
    """
    if not header or not header.startswith("bytes=") or "," in header:
        return None
    first, _, last = header[6:].strip().partition("-")
    try:
        if not first:  # a suffix: the last N bytes
            n = int(last)
            # The last 0 bytes are no bytes: unsatisfiable (416), not the whole file.
            return (max(0, size - n), size - 1) if n > 0 else (size, size - 1)
        start = int(first)
        end = min(int(last), size - 1) if last else size - 1
    except ValueError:
        return None
    return (start, end) if start <= end or start >= size else None


class PlayEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")
    clip: str = Field(pattern=CLIP)
    event: Literal["play", "ended"]


class AnswerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seq: int = Field(ge=0, le=100_000)
    choice: Literal["R1", "R2"]
    confidence: int | None = Field(default=None, ge=1, le=5)
    comment: str = Field(default="", max_length=2000)
    request_id: str = Field(pattern=r"^[A-Za-z0-9-]{8,64}$")


class _Headers(BaseHTTPMiddleware):
    """Security headers on every response; no caching except audio (private to the browser)."""

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        response = await call_next(request)
        h = response.headers
        h["Content-Security-Policy"] = CSP
        h["X-Content-Type-Options"] = "nosniff"
        h["Referrer-Policy"] = "no-referrer"  # the token is in the URL
        h["X-Frame-Options"] = "DENY"
        h.setdefault("Cache-Control", "no-store")
        return response


async def _invalid_request(request: Request, exc: Exception) -> Response:
    """A 422 naming each bad field and why, never echoing the input: FastAPI's own handler
    sent a 20 MB comment back whole, and answered `"confidence": NaN` with a 500 (NaN is not
    JSON, so its echo could not be encoded)."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    detail = [
        {"loc": [str(x) for x in e.get("loc", ())], "msg": str(e.get("msg", ""))[:200]}
        for e in errors[:10]
    ]
    return JSONResponse({"detail": detail}, status_code=422)


def create_app(store_path: Path) -> FastAPI:
    """The app for one store. The dataset is read once, refused if it changed since creation."""
    store = AnnotationStore.open(store_path)
    cfg = store.config()
    ds = store.dataset()
    items = {it.id: it for it in ds.items}
    tokens = {token: name for name, token in store.annotators()}
    admin_token = store.meta("admin_token")

    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(_Headers)
    app.add_exception_handler(RequestValidationError, _invalid_request)

    asks: dict[str, dict[str, str]] = {}

    def ask(item: AuditItem) -> dict[str, str]:
        """The question and what to fit the response to, in the item's dimension's words."""
        name = item_dimension(item, ds.manifest)
        if name not in asks:
            words = registry.get(name).words
            asks[name] = {"ask": words.listen_question, "listen_for": words.listen_for}
        return asks[name]

    def who(token: str) -> str:
        for known, name in tokens.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                return name
        raise HTTPException(403, "unknown link")

    def check_admin(token: str) -> None:
        if not hmac.compare_digest(admin_token.encode(), token.encode()):
            raise HTTPException(403, "unknown link")

    @app.get("/", response_class=PlainTextResponse)
    def root() -> str:
        return "paraudit listening test: open the personal link you were given."

    @app.get("/favicon.ico")
    def favicon() -> Response:
        return Response(status_code=204)  # browsers ask for it; a 404 would be console noise

    @app.get("/a/{token}", response_class=HTMLResponse)
    def page(token: str) -> str:
        who(token)  # the token is URL-safe (checked above), so it can go into the page as is
        return asset("listen.html").replace("__BASE__", f"/a/{token}")

    @app.get("/a/{token}/listen.js")
    def script(token: str) -> Response:
        who(token)
        return Response(asset("listen.js"), media_type="text/javascript")

    @app.get("/a/{token}/style.css")
    def style(token: str) -> Response:
        who(token)
        return Response(asset("style.css"), media_type="text/css")

    @app.get("/a/{token}/api/next")
    def next_question(token: str) -> dict[str, Any]:
        name = who(token)
        done, total = store.count(name)
        seq = store.next_seq(name)
        if seq is None:
            return {"answered": done, "total": total, "question": None}
        task = store.task(name, seq)
        assert task is not None
        st = stimulus(items, task)
        clips = store.clips(name, seq)
        heard = store.heard(clips, cfg.min_listen)
        store.mark_shown(name, seq)
        by_slot = {c.slot: c for c in clips}

        def clip(slot: str) -> dict[str, Any]:
            c = by_slot[slot]
            return {
                "clip": c.clip_id,
                "audio": f"/a/{token}/audio/{c.clip_id}",
                "heard": c.clip_id in heard,
            }

        return {
            "answered": done,
            "total": total,
            "question": {
                "seq": seq,
                # The question in the item's dimension's words (emotion: today's heading).
                **ask(items[task.item_id]),
                "context": [
                    {"speaker": SPEAKERS.get(spk, "Speaker"), "text": text, **clip(f"c{i}")}
                    for i, (spk, text, _) in enumerate(st.context)
                ],
                "responses": [
                    {"label": label, "text": text, **clip(label)}
                    for label, (text, _) in zip(("R1", "R2"), st.responses, strict=True)
                ],
            },
        }

    @app.post("/a/{token}/api/play")
    def play(token: str, body: PlayEvent) -> dict[str, Any]:
        name = who(token)
        found = store.clip(name, body.clip)
        if found is None:
            raise HTTPException(404, "unknown clip")
        store.log_play(body.clip, body.event)
        clip, seq = found
        return {"heard": clip.clip_id in store.heard([clip], cfg.min_listen)}

    @app.post("/a/{token}/api/answer")
    def answer(token: str, body: AnswerIn) -> JSONResponse:
        name = who(token)
        try:
            stored, created = store.submit(
                name,
                body.seq,
                body.choice,
                body.confidence,
                body.comment.strip(),
                body.request_id,
                cfg.min_listen,
            )
        except AnswerRefused as e:
            return JSONResponse({"stored": False, "reason": e.reason}, status_code=409)
        done, total = store.count(name)
        return JSONResponse(
            {
                "stored": True,
                "created": created,
                "seq": stored.seq,
                "answered": done,
                "total": total,
            }
        )

    @app.get("/a/{token}/audio/{clip_id}")
    def audio(token: str, clip_id: str, request: Request) -> Response:
        name = who(token)
        found = store.clip(name, clip_id) if len(clip_id) == 16 else None
        if found is None:
            raise HTTPException(404, "unknown clip")
        data = ds.audio_path(found[0].path).read_bytes()
        # No file name and no validators derived from the file: only the bytes leave.
        headers = {"Cache-Control": "private, max-age=3600", "Accept-Ranges": "bytes"}
        span = byte_range(request.headers.get("range"), len(data))
        if span is None:
            return Response(data, media_type="audio/wav", headers=headers)
        start, end = span
        if start >= len(data):
            return Response(status_code=416, headers={"Content-Range": f"bytes */{len(data)}"})
        headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
        return Response(data[start : end + 1], 206, headers=headers, media_type="audio/wav")

    @app.get("/admin/{token}", response_class=HTMLResponse)
    def admin_page(token: str) -> str:
        check_admin(token)
        return admin.render(store, ds, token)

    @app.get("/admin/{token}/style.css")
    def admin_style(token: str) -> Response:
        check_admin(token)
        return Response(asset("style.css"), media_type="text/css")

    @app.get("/admin/{token}/answers.jsonl")
    def export_jsonl(token: str) -> Response:
        check_admin(token)
        return Response(admin.export_jsonl(store, ds), media_type="application/x-ndjson")

    @app.get("/admin/{token}/answers.csv")
    def export_csv(token: str) -> Response:
        check_admin(token)
        return Response(admin.export_csv(store, ds), media_type="text/csv")

    @app.get("/admin/{token}/summary.json")
    def summary(token: str) -> dict[str, Any]:
        check_admin(token)
        return admin.summary(store, ds)

    app.state.store = store
    return app
