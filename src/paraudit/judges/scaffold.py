"""`scaffold:<judge spec>` — the repair the Staging probe suggests, as a judge of its own.

A Potemkin judge perceives the cue (P right) and maps it when told (O right) but fails to compose
the two in its native judgment (J wrong). This meta-judge composes them for it: for every J
question it first asks the wrapped judge the P question on the same audio, then the Staging
question (the O-style text question with the judge's *own* perceived emotions), and answers J
with that answer. It has its own label (`scaffold:…`), cache keys and rows, so every probe audits
it like any other judge; P, O, S and T questions pass straight to the wrapped judge (they are
the same model's perception and mapping).

The scaffold needs the dataset to turn a J prompt back into its item (the transcripts and the
two emotions P offers): it finds them in `calibrate`, by the clips the J prompt carries.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from paraudit.items.balance import unsupported_reason
from paraudit.items.dataset import Dataset
from paraudit.items.records import AuditItem
from paraudit.judges.base import FatalJudgeError, Judge, Reply
from paraudit.judges.identity import State
from paraudit.judges.registry import load_judge
from paraudit.judges.spec import JudgeSpec, parse_judge_spec
from paraudit.protocols.instances import Instance, p_instance, p_labels, text_instance
from paraudit.protocols.parsing import parse_answer
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.protocols.questions import Question

SCAFFOLD_VERSION = 1
"""Part of the judge's identity (its state), hence of every call key: a change to how the
scaffold asks is a different judge."""

Found = tuple[AuditItem, int | None, str, str | None]
"""(item, branch, order, context_order) of one J prompt."""


def make_scaffold(spec: str, s: JudgeSpec) -> ScaffoldJudge:
    return ScaffoldJudge(s)


def wrapped_spec(s: JudgeSpec) -> JudgeSpec:
    """The wrapped judge's spec: everything after `scaffold:` (its model, URL and options),
    reading its key from the variable the scaffold was told (`--api-key-env`)."""
    return parse_judge_spec(s.text.strip().partition(":")[2]).with_key_env(s.key_env)


def _stems(paths: tuple[str, ...]) -> tuple[str, ...]:
    # An AudioPart's sha256 is its dataset file's stem (the content hash).
    return tuple(p.rsplit("/", 1)[-1].rsplit(".", 1)[0] for p in paths)


def prompt_index(ds: Dataset) -> dict[tuple[str, ...], Found]:
    """Every J prompt's clip sequence (context clips, then R1 and R2) → where it comes from."""
    out: dict[tuple[str, ...], Found] = {}
    for item in ds.items:
        ctx = [_stems(b.audio) for b in item.branches]
        resp = {
            "ab": _stems((item.branches[0].response.audio, item.branches[1].response.audio)),
            "ba": _stems((item.branches[1].response.audio, item.branches[0].response.audio)),
        }
        for order, rs in resp.items():
            for b in (0, 1):
                out.setdefault((item.task, "pointwise", *ctx[b], *rs), (item, b, order, None))
            for co, (ca, cb) in (("ab", (0, 1)), ("ba", (1, 0))):
                key = (item.task, "pairwise", *ctx[ca], *ctx[cb], *rs)
                out.setdefault(key, (item, None, order, co))
    return out


