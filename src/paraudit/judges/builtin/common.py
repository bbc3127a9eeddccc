"""What every builtin judge shares: reading the question kind, replying, test-harness options."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

from paraudit.judges.base import Judge, JudgeError, Reply
from paraudit.protocols.parts import AudioPart, Prompt, prompt_text


@dataclass(frozen=True)
class Question:
    kind: str
    """'choice', 'matching' or 'turns'."""
    human_keys: tuple[str, ...]
    """C[t] keys of the human turns (for 'turns')."""


def read_question(prompt: Prompt) -> Question:
    text = prompt_text(prompt)
    if '"C[t]": "E[1 or 2]"' in text:
        turns = re.findall(r"Conversation C turn (\d+) \(human\) clip", text)
        return Question("turns", tuple(f"C{t}" for t in turns))
    if '{"CA": "R1", "CB": "R2"} or {"CA": "R2", "CB": "R1"}' in text:
        return Question("matching", ())
    return Question("choice", ())


def reply_json(reasoning: str, pred: object) -> Reply:
    return Reply(json.dumps({"reasoning": reasoning, "pred": pred}))


def prompt_hash(prompt: Prompt, sample: int, salt: str = "") -> bytes:
    h = hashlib.sha256(f"{salt}|{sample}".encode())
    for p in prompt:
        h.update(p.sha256.encode() if isinstance(p, AudioPart) else p.text.encode())
    return h.digest()


class BuiltinJudge(Judge):
    """Options every builtin understands (they exist to exercise the runner):
    delay=SECONDS per call (waiting, as for a remote model); burn=SECONDS of busy CPU per call
    (computing, as for a local model); calllog=PATH appends one line per call made;
    fail_rate=F makes that share of prompts fail (JudgeError) on their first fail_times calls.
    """

    def __init__(self, spec: str, options: dict[str, str]) -> None:
        super().__init__(spec, options)
        self.delay = float(options.get("delay", 0))
        self.burn = float(options.get("burn", 0))
        self.calllog = options.get("calllog")
        self.fail_rate = float(options.get("fail_rate", 0))
        self.fail_times = int(options.get("fail_times", 1))
        self._failures: dict[bytes, int] = {}

    def params(self) -> dict[str, str]:
        # Harness options do not change answers, so they stay out of the cache key.
        harness = {"delay", "burn", "calllog", "fail_rate", "fail_times", "rpm", "tpm"}
        return {k: v for k, v in sorted(self.options.items()) if k not in harness}

    async def generate(self, prompt: Prompt, *, sample: int = 0) -> Reply:
        key = prompt_hash(prompt, sample)
        if self.calllog:
            with Path(self.calllog).open("a") as f:
                f.write(key.hex() + "\n")
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.burn:
            # A fixed amount of computation (CPU time of this thread, not wall time), holding
            # the GIL like model code: on a busy machine it takes longer, as real work would.
            end = time.thread_time() + self.burn
            while time.thread_time() < end:
                pass
        if self.fail_rate and key[0] / 256 < self.fail_rate:
            n = self._failures.get(key, 0)
            if n < self.fail_times:
                self._failures[key] = n + 1
                raise JudgeError("injected failure (fail_rate)", retry_after=0.01)
        return self.answer(prompt, read_question(prompt), sample)

    def answer(self, prompt: Prompt, q: Question, sample: int) -> Reply:
        raise NotImplementedError
