"""`hf:<model id or local path>` — local audio chat models through `transformers`.

Qwen2-Audio-Instruct loads with its own class; everything else (Qwen2.5-Omni's thinker — text
output only — Voxtral, Phi-4-multimodal, Audio Flamingo, …) through AutoModelForMultimodalLM
and the processor's chat template. Calls are gathered into batches (left padding) and run in a
worker thread, so the event loop keeps feeding the model.

Audio conversion is explicit: clips are decoded with soundfile, mixed to mono by averaging
channels if needed, and resampled to the processor's feature-extractor rate with
scipy.signal.resample_poly; each call records what was done in its usage entry.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

import numpy as np
import soundfile as sf

from paraudit.errors import MissingExtraError
from paraudit.judges.base import FatalJudgeError, Judge, Reply
from paraudit.judges.batching import Batcher
from paraudit.judges.constrain import prefix_fn, trie_for
from paraudit.judges.hosted import sdk_version
from paraudit.judges.identity import State
from paraudit.judges.joining import check_renderer, join_prompt
from paraudit.judges.registry import Spec
from paraudit.judges.sent_audio import frame_usage, sent_usage
from paraudit.judges.spec import LOCAL_OPTIONS
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.protocols.questions import Question

BATCH_WAIT_S = 0.02
DTYPE, MAX_TOKENS, TEMPERATURE = "float32", 256, 0.0
"""What a spec without dtype, max_tokens or temperature runs with (greedy decoding): part of
the judge's declared state, so a changed default is a different judge."""


def make_hf(spec: str, s: Spec) -> HFJudge:
    return HFJudge(spec, s)