class ScaffoldJudge(Judge):
    """Perceive → state in text → map, with the wrapped judge doing each step."""

    accepts = None  # the wrapped judge's own rules checked its options
    reads_question = True

    def __init__(self, s: JudgeSpec) -> None:
        super().__init__(s, s.options)
        self.inner: Judge = load_judge(wrapped_spec(s))
        self.capabilities = self.inner.capabilities
        self.index: dict[tuple[str, ...], Found] | None = None
        self.ds: Dataset | None = None
        self._perception: dict[tuple[Prompt, int], asyncio.Future[Reply]] = {}

    def state(self) -> State:
        # The wrapped judge's spec is this one's (after `scaffold:`); its state is not.
        return {"scaffold": SCAFFOLD_VERSION, "wrapped": self.inner.state()}

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "wrapped": self.inner.describe()}

    def calibrate(self, dataset: Any) -> None:
        self.inner.calibrate(dataset)
        self.ds, self.index = dataset, prompt_index(dataset)

    async def preflight(self) -> None:
        await self.inner.preflight()
        self.notes += self.inner.notes

    async def _inner(self, prompt: Prompt, sample: int, question: Question) -> Reply:
        if self.inner.reads_question:
            return await self.inner.generate(prompt, sample=sample, question=question)
        return await self.inner.generate(prompt, sample=sample)

    async def _perceive(self, inst: Instance, sample: int) -> tuple[Reply, bool]:
        """The wrapped judge's P answer, asked once per P prompt and sample (pointwise J asks
        both orders and pairwise J both branches: each reuses it). True when newly asked."""
        key = (inst.prompt, sample)
        if key in self._perception:
            return await self._perception[key], False
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._perception[key] = future
        try:
            reply = await self._inner(inst.prompt, sample, inst.question)
        except BaseException as e:
            del self._perception[key]  # a failed call is asked again on the retry
            future.set_exception(e)
            future.exception()
            raise
        future.set_result(reply)
        return reply, True

    def _find(self, prompt: Prompt, question: Question) -> Found:
        if self.index is None:
            raise FatalJudgeError(
                f"{self.label}: the scaffold needs the dataset (calibrate) to find each J "
                "question's item; run it through `paraudit run`"
            )
        clips = tuple(p.sha256 for p in prompt if isinstance(p, AudioPart))
        found = self.index.get((question.task, question.protocol, *clips))
        if found is None:
            raise FatalJudgeError(f"{self.label}: a J prompt whose clips are not in the dataset")
        return found

    async def generate(
        self, prompt: Prompt, *, sample: int = 0, question: Question | None = None
    ) -> Reply:
        if question is None or question.probe != "J":
            if question is None:
                return await self.inner.generate(prompt, sample=sample)
            return await self._inner(prompt, sample, question)
        item, branch, order, context_order = self._find(prompt, question)
        if (why := unsupported_reason(item)) is not None:
            return Reply("", refused=f"scaffold: no P question on this item ({why})")
        assert self.ds is not None
        branches = [branch] if branch is not None else [0, 1]
        staged: dict[int, tuple[str, ...]] = {}
        record: dict[str, Any] = {"calls": 0, "reused": 0, "p_raw": {}, "perceived": {}}
        # The provider's usage of every call this answer made (a reused P answer was paid for
        # by the answer that asked it), so a cost per answer can sum them.
        wrapped: list[dict[str, Any]] = []
        for b in branches:
            # P in the "ab" order, as the runner's Staging takes it when both orders ran.
            p = p_instance(self.ds, item, question.cue, "ab", b)
            reply, new = await self._perceive(p, sample)
            record["calls" if new else "reused"] += 1
            record["p_raw"][str(b)] = reply.text
            if new:
                wrapped.append(reply.usage)
            heard = self._read(f"P (branch {b})", p, reply, record)
            if isinstance(heard, Reply):
                return heard
            staged[b] = p_labels(p, heard, item.branches[b].emotions)
            record["perceived"][str(b)] = list(staged[b])
        s = text_instance(
            item, "S", question.protocol, question.cue, order, branch, staged, context_order
        )
        reply = await self._inner(s.prompt, sample, s.question)
        record["calls"] += 1
        record["s_raw"] = reply.text
        wrapped.append(reply.usage)
        mapped = self._read("Staging", s, reply, record)
        if isinstance(mapped, Reply):
            return mapped
        text = json.dumps({"reasoning": "scaffold: perceive, state, map", "pred": mapped})
        return Reply(text, usage={"scaffold": record, "wrapped": wrapped})

    @staticmethod
    def _read(
        step: str, inst: Instance, reply: Reply, record: dict[str, Any]
    ) -> str | dict[str, str] | Reply:
        """One step's parsed answer, or the J reply that says why there is none."""
        if reply.refused is not None:
            return Reply("", refused=f"scaffold {step}: {reply.refused}")
        parsed = parse_answer(inst.question, reply.text)
        if parsed.pred is not None:
            return parsed.pred
        # No label and no parser message in the text (either could be read as an answer):
        # the runner sees an unparsed J answer and may ask again (the next sample).
        usage = {"scaffold": {**record, "unparsed": step, "reason": parsed.reason}}
        return Reply(f"scaffold: the wrapped judge's {step} answer could not be read", usage=usage)
