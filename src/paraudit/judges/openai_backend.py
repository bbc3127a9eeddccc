"""`openai:<model>[@<base_url>]` — OpenAI chat completions, and any OpenAI-compatible server.

Audio goes as `input_audio` content parts (base64 wav/mp3) interleaved with text in prompt
order; `?audio_part=audio_url` sends vLLM's `audio_url` data-URI form instead. The official SDK
makes the hosted API's requests; a server named by URL is spoken to over httpx2, the SDK
imported only to name a failure (judges.openai_http). Either way no transport retries: the
runner retries, honouring Retry-After.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from dataclasses import replace
from typing import Any

from paraudit.bounds import json_depth_problem
from paraudit.errors import MissingExtraError, ParauditError
from paraudit.judges.base import Capabilities, FatalJudgeError, Judge, JudgeError, Reply
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
from paraudit.judges.openai_http import OpenAIHTTP, sdk
from paraudit.judges.payloads import chat_body, encoded_clips, openai_content
from paraudit.judges.registry import Spec
from paraudit.judges.sent_audio import sent_usage
from paraudit.protocols.parts import Prompt
from paraudit.protocols.questions import Question
from paraudit.providers import openai_failure

AUDIO_PART_FORMS = ("input_audio", "audio_url")
DEFAULT_AUDIO_PART = "input_audio"
LISTING_ABSENT = (404, 405, 501)
"""Statuses of GET /models that mean "no listing here", not "no such model"."""


def make_openai(spec: str, s: Spec) -> OpenAIJudge:
    return OpenAIJudge(spec, s)


class OpenAIJudge(Judge):
    def __init__(self, spec: str, s: Spec) -> None:
        super().__init__(s, s.options)
        for module in ("openai", "httpx2"):  # asked without importing them (openai: 0.3 s)
            if importlib.util.find_spec(module) is None:
                raise MissingExtraError("judge backend 'openai'", "openai", module)
        self.model = s.model
        self.base_url = s.base_url
        note = model_note("openai", s.model, s.base_url)
        if note is not None:
            self.notes.append(note)  # accepted, but the user should know (runner prints it)
        self.decoding = Decoding.from_spec(s)
        self.joined = s.value("clips") == "joined"
        if self.joined:
            check_renderer()  # the markers' voice, loaded now: a missing extra is one line
        self.audio_part = s.options.get("audio_part", DEFAULT_AUDIO_PART)
        if self.audio_part not in AUDIO_PART_FORMS:
            raise ParauditError(f"audio_part must be one of {', '.join(AUDIO_PART_FORMS)}")
        seconds = s.number("max_audio_seconds")
        if seconds is not None:
            self.capabilities = Capabilities(max_audio_seconds=seconds)
        # A local OpenAI-compatible server usually needs no key; the hosted API always does.
        key = api_key(s, ("OPENAI_API_KEY",), optional=self.base_url is not None)
        self.secrets = (key,)
        timeout = s.number("timeout")
        seconds_allowed = 120.0 if timeout is None else timeout
        self.clips = encoded_clips()
        self.client: Any = None
        """The SDK's client, for the hosted API only."""
        self.http: OpenAIHTTP | None = None
        """The transport to a server named by URL."""
        if self.base_url is None:
            self.client = sdk().AsyncOpenAI(api_key=key, max_retries=0, timeout=seconds_allowed)
        else:
            self.http = OpenAIHTTP(self.base_url, key, seconds_allowed)

    def state(self) -> State:
        return {"defaults": {**Decoding.defaults(), "audio_part": DEFAULT_AUDIO_PART}}

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
        try:
            if self.http is None:
                await self.client.models.retrieve(self.model)
            else:
                await self._check_listing(self.http)
        except FatalJudgeError:
            raise
        except Exception as e:
            # The SDK is imported here for its error classes (on the URL path, only now).
            fatal = self._preflight_failure(sdk(), e)
            if fatal is None:
                raise
            raise fatal from None

    def _preflight_failure(self, o: Any, e: Exception) -> FatalJudgeError | None:
        """The start-up check's SDK error as one line, or None when it is not the SDK's."""
        where = self.base_url or "the OpenAI API"
        if isinstance(e, o.AuthenticationError | o.PermissionDeniedError):
            return FatalJudgeError(f"openai: authentication failed ({error_message(e)})")
        if isinstance(e, o.NotFoundError):
            return FatalJudgeError(f"openai: unknown model id '{self.model}'")
        if isinstance(e, o.APITimeoutError):
            return FatalJudgeError(
                f"openai: {where} is reachable but not answering (the start-up check timed "
                "out); check the server or raise --timeout"
            )
        if isinstance(e, o.APIConnectionError):
            return FatalJudgeError(f"openai: cannot reach {where} (is the server running?)")
        if isinstance(e, o.APIStatusError):
            return FatalJudgeError(
                f"openai: {where} answered the start-up check with HTTP {e.status_code} "
                f"({error_message(e)}); check the base URL and the server"
            )
        return None

    async def _check_listing(self, http: OpenAIHTTP) -> None:
        """An OpenAI-compatible server's model listing, read as advice: a server without one
        (some gateways and proxies) is audited with a note; a listing that lacks the model is
        an error."""
        try:
            listing = await http.get_json("/models")
            ids = [str(m["id"]) for m in listing["data"]]
        except (AttributeError, TypeError, ValueError, KeyError):
            # A 200 that is not a listing (an HTML page, a proxy's login form): the URL is
            # not an OpenAI-compatible API root.
            raise FatalJudgeError(
                f"{self.base_url}/models answered with something that is not a model listing "
                "(not OpenAI JSON); check the base URL (it usually ends in /v1)"
            ) from None
        except Exception as e:
            o = sdk()  # a failed request: the SDK named it
            if not isinstance(e, o.APIStatusError) or e.status_code not in LISTING_ABSENT:
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
        info = None
        if self.joined:
            prompt, info = await asyncio.to_thread(join_prompt, prompt)
        body, sent = self.body(prompt)
        try:
            # The request body is serialised here, once, with each clip's base64 spliced in
            # as it was encoded (payloads.chat_body), and goes straight to the transport:
            # chat.completions.create would walk every base64 clip through its typed-dict
            # transform, and a dict body through json.dumps, on every call.
            if self.http is not None:
                resp = await self.http.post("/chat/completions", body)
            else:
                resp = await self.client.post(
                    "/chat/completions",
                    content=body,
                    cast_to=str,  # the body as text: read below without building SDK models
                )
        except Exception as e:
            failure = openai_failure(sdk(), e)  # None: not the SDK's (a bug to surface)
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
    deep = json_depth_problem(body)
    if deep is not None:
        raise JudgeError(f"malformed response body ({deep})")
    try:
        data = json.loads(body)
        choices = data.get("choices") or []
        usage = data.get("usage") or {}
        first = choices[0] if choices else {}
        msg = first.get("message") or {}
        content = msg.get("content") or ""
        usage = checked_usage(dict(usage))
        content = capped_reply(str(content), usage)
        problem = data.get("error") if not choices else None
    except (ValueError, AttributeError, TypeError, KeyError, IndexError):
        raise JudgeError(
            f"malformed response body (not a chat completion: {body[:80]!r})"
        ) from None
    if problem:
        # Some gateways answer 200 with an error body ("quota exceeded"): that error is the
        # failure, not "no choices".
        detail = problem.get("message", problem) if isinstance(problem, dict) else problem
        raise JudgeError(f"the server answered 200 with an error: {str(detail)[:200]}")
    if not choices:
        # No answer at all is a failed call (retried, then an error row), not a refusal.
        raise JudgeError("empty response (the server returned no choices)")
    served = served_by(data)
    if msg.get("refusal"):
        return Reply(
            content,
            refused=str(msg["refusal"]),
            usage=usage,
            sent_audio_sha256=sent,
            served=served,
        )
    if first.get("finish_reason") == "content_filter":
        return Reply(
            content, refused="content filter", usage=usage, sent_audio_sha256=sent, served=served
        )
    return Reply(content, usage=usage, sent_audio_sha256=sent, served=served)


SERVED_FIELDS = ("model", "system_fingerprint")
"""What a chat completion says about who answered: a gateway may route a request for one model
to another, and only the reply's `model` field tells."""


def served_by(data: dict[str, Any]) -> dict[str, str] | None:
    """The reply's `model` and `system_fingerprint` (those it has, as text), or None."""
    found = {k: str(data[k]) for k in SERVED_FIELDS if data.get(k) not in (None, "")}
    return found or None
