"""`vllm:<model>` — vLLM's offline engine for batch audits of open models (needs a GPU).

It reuses the OpenAI-style prompt conversion (audio as `audio_url` data URIs, the form vLLM's
chat API accepts), so a prompt reaches the model exactly as it would through `vllm serve`.
Calls are gathered into batches and handed to `LLM.chat` in a worker thread.
"""

from __future__ import annotations

import asyncio
from typing import Any

from paraudit.errors import MissingExtraError
from paraudit.judges.base import Capabilities, FatalJudgeError, Judge, Reply
from paraudit.judges.batching import Batcher
from paraudit.judges.hosted import Decoding, sdk_version
from paraudit.judges.identity import State
from paraudit.judges.joining import check_renderer, join_prompt
from paraudit.judges.payloads import ClipCache, EncodedClip, encoded_clips, openai_content
from paraudit.judges.registry import Spec
from paraudit.judges.sent_audio import sent_usage
from paraudit.judges.spec import LOCAL_OPTIONS
from paraudit.protocols.parts import Prompt
from paraudit.protocols.questions import Question

BATCH_WAIT_S = 0.05


def make_vllm(spec: str, s: Spec) -> VLLMJudge:
    return VLLMJudge(spec, s)


def llm_kwargs(model: str, options: dict[str, str], seed: int | None) -> dict[str, Any]:
    """Engine arguments: `limit_audio` (clips per prompt, vLLM's limit_mm_per_prompt; a
    positional pairwise prompt carries up to 16), and, when given, `max_model_len` and
    `gpu_memory_utilization`: they size the engine (KV cache) and change no answer, so they
    stay out of the cache key."""
    kwargs: dict[str, Any] = {
        "model": model,
        "limit_mm_per_prompt": {"audio": int(options.get("limit_audio", 16))},
        "seed": seed or 0,
    }
    if "max_model_len" in options:
        kwargs["max_model_len"] = int(options["max_model_len"])
    if "gpu_memory_utilization" in options:
        kwargs["gpu_memory_utilization"] = float(options["gpu_memory_utilization"])
    return kwargs


def vllm_messages(
    prompt: Prompt, clips: ClipCache[EncodedClip]
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    content, sent = openai_content(prompt, clips, "audio_url")
    return [{"role": "user", "content": content}], sent


def placeholder_usage(output: Any) -> dict[str, Any]:
    """The prompt's token count and the audio positions the engine reserved for it (vLLM's
    `multi_modal_placeholders`, where this vLLM reports them). An empty map is not read as
    "no audio": some vLLM versions leave it empty on every output, and a flag every vLLM judge
    trips would be a defect; such calls are not checked."""
    usage: dict[str, Any] = {}
    ids = getattr(output, "prompt_token_ids", None)
    if ids is not None:
        usage["prompt_tokens"] = len(ids)
    placeholders = getattr(output, "multi_modal_placeholders", None)
    if isinstance(placeholders, dict) and placeholders:
        ranges = placeholders.get("audio") or []
        usage["audio_features"] = sum(int(getattr(r, "length", 0)) for r in ranges)
    return usage


class VLLMJudge(Judge):
    accepts = LOCAL_OPTIONS["vllm"]

    def __init__(self, spec: str, s: Spec) -> None:
        super().__init__(s, s.options)
        try:
            import vllm  # noqa: F401
        except ImportError:
            raise MissingExtraError("judge backend 'vllm'", "vllm", "vllm") from None
        self.model_id = s.model
        self.decoding = Decoding.from_spec(s)
        batch_size, limit_audio = s.whole("batch_size"), s.whole("limit_audio")
        self.batch_size = 32 if batch_size is None else batch_size
        self.max_audio_parts = 16 if limit_audio is None else limit_audio
        # Prompts with more clips than the engine accepts are refused before any call.
        self.capabilities = Capabilities(max_audio_parts=self.max_audio_parts)
        self.joined = s.value("clips") == "joined"
        if self.joined:
            check_renderer()  # the markers' voice, loaded now: a missing extra is one line
        self.llm: Any = None
        self.batcher = Batcher(self._run, self.batch_size, BATCH_WAIT_S)
        self.clips = encoded_clips()

    def state(self) -> State:
        return {"defaults": Decoding.defaults()}

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            "sdk": f"vllm {sdk_version('vllm')}",
            "batch_size": self.batch_size,
        }

    async def preflight(self) -> None:
        def load() -> Any:
            from vllm import LLM

            return LLM(**llm_kwargs(self.model_id, self.options, self.decoding.seed))

        if self.llm is None:
            try:
                self.llm = await asyncio.to_thread(load)
            except Exception as e:  # vLLM's load errors run over many lines: the first says it
                first = (str(e).strip().splitlines() or [type(e).__name__])[0]
                raise FatalJudgeError(f"vllm: cannot load '{self.model_id}' ({first})") from None

    def _run(self, prompts: list[Prompt]) -> list[Reply]:
        from vllm import SamplingParams

        d = self.decoding
        params = SamplingParams(
            temperature=d.temperature, top_p=d.top_p or 1.0, seed=d.seed, max_tokens=d.max_tokens
        )
        joins = [join_prompt(p) if self.joined else (p, None) for p in prompts]
        convs, sent = zip(*(vllm_messages(p, self.clips) for p, _ in joins), strict=True)
        outs = self.llm.chat(list(convs), params, use_tqdm=False)
        replies = []
        for o, s, (p, info) in zip(outs, sent, joins, strict=True):
            usage: dict[str, Any] = {
                "completion_tokens": len(o.outputs[0].token_ids),
                **sent_usage(p),
                **placeholder_usage(o),
            }
            if info is not None:
                usage["joined"] = info.as_usage()
            replies.append(
                Reply(o.outputs[0].text, usage=usage, sent_audio_sha256=s, served=self.checkpoint)
            )
        return replies

    @property
    def checkpoint(self) -> dict[str, str]:
        """The checkpoint the engine loaded (its model path or id, and revision if pinned)."""
        engine = getattr(self.llm, "llm_engine", None)
        config = getattr(engine, "model_config", None)
        found = {"model": str(getattr(config, "model", None) or self.model_id)}
        revision = getattr(config, "revision", None)
        if revision:
            found["revision"] = str(revision)
        return found

    async def generate(
        self, prompt: Prompt, *, sample: int = 0, question: Question | None = None
    ) -> Reply:
        if self.llm is None:
            await self.preflight()
        return await self.batcher.submit(prompt)
