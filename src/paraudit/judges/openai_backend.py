"""`openai:<model>[@<base_url>]` — OpenAI chat completions, and any OpenAI-compatible server.

Audio goes as `input_audio` content parts (base64 wav/mp3) interleaved with text in prompt
order; `?audio_part=audio_url` sends vLLM's `audio_url` data-URI form instead. The official SDK
makes the request (its own retries are off: the runner retries, honouring Retry-After).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

from paraudit.errors import MissingExtraError, ParauditError
from paraudit.judges.base import Capabilities, FatalJudgeError, Judge, JudgeError, Reply
from paraudit.judges.catalogue import model_note
from paraudit.judges.hosted import (
    Decoding,
    api_key,
    capped_reply,
    error_message,
    judge_failure,
    other_params,
    sdk_version,
)
from paraudit.judges.joining import check_renderer, join_prompt
from paraudit.judges.payloads import chat_body, encoded_clips, openai_content
from paraudit.judges.registry import Spec
from paraudit.judges.sent_audio import sent_usage
from paraudit.protocols.parts import Prompt
from paraudit.protocols.questions import Question
from paraudit.providers import openai_failure

AUDIO_PART_FORMS = ("input_audio", "audio_url")
LISTING_ABSENT = (404, 405, 501)
"""Statuses of GET /models that mean "no listing here", not "no such model"."""


def make_openai(spec: str, s: Spec) -> OpenAIJudge:
    return OpenAIJudge(spec, s)


class OpenAIJudge(Judge):
    def __init__(self, spec: str, s: Spec) -> None:
        super().__init__(s, s.options)
        try:
            import openai
        except ImportError:
            raise MissingExtraError("judge backend 'openai'", "openai", "openai") from None
        self.model = s.model
        self.base_url = s.base_url
        note = model_note("openai", s.model, s.base_url)
        if note is not None:
            self.notes.append(note)  # accepted, but the user should know (runner prints it)
        self.decoding = Decoding.from_spec(s)
        self.joined = s.value("clips") == "joined"
        if self.joined:
            check_renderer()  # the markers' voice, loaded now: a missing extra is one line
        self.audio_part = s.options.get("audio_part", "input_audio")
        if self.audio_part not in AUDIO_PART_FORMS:
            raise ParauditError(f"audio_part must be one of {', '.join(AUDIO_PART_FORMS)}")
        seconds = s.number("max_audio_seconds")
        if seconds is not None:
            self.capabilities = Capabilities(max_audio_seconds=seconds)
        # A local OpenAI-compatible server usually needs no key; the hosted API always does.
        key = api_key(s, ("OPENAI_API_KEY",), optional=self.base_url is not None)
        self._openai = openai
        timeout = s.number("timeout")
        self.clips = encoded_clips()
        self.client = openai.AsyncOpenAI(
            api_key=key,
            base_url=self.base_url,
            max_retries=0,
            timeout=120.0 if timeout is None else timeout,
        )

    def params(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "base_url": self.base_url,
            "audio_part": self.audio_part,
            **self.decoding.as_dict(),
            **other_params(self.options, {"audio_part"}),
        }

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "sdk": f"openai {sdk_version('openai')}"}

    def messages(self, prompt: Prompt) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
        content, sent = openai_content(prompt, self.clips, self.audio_part)
        return [{"role": "user", "content": content}], sent

    def body(self, prompt: Prompt) -> tuple[bytes, tuple[str, ...]]:
        """The request body as sent (`messages` as JSON, with the decoding options)."""
        rest = {"modalities": ["text"], **self.decoding.as_dict()}
        return chat_body(self.model, prompt, self.clips, self.audio_part, rest)

    async def preflight(self) -> None:
        o = self._openai
        where = self.base_url or "the OpenAI API"
        try:
            if self.base_url is None:
                await self.client.models.retrieve(self.model)
            else:
                await self._check_listing()
        except (o.AuthenticationError, o.PermissionDeniedError) as e:
            raise FatalJudgeError(f"openai: authentication failed ({error_message(e)})") from None
        except o.NotFoundError:
            raise FatalJudgeError(f"openai: unknown model id '{self.model}'") from None
        except o.APITimeoutError:
            raise FatalJudgeError(
                f"openai: {where} is reachable but not answering (the start-up check timed "
                "out); check the server or raise --timeout"
            ) from None
        except o.APIConnectionError:
            raise FatalJudgeError(
                f"openai: cannot reach {where} (is the server running?)"
            ) from None
        except o.APIStatusError as e:
            raise FatalJudgeError(
                f"openai: {where} answered the start-up check with HTTP {e.status_code} "
                f"({error_message(e)}); check the base URL and the server"
            ) from None

    async def _check_listing(self) -> None:
        """An OpenAI-compatible server's model listing, read as advice: a server without one
        (some gateways and proxies) is audited with a note; a listing that lacks the model is
        an error."""
        o = self._openai
        try:
            ids = [str(m.id) async for m in self.client.models.list()]
        except (AttributeError, TypeError, ValueError, KeyError):
            # A 200 that is not a listing (an HTML page, a proxy's login form): the URL is
            # not an OpenAI-compatible API root.
            raise FatalJudgeError(
                f"{self.base_url}/models answered with something that is not a model listing "
                "(not OpenAI JSON); check the base URL (it usually ends in /v1)"
            ) from None
        except o.APIStatusError as e:
            if e.status_code not in LISTING_ABSENT:
                raise
            self.notes.append(
                f"{self.base_url} serves no model listing (HTTP {e.status_code}); the check "
                f"that it serves '{self.model}' was skipped"
            )
            return
        if ids and self.model not in ids:
            raise FatalJudgeError(
                f"{self.base_url} does not serve model '{self.model}' "
                f"(it serves: {', '.join(ids[:10])})"
            )

    async def generate(
        self, prompt: Prompt, *, sample: int = 0, question: Question | None = None
    ) -> Reply:
        o = self._openai
        info = None
        if self.joined:
            prompt, info = await asyncio.to_thread(join_prompt, prompt)
        body, sent = self.body(prompt)
        try:
            # The request body is serialised here, once, with each clip's base64 spliced in
            # as it was encoded (payloads.chat_body), and goes straight to the SDK's
            # transport: chat.completions.create would walk every base64 clip through its
            # typed-dict transform, and a dict body through json.dumps, on every call.
            resp = await self.client.post(
                "/chat/completions",
                content=body,
                cast_to=str,  # the body as text: read below without building SDK models
            )
        except o.OpenAIError as e:
            failure = openai_failure(o, e)
            if failure is None:
                raise
            raise judge_failure(failure) from None
        reply = chat_reply(resp, sent)
        # The seconds sent, beside the provider's audio token count (the delivery check).
        extra = sent_usage(prompt)
        if info is not None:
            extra["joined"] = info.as_usage()
        return replace(reply, usage={**reply.usage, **extra}) if extra else reply


def chat_reply(body: str, sent: tuple[str, ...]) -> Reply:
    """A chat-completions response body → Reply (refusals and content filters as refused)."""
    try:
        data = json.loads(body)
        choices = data.get("choices") or []
        usage = data.get("usage") or {}
        first = choices[0] if choices else {}
        msg = first.get("message") or {}
        content = msg.get("content") or ""
        usage = dict(usage)
        content = capped_reply(str(content), usage)
    except (ValueError, AttributeError, TypeError, KeyError, IndexError):
        raise JudgeError(
            f"malformed response body (not a chat completion: {body[:80]!r})"
        ) from None
    if not choices:
        # No answer at all is a failed call (retried, then an error row), not a refusal.
        raise JudgeError("empty response (the server returned no choices)")
    if msg.get("refusal"):
        return Reply(content, refused=str(msg["refusal"]), usage=usage, sent_audio_sha256=sent)
    if first.get("finish_reason") == "content_filter":
        return Reply(content, refused="content filter", usage=usage, sent_audio_sha256=sent)
    return Reply(content, usage=usage, sent_audio_sha256=sent)
