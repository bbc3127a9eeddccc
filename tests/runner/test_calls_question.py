"""The structured question reaches only judges that ask for it; old signatures keep working."""

from __future__ import annotations

import asyncio
from typing import Any

from paraudit.judges.base import Judge, Reply
from paraudit.protocols.parts import Prompt, TextPart
from paraudit.protocols.questions import Question
from paraudit.runner.calls import RateLimiter, RetryPolicy, call_with_retries

PROMPT: Prompt = (TextPart("hello"),)
QUESTION = Question(
    "single-turn-emotions", "J", "pointwise", "none", "choice", {"R1": "", "R2": ""}
)


class OldStyle(Judge):
    """A third-party judge written before questions existed."""

    async def generate(self, prompt: Prompt, *, sample: int = 0) -> Reply:  # type: ignore[override]
        return Reply('{"pred": "R1"}')


class Reader(Judge):
    reads_question = True
    seen: list[Any] = []

    async def generate(
        self, prompt: Prompt, *, sample: int = 0, question: Question | None = None
    ) -> Reply:
        Reader.seen.append(question)
        return Reply('{"pred": "R2"}')


def _call(judge: Judge) -> str | None:
    out = asyncio.run(
        call_with_retries(judge, PROMPT, 0, RateLimiter(None), RetryPolicy(), 0.0, QUESTION)
    )
    assert out.status == "ok", out.reason
    return out.raw


def test_question_goes_only_to_judges_that_read_it() -> None:
    assert _call(OldStyle("old:x", {})) == '{"pred": "R1"}'
    Reader.seen = []
    assert _call(Reader("reader:x", {})) == '{"pred": "R2"}'
    assert Reader.seen == [QUESTION]
