"""builtin:random, builtin:first and builtin:transcript."""

from __future__ import annotations

import random
import re

from paraudit.judges.base import Reply
from paraudit.judges.builtin.common import BuiltinJudge, Question, prompt_hash, reply_json
from paraudit.protocols.parts import Prompt, prompt_text


class RandomJudge(BuiltinJudge):
    """Seeded coin flips: chance level for every probe."""

    def answer(self, prompt: Prompt, q: Question, sample: int) -> Reply:
        rng = random.Random(prompt_hash(prompt, sample, self.options.get("seed", "0")))
        if q.kind == "turns":
            return reply_json("random", {k: rng.choice(["E1", "E2"]) for k in q.human_keys})
        if q.kind == "matching":
            first = rng.choice(["R1", "R2"])
            return reply_json("random", {"CA": first, "CB": "R2" if first == "R1" else "R1"})
        return reply_json("random", rng.choice(["R1", "R2"]))


class FirstJudge(BuiltinJudge):
    """Always the first option: position bias made visible."""

    def answer(self, prompt: Prompt, q: Question, sample: int) -> Reply:
        if q.kind == "turns":
            return reply_json("always the first option", dict.fromkeys(q.human_keys, "E1"))
        if q.kind == "matching":
            return reply_json("always the first option", {"CA": "R1", "CB": "R2"})
        return reply_json("always the first option", "R1")


_WORD = re.compile(r"[a-z']+")


class TranscriptJudge(BuiltinJudge):
    """Reads only the transcript text, never audio or emotion labels: the lexical shortcut.

    It picks the response sharing the most words with the user's transcript (ties and prompts
    without a transcript fall back to a hash of the text parts). Both branches share the words,
    so on a valid item set it must sit at chance.
    """

    def answer(self, prompt: Prompt, q: Question, sample: int) -> Reply:
        text = prompt_text(prompt)
        user = " ".join(re.findall(r"transcript: (.*?)(?: emotion: [^\n]*)?$", text, re.M))
        responses = dict(re.findall(r"^(R[12]): (.*)$", text, re.M))
        words = set(_WORD.findall(user.lower()))
        # Hash only the text without emotion labels, so labels cannot leak in.
        tie = prompt_hash((), 0, re.sub(r" emotion: [^\n]*", "", text))[0] % 2
        if q.kind == "turns":
            return reply_json("no audio read", dict.fromkeys(q.human_keys, "E1"))
        if q.kind == "matching":
            first = "R1" if tie == 0 else "R2"
            return reply_json(
                "same words in both", {"CA": first, "CB": "R2" if first == "R1" else "R1"}
            )
        score = {k: len(words & set(_WORD.findall(v.lower()))) for k, v in responses.items()}
        if len(score) == 2 and score["R1"] != score["R2"]:
            return reply_json("more words in common", max(score, key=lambda k: score[k]))
        return reply_json("no lexical preference", "R1" if tie == 0 else "R2")
