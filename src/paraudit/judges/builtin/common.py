"""What every builtin judge shares: answering from the structured question, test-harness options.

Built-in judges never parse the prompt's wording: they read the instance's `Question` (answer
kind, options, clip roles, text turns), so a reworded template cannot silently change them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from pathlib import Path

from paraudit.items.guard import guard_output
from paraudit.judges.base import BUILTIN_HOOKS, FatalJudgeError, Judge, JudgeError, Reply
from paraudit.judges.identity import State
from paraudit.judges.spec import JudgeSpec
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.protocols.questions import Question


def reply_json(reasoning: str, pred: object) -> Reply:
    return Reply(json.dumps({"reasoning": reasoning, "pred": pred}))


def prompt_hash(prompt: Prompt, sample: int, salt: str = "") -> bytes:
    h = hashlib.sha256(f"{salt}|{sample}".encode())
    for p in prompt:
        h.update(p.sha256.encode() if isinstance(p, AudioPart) else p.text.encode())
    return h.digest()


BUILTIN_VERSION = 1
"""Part of each built-in judge's identity (its state): a change to how one answers (its script,
its features) is a different judge, whose calls are asked again, not read from a store."""


class BuiltinJudge(Judge):
    accepts = BUILTIN_HOOKS
    """Options every builtin understands (they exist to exercise the runner):
    delay=SECONDS per call (waiting, as for a remote model); burn=SECONDS of busy CPU per call
    (computing, as for a local model); calllog=PATH appends one line per call made;
    fail_rate=F makes that share of prompts fail (JudgeError) on their first fail_times calls.
    """

    def __init__(self, spec: str | JudgeSpec, options: dict[str, str] | None = None) -> None:
        super().__init__(spec, options)
        js = self.judge_spec  # typed at parse time
        self.delay = js.number("delay") or 0.0
        self.burn = js.number("burn") or 0.0
        self.calllog = js.options.get("calllog")
        if self.calllog:
            # calllog=S/items.jsonl once appended the log to the dataset being audited.
            guard_output(Path(self.calllog), "calllog=")
        self.fail_rate = js.number("fail_rate") or 0.0
        fail_times = js.whole("fail_times")
        self.fail_times = 1 if fail_times is None else fail_times
        self._failures: dict[bytes, int] = {}

    reads_question = True

    def state(self) -> State:
        return {"builtin": BUILTIN_VERSION}

    def served(self) -> dict[str, str] | None:
        # A built-in judge answers itself: its name (backend and model, options aside) is
        # the model that answered.
        return {"model": self.judge_spec.head}

    async def generate(
        self, prompt: Prompt, *, sample: int = 0, question: Question | None = None
    ) -> Reply:
        if question is None:
            raise FatalJudgeError(
                f"{self.spec} answers from the instance's structured question; "
                "call it through the runner (or pass question=inst.question)"
            )
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
        return self.answer(prompt, question, sample)

    def answer(self, prompt: Prompt, q: Question, sample: int) -> Reply:
        raise NotImplementedError
