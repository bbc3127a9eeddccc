"""builtin:drops-audio — a judge whose audio never arrives, reported the way a provider would.

It stands for the failures users keep reporting (a gateway or processor that drops `audio=`
and still answers with HTTP 200): each reply carries OpenAI-shaped usage with
`prompt_tokens_details.audio_tokens: 0` beside the seconds of audio that were sent, and the
answer is blind — a seeded pick from the prompt's *text* only, so both branches of an item
(same words, different audio) get the same answer. It exists to prove that the delivery
check (stats/delivery.py) fires: every call that sent audio is flagged.
"""

from __future__ import annotations

import random
from dataclasses import replace

from paraudit.judges.base import Reply
from paraudit.judges.builtin.common import BuiltinJudge, prompt_hash, reply_json
from paraudit.judges.sent_audio import sent_usage
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.protocols.questions import Question


class DropsAudioJudge(BuiltinJudge):
    def answer(self, prompt: Prompt, q: Question, sample: int) -> Reply:
        text_only = tuple(p for p in prompt if not isinstance(p, AudioPart))
        rng = random.Random(prompt_hash(text_only, sample, "drops-audio"))
        if q.answer == "turns":
            reply = reply_json("no audio", {k: rng.choice(["E1", "E2"]) for k in q.human_keys})
        elif q.answer == "matching":
            first = rng.choice(["R1", "R2"])
            reply = reply_json("no audio", {"CA": first, "CB": "R2" if first == "R1" else "R1"})
        else:
            reply = reply_json("no audio", rng.choice(["R1", "R2"]))
        text_tokens = sum(len(p.text) for p in text_only) // 4  # the usual 4 characters a token
        usage = {
            "prompt_tokens": text_tokens,
            "completion_tokens": len(reply.text) // 4,
            "prompt_tokens_details": {"audio_tokens": 0, "cached_tokens": 0},
            **sent_usage(prompt),
        }
        return replace(reply, usage=usage)
