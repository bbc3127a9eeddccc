"""`openai:<model>[@<base_url>]` — OpenAI chat completions, and any OpenAI-compatible server.

Audio goes as `input_audio` content parts (base64 wav/mp3) interleaved with text in prompt
order; `?audio_part=audio_url` sends vLLM's `audio_url` data-URI form instead. The official SDK
makes the request (its own retries are off: the runner retries, honouring Retry-After).
"""

from __future__ import annotations

import os
from typing import Any

from paraudit.errors import MissingExtraError, ParauditError
from paraudit.judges.base import Capabilities, FatalJudgeError, Judge, JudgeError, Reply
from paraudit.judges.hosted import (
    Decoding,
    api_key,
    error_message,
    openai_content,
    other_params,
    retry_after,
    sdk_version,
)
from paraudit.judges.registry import Spec
from paraudit.protocols.parts import Prompt
from paraudit.protocols.questions import Question

AUDIO_PART_FORMS = ("input_audio", "audio_url")


def make_openai(spec: str, s: Spec) -> OpenAIJudge:
    return OpenAIJudge(spec, s)


class OpenAIJudge(Judge):
    def __init__(self, spec: str, s: Spec) -> None:
        super().__init__(spec, s.options)
        try:
            import openai
        except ImportError:
            raise MissingExtraError("judge backend 'openai'", "openai", "openai") from None
        self.model = s.model
        self.base_url = s.base_url
        self.decoding = Decoding.from_options(s.options)
        self.audio_part = s.options.get("audio_part", "input_audio")
        if self.audio_part not in AUDIO_PART_FORMS:
            raise ParauditError(f"audio_part must be one of {', '.join(AUDIO_PART_FORMS)}")
        if "max_audio_seconds" in s.options:
            self.capabilities = Capabilities(
                max_audio_seconds=float(s.options["max_audio_seconds"])
            )
        # A local OpenAI-compatible server usually needs no key; the hosted API always does.
        key = (
            api_key(s.options, ("OPENAI_API_KEY",), "openai")
            if self.base_url is None or "key_env" in s.options
            else (os.environ.get("OPENAI_API_KEY") or "EMPTY")
        )
        self._openai = openai
        self.client = openai.AsyncOpenAI(
            api_key=key,
            base_url=self.base_url,
            max_retries=0,
            timeout=float(s.options.get("timeout", 120)),
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
        content, sent = openai_content(prompt, self.audio_part)
        return [{"role": "user", "content": content}], sent

    async def preflight(self) -> None:
        o = self._openai
        try:
            if self.base_url is None:
                await self.client.models.retrieve(self.model)
            else:
                ids = [m.id async for m in self.client.models.list()]
                if ids and self.model not in ids:
                    raise FatalJudgeError(
                        f"{self.base_url} does not serve model '{self.model}' "
                        f"(it serves: {', '.join(ids[:10])})"
                    )
        except (o.AuthenticationError, o.PermissionDeniedError) as e:
            raise FatalJudgeError(f"openai: authentication failed ({error_message(e)})") from None
        except o.NotFoundError:
            raise FatalJudgeError(f"openai: unknown model id '{self.model}'") from None
        except (o.APIConnectionError, o.APITimeoutError):
            raise FatalJudgeError(
                f"openai: cannot reach {self.base_url or 'the OpenAI API'} (is the server running?)"
            ) from None

    async def generate(
        self, prompt: Prompt, *, sample: int = 0, question: Question | None = None
    ) -> Reply:
        o = self._openai
        messages, sent = self.messages(prompt)
        try:
            resp = await self.client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                modalities=["text"],
                **self.decoding.as_dict(),
            )
        except o.RateLimitError as e:
            raise JudgeError(f"429 rate limited: {error_message(e)}", retry_after(e)) from None
        except (o.AuthenticationError, o.PermissionDeniedError) as e:
            raise FatalJudgeError(f"openai: authentication failed ({error_message(e)})") from None
        except (o.BadRequestError, o.NotFoundError, o.UnprocessableEntityError) as e:
            raise FatalJudgeError(f"openai: request rejected ({error_message(e)})") from None
        except o.APIStatusError as e:
            raise JudgeError(f"HTTP {e.status_code}: {error_message(e)}", retry_after(e)) from None
        except (o.APIConnectionError, o.APITimeoutError) as e:
            raise JudgeError(f"connection: {error_message(e)}") from None
        usage = resp.usage.model_dump() if resp.usage is not None else {}
        if not resp.choices:
            return Reply(
                "", refused="empty response (no choices)", usage=usage, sent_audio_sha256=sent
            )
        msg = resp.choices[0].message
        if getattr(msg, "refusal", None):
            return Reply(
                msg.content or "", refused=str(msg.refusal), usage=usage, sent_audio_sha256=sent
            )
        if resp.choices[0].finish_reason == "content_filter":
            return Reply(
                msg.content or "", refused="content filter", usage=usage, sent_audio_sha256=sent
            )
        return Reply(msg.content or "", usage=usage, sent_audio_sha256=sent)
