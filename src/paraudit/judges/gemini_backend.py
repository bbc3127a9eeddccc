"""`gemini:<model>[@<base_url>]` — Gemini through the official `google-genai` SDK.

Audio goes as inline parts (the file's exact bytes) interleaved with text in prompt order; when
a request's audio would pass the inline request limit, the clips go through the Files API
instead (recorded per call). A safety block or an empty candidate becomes status `refused`
with its reason.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from paraudit.errors import MissingExtraError
from paraudit.judges.base import Capabilities, FatalJudgeError, Judge, Reply
from paraudit.judges.catalogue import model_note
from paraudit.judges.hosted import (
    Decoding,
    api_key,
    capped_reply,
    checked_usage,
    error_message,
    judge_failure,
    sdk_version,
)
from paraudit.judges.identity import State
from paraudit.judges.joining import check_renderer, join_prompt
from paraudit.judges.payloads import AudioPayload, payloads
from paraudit.judges.registry import Spec
from paraudit.judges.sent_audio import sent_usage
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.protocols.questions import Question
from paraudit.providers import gemini_failure

# Gemini's documented limit for a request with inline data is 20 MB; leave room for the text
# and base64 overhead.
INLINE_LIMIT_BYTES = 14 * 1024 * 1024


def make_gemini(spec: str, s: Spec) -> GeminiJudge:
    return GeminiJudge(spec, s)


class GeminiJudge(Judge):
    def __init__(self, spec: str, s: Spec) -> None:
        super().__init__(s, s.options)
        try:
            from google import genai
            from google.genai import errors, types
        except ImportError:
            raise MissingExtraError("judge backend 'gemini'", "gemini", "google-genai") from None
        self.model = s.model
        self.base_url = s.base_url
        note = model_note("gemini", s.model, s.base_url)
        if note is not None:
            self.notes.append(note)  # accepted, but the user should know (runner prints it)
        self.decoding = Decoding.from_spec(s)
        self.joined = s.value("clips") == "joined"
        if self.joined:
            check_renderer()  # the markers' voice, loaded now: a missing extra is one line
        self.inline_limit = int((s.number("inline_limit_mb") or 0) * 1024 * 1024) or (
            INLINE_LIMIT_BYTES
        )
        seconds = s.number("max_audio_seconds")
        if seconds is not None:
            self.capabilities = Capabilities(max_audio_seconds=seconds)
        key = api_key(s, ("GEMINI_API_KEY", "GOOGLE_API_KEY"))
        self.secrets = (key,)
        timeout = s.number("timeout")
        http = types.HttpOptions(
            base_url=self.base_url, timeout=int((120.0 if timeout is None else timeout) * 1000)
        )
        self._types, self._errors = types, errors
        self.client = genai.Client(api_key=key, http_options=http)
        self._uploaded: dict[str, Any] = {}
        self.clips = payloads()  # each clip read and hashed once, not once per call

    def state(self) -> State:
        return {"defaults": Decoding.defaults()}

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "sdk": f"google-genai {sdk_version('google-genai')}"}

    def _config(self) -> Any:
        d = self.decoding
        return self._types.GenerateContentConfig(
            temperature=d.temperature, top_p=d.top_p, seed=d.seed, max_output_tokens=d.max_tokens
        )

    async def _file_part(self, a: AudioPayload, part: AudioPart) -> Any:
        if a.sha256 not in self._uploaded:
            self._uploaded[a.sha256] = await self.client.aio.files.upload(
                file=str(part.path), config=self._types.UploadFileConfig(mime_type=a.mime)
            )
        f = self._uploaded[a.sha256]
        return self._types.Part.from_uri(file_uri=f.uri, mime_type=a.mime)

    async def contents(self, prompt: Prompt) -> tuple[list[Any], tuple[str, ...], bool]:
        t = self._types
        audio = {id(p): self.clips.get(p) for p in prompt if isinstance(p, AudioPart)}
        use_files = sum(len(a.data) for a in audio.values()) > self.inline_limit
        parts: list[Any] = []
        for p in prompt:
            if isinstance(p, AudioPart):
                a = audio[id(p)]
                parts.append(
                    await self._file_part(a, p)
                    if use_files
                    else t.Part.from_bytes(data=a.data, mime_type=a.mime)
                )
            else:
                parts.append(t.Part(text=p.text))
        sent = tuple(a.sha256 for a in audio.values())
        return [t.Content(role="user", parts=parts)], sent, use_files

    async def preflight(self) -> None:
        try:
            await self.client.aio.models.get(model=self.model)
        except self._errors.ClientError as e:
            if e.code in (401, 403):
                raise FatalJudgeError(
                    f"gemini: authentication failed ({error_message(e)})"
                ) from None
            if e.code == 404:
                raise FatalJudgeError(f"gemini: unknown model id '{self.model}'") from None
            raise FatalJudgeError(f"gemini: {error_message(e)}") from None
        except self._errors.APIError as e:
            raise FatalJudgeError(f"gemini: {error_message(e)}") from None
        except Exception as e:  # httpx connection errors and the like
            raise FatalJudgeError(
                f"gemini: cannot reach {self.base_url or 'the Gemini API'} ({type(e).__name__})"
            ) from None

    async def generate(
        self, prompt: Prompt, *, sample: int = 0, question: Question | None = None
    ) -> Reply:
        info = None
        if self.joined:
            prompt, info = await asyncio.to_thread(join_prompt, prompt)
        contents, sent, via_files = await self.contents(prompt)
        try:
            resp = await self.client.aio.models.generate_content(
                model=self.model, contents=contents, config=self._config()
            )
        except self._errors.APIError as e:
            failure = gemini_failure(self._errors, e)
            if failure is None:
                raise
            raise judge_failure(failure) from None
        # The seconds sent, beside the AUDIO tokens the provider counts (the delivery check).
        usage: dict[str, Any] = {"audio_via_files_api": via_files, **sent_usage(prompt)}
        if info is not None:
            usage["joined"] = info.as_usage()
        if resp.usage_metadata is not None:
            usage.update(checked_usage(resp.usage_metadata.model_dump(exclude_none=True)))
        # The model version Gemini says answered (`modelVersion`): an alias such as "-latest"
        # names a moving model, and only the reply says which one it was this time.
        version = getattr(resp, "model_version", None)
        reply = self._reply(resp, usage, sent)
        return replace(reply, served={"model": str(version)}) if version else reply

    def _reply(self, resp: Any, usage: dict[str, Any], sent: tuple[str, ...]) -> Reply:
        feedback = resp.prompt_feedback
        if feedback is not None and feedback.block_reason is not None:
            return Reply(
                "",
                refused=f"prompt blocked: {feedback.block_reason}",
                usage=usage,
                sent_audio_sha256=sent,
            )
        if not resp.candidates:
            return Reply(
                "", refused="empty response (no candidates)", usage=usage, sent_audio_sha256=sent
            )
        cand = resp.candidates[0]
        text = "".join(
            p.text or ""
            for p in (cand.content.parts if cand.content and cand.content.parts else [])
        )
        text = capped_reply(text, usage)
        reason = str(cand.finish_reason) if cand.finish_reason is not None else ""
        if "SAFETY" in reason or "PROHIBITED" in reason or "BLOCKLIST" in reason:
            return Reply(
                text, refused=f"finish reason {reason}", usage=usage, sent_audio_sha256=sent
            )
        if not text:
            return Reply(
                "",
                refused=f"empty candidate (finish reason {reason or 'none'})",
                usage=usage,
                sent_audio_sha256=sent,
            )
        return Reply(text, usage=usage, sent_audio_sha256=sent)