def load_audio(path: Any, rate: int) -> tuple[np.ndarray, str]:
    """Mono float32 at `rate`, and a note of any conversion made."""
    data, sr = sf.read(str(path), dtype="float32", always_2d=True)
    notes = []
    x = data[:, 0]
    if data.shape[1] > 1:
        x = data.mean(axis=1)
        notes.append(f"{data.shape[1]} channels averaged to mono")
    if sr != rate:
        from scipy.signal import resample_poly

        g = math.gcd(sr, rate)
        x = resample_poly(x, rate // g, sr // g).astype(np.float32)
        notes.append(f"{sr}→{rate} Hz (scipy.signal.resample_poly)")
    return x, "; ".join(notes)


class HFJudge(Judge):
    accepts = LOCAL_OPTIONS["hf"]

    def __init__(self, spec: str, s: Spec) -> None:
        super().__init__(s, s.options)
        for module, extra in (("torch", "hf"), ("transformers", "hf")):
            try:
                __import__(module)
            except ImportError:
                raise MissingExtraError("judge backend 'hf'", extra, module) from None
        self.model_id = s.model
        o = s.options
        self.device = o.get("device", "cpu")
        self.dtype = o.get("dtype", DTYPE)
        # Numbers typed when the spec was parsed.
        batch_size, max_tokens = s.whole("batch_size"), s.whole("max_tokens")
        self.batch_size = 4 if batch_size is None else batch_size
        self.max_new_tokens = MAX_TOKENS if max_tokens is None else max_tokens
        self.temperature = s.number("temperature") or TEMPERATURE
        self.seed = s.whole("seed")
        self.constrain = s.value("constrain") == "labels"
        self.joined = s.value("clips") == "joined"
        if self.joined:
            check_renderer()  # the markers' voice, loaded now: a missing extra is one line
        # Constrained decoding needs each question's labels (instance attribute: per judge).
        self.reads_question = self.constrain
        self._questions: dict[Prompt, Question] = {}
        self.model: Any = None
        self.processor: Any = None
        self.rate = 16000
        self.batcher = Batcher(self.generate_batch, self.batch_size, BATCH_WAIT_S)

    def state(self) -> State:
        return {"defaults": {"dtype": DTYPE, "max_tokens": MAX_TOKENS, "temperature": TEMPERATURE}}

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            "sdk": f"transformers {sdk_version('transformers')}, torch {sdk_version('torch')}",
            "device": self.device,
            "batch_size": self.batch_size,
            "audio_conversion": "soundfile decode, mono by channel mean, resample to the "
            "feature extractor's rate with scipy.signal.resample_poly",
        }

    # -- loading ------------------------------------------------------------------------
    def _load(self) -> None:
        import torch
        import transformers

        config = transformers.AutoConfig.from_pretrained(self.model_id)
        dtype = getattr(torch, self.dtype)
        cls: Any = (
            transformers.Qwen2AudioForConditionalGeneration
            if config.model_type == "qwen2_audio"
            else transformers.AutoModelForMultimodalLM
        )
        kwargs: dict[str, Any] = {"dtype": dtype}
        if self.device == "auto":
            kwargs["device_map"] = "auto"
        self.model = cls.from_pretrained(self.model_id, **kwargs)
        if self.device not in ("auto", "cpu"):
            self.model.to(self.device)
        self.model.eval()
        self.processor = transformers.AutoProcessor.from_pretrained(self.model_id)  # type: ignore[no-untyped-call]
        self.processor.tokenizer.padding_side = "left"
        fe = getattr(self.processor, "feature_extractor", None)
        self.rate = int(getattr(fe, "sampling_rate", 16000))

    async def preflight(self) -> None:
        if self.model is not None:
            return
        try:
            await asyncio.to_thread(self._load)
        except Exception as e:
            msg = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
            raise FatalJudgeError(f"hf: cannot load '{self.model_id}' ({msg})") from None

    # -- generation ---------------------------------------------------------------------
    def conversation(self, prompt: Prompt) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = []
        for p in prompt:
            if isinstance(p, AudioPart):
                content.append({"type": "audio", "audio_url": str(p.path), "audio": str(p.path)})
            else:
                content.append({"type": "text", "text": p.text})
        return [{"role": "user", "content": content}]

    def generate_batch(self, asked: list[Prompt]) -> list[Reply]:
        import torch

        # ?clips=joined: each prompt's clips as one (the questions stay keyed by the asked one).
        joins = [join_prompt(p) if self.joined else (p, None) for p in asked]
        prompts = [p for p, _ in joins]
        texts = [
            self.processor.apply_chat_template(
                self.conversation(p), tokenize=False, add_generation_prompt=True
            )
            for p in prompts
        ]
        audios: list[np.ndarray] = []
        notes: list[list[str]] = []
        clips: list[int] = []
        for p in prompts:
            mine = []
            n = 0
            for part in p:
                if isinstance(part, AudioPart):
                    x, note = load_audio(part.path, self.rate)
                    audios.append(x)
                    n += 1
                    if note:
                        mine.append(note)
            notes.append(sorted(set(mine)))
            clips.append(n)
        kwargs: dict[str, Any] = {"text": texts, "return_tensors": "pt", "padding": True}
        if audios:
            kwargs.update(audio=audios, sampling_rate=self.rate)
        inputs = self.processor(**kwargs).to(self.model.device)
        # What the processor made of the audio, per call (the delivery check: 0 frames = the
        # model answers blind, as when a processor ignores `audio=`).
        hop = getattr(getattr(self.processor, "feature_extractor", None), "hop_length", None)
        frames = frame_usage(inputs, clips, [len(a) for a in audios], hop)
        if self.seed is not None:
            torch.manual_seed(self.seed)
        gen = self.generation_kwargs()
        if self.constrain:
            end = self._end_token()
            tok = self.processor.tokenizer
            tries = [trie_for(self._questions[p], tok, end) for p in asked]
            gen["prefix_allowed_tokens_fn"] = prefix_fn(tries, inputs["input_ids"].shape[1])
            gen["max_new_tokens"] = max(t.longest for t in tries)  # nothing longer is valid
        with torch.inference_mode():
            out = self.model.generate(**inputs, **gen)
        new = out[:, inputs["input_ids"].shape[1] :]
        decoded = self.processor.batch_decode(new, skip_special_tokens=True)
        # Usage counts each call's own tokens, not the batch's padding, so it does not depend
        # on which calls happened to share a batch.
        prompt_tokens = inputs["attention_mask"].sum(dim=1).tolist()
        replies = []
        for text, n, p, row, (sent, info), heard in zip(
            decoded, notes, prompt_tokens, new, joins, frames, strict=True
        ):
            usage: dict[str, Any] = {
                "prompt_tokens": int(p),
                "completion_tokens": self._generated(row.tolist()),
                "batch": len(prompts),
                "audio_conversion": n,
                **sent_usage(sent),
                **heard,
            }
            if info is not None:
                usage["joined"] = info.as_usage()
            replies.append(Reply(text, usage=usage, served=self.checkpoint))
        return replies

    @property
    def checkpoint(self) -> dict[str, str]:
        """The checkpoint loaded: its path or hub id and, when the hub gave one, its commit
        (a hub id without a pinned revision loads whatever the cache holds)."""
        config = getattr(self.model, "config", None)
        found = {"model": str(getattr(config, "_name_or_path", None) or self.model_id)}
        commit = getattr(config, "_commit_hash", None)
        if commit:
            found["revision"] = str(commit)
        return found

    def generation_kwargs(self) -> dict[str, Any]:
        """Greedy unless a temperature above 0 is given. The full Qwen2.5-Omni model samples
        its thinker by default (its maintainers: scores do not reproduce unless
        `thinker_do_sample=False`), and reads that flag rather than `do_sample`."""
        sampling = self.temperature > 0
        gen: dict[str, Any] = {"max_new_tokens": self.max_new_tokens, "do_sample": sampling}
        if sampling:
            gen["temperature"] = self.temperature
        if hasattr(self.model, "thinker"):
            gen |= {"thinker_do_sample": sampling, "return_audio": False}
            if sampling:
                gen["thinker_temperature"] = self.temperature
        return gen

    def _end_token(self) -> int:
        eos = self.model.generation_config.eos_token_id
        if eos is None:
            eos = self.processor.tokenizer.eos_token_id
        return int(eos[0] if isinstance(eos, list) else eos)

    def _generated(self, tokens: list[int]) -> int:
        """Tokens the model generated for one call: up to its first end token (the rest of
        the row is padding to the batch's longest reply)."""
        eos = self.model.generation_config.eos_token_id
        ends = set(eos if isinstance(eos, list) else [eos]) if eos is not None else set()
        for i, t in enumerate(tokens):
            if t in ends:
                return i + 1
        return len(tokens)

    async def generate(
        self, prompt: Prompt, *, sample: int = 0, question: Question | None = None
    ) -> Reply:
        if self.model is None:
            await self.preflight()
        if self.constrain:
            if question is None:
                raise FatalJudgeError("hf: constrain=labels needs each call's question")
            self._questions[prompt] = question  # the same prompt always asks the same question
        return await self.batcher.submit(prompt)
