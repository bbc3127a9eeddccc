"""builtin:random, builtin:first, builtin:transcript and builtin:abstain."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import soundfile as sf

from paraudit.judges.base import Reply
from paraudit.judges.builtin.common import BuiltinJudge, prompt_hash, reply_json
from paraudit.judges.spec import LOCAL_OPTIONS, JudgeSpec
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.protocols.questions import Question
from paraudit.qc.acoustics import clean_pitch

MIN_VOICED_FRAMES = 5
"""Voiced pitch frames (10 ms) a context clip needs to count as speech for ?hears=speech."""
RESPONSES = frozenset({"R1", "R2"})


class RandomJudge(BuiltinJudge):
    accepts = LOCAL_OPTIONS["builtin:random"]
    """Seeded coin flips: chance level for every probe."""

    def answer(self, prompt: Prompt, q: Question, sample: int) -> Reply:
        rng = random.Random(prompt_hash(prompt, sample, self.options.get("seed", "0")))
        if q.answer == "turns":
            return reply_json("random", {k: rng.choice(["E1", "E2"]) for k in q.human_keys})
        if q.answer == "matching":
            first = rng.choice(["R1", "R2"])
            return reply_json("random", {"CA": first, "CB": "R2" if first == "R1" else "R1"})
        return reply_json("random", rng.choice(["R1", "R2"]))


class FirstJudge(BuiltinJudge):
    """Always the first option: position bias made visible."""

    def answer(self, prompt: Prompt, q: Question, sample: int) -> Reply:
        if q.answer == "turns":
            return reply_json("always the first option", dict.fromkeys(q.human_keys, "E1"))
        if q.answer == "matching":
            return reply_json("always the first option", {"CA": "R1", "CB": "R2"})
        return reply_json("always the first option", "R1")


class AbstainJudge(FirstJudge):
    """Always "tie" where the question offers it (the ties preset, issue 32), the first option
    elsewhere: the judge that always abstains."""

    def answer(self, prompt: Prompt, q: Question, sample: int) -> Reply:
        if "tie" in q.options:
            return reply_json("cannot tell", "tie")
        return super().answer(prompt, q, sample)


_WORD = re.compile(r"[a-z']+")


def _sha_of(rel: str) -> str:
    """A dataset clip's sha256, from its content-addressed name (`audio/<sha256>.wav`)."""
    return rel.rsplit("/", 1)[-1].split(".")[0]


class TranscriptJudge(BuiltinJudge):
    """Reads only the transcript text, never audio or emotion labels: the lexical shortcut.

    It picks the response sharing the most words with the user's transcript (ties and questions
    without a transcript fall back to a hash of the words it reads). Both branches share the words,
    so on a valid item set it must sit at chance.

    A J question shows no words, only clips; `calibrate` gives it each clip's words from the
    dataset (a perfect speech recogniser, as for builtin:prosody), and the tie-break hashes the
    two responses' words too. Without them every J question of a cell would hash alike and get
    the same position (always R1): a deaf judge would read as position-biased. The responses'
    words are the same in both branches, both orders and under null audio (probe N keeps the
    responses), so the tie stays deaf to the audio and to the order.

    With `?hears=speech` it first checks that the context clips hold speech (Praat finds voiced
    frames in at least one) and, when none does (null audio: silence, speech-shaped noise),
    says it cannot hear anything instead of answering: the honest transcript reader.
    """

    accepts = LOCAL_OPTIONS["builtin:transcript"]

    def __init__(self, spec: str | JudgeSpec, options: dict[str, str] | None = None) -> None:
        super().__init__(spec, options)
        self.words: dict[str, str] = {}
        """clip sha256 → its transcript (from `calibrate`; unknown clips read as no words)."""
        self.checks_speech = self.judge_spec.options.get("hears") == "speech"
        self._voiced: dict[str, bool] = {}

    def calibrate(self, dataset: Any) -> None:
        for item in dataset.items:
            for br in item.branches:
                for turn, rel in zip(item.context, br.audio, strict=True):
                    self.words[_sha_of(rel)] = turn.text
                self.words[_sha_of(br.response.audio)] = br.response.text

    def _voiced_clip(self, part: AudioPart) -> bool:
        got = self._voiced.get(part.sha256)
        if got is None:
            x, rate = sf.read(str(part.path), dtype="float64", always_2d=True)
            _, f0 = clean_pitch(x.mean(axis=1), int(rate))
            got = self._voiced[part.sha256] = int(f0.size) >= MIN_VOICED_FRAMES
        return got

    def _hears_speech(self, prompt: Prompt, q: Question) -> bool:
        audio = [p for p in prompt if isinstance(p, AudioPart)]
        context = [a for role, a in zip(q.clips, audio, strict=True) if role.role not in RESPONSES]
        return not context or any(self._voiced_clip(a) for a in context)

    def answer(self, prompt: Prompt, q: Question, sample: int) -> Reply:
        if self.checks_speech and not self._hears_speech(prompt, q):
            return Reply("I can't hear anything in the audio: there is no speech to judge.")
        user = " ".join(t.transcript for t in q.context)
        responses = {k: v for k, v in q.options.items() if k in ("R1", "R2") and v}
        words = set(_WORD.findall(user.lower()))
        # Ties are broken by a hash of what it reads — never the emotion labels, so they
        # cannot leak in, and never the audio: only the response clips count, by their words,
        # sorted, so the two renderings of an item, the two orders of its responses and a
        # null-audio context (probe N replaces the context clips only) all hash alike.
        audio = [p for p in prompt if isinstance(p, AudioPart)]
        heard = sorted(
            self.words.get(a.sha256, "")
            for role, a in zip(q.clips, audio, strict=True)
            if role.role in RESPONSES
        )
        seen = [
            q.probe,
            q.protocol,
            q.cue,
            [(t.conversation, t.transcript) for t in q.context],
            *([heard] if any(heard) else []),
        ]
        tie = prompt_hash((), 0, json.dumps([*seen, responses], sort_keys=True))[0] % 2
        if q.answer == "turns":
            return reply_json("no audio read", dict.fromkeys(q.human_keys, "E1"))
        if q.answer == "matching":
            first = "R1" if tie == 0 else "R2"
            return reply_json(
                "same words in both", {"CA": first, "CB": "R2" if first == "R1" else "R1"}
            )
        score = {k: len(words & set(_WORD.findall(v.lower()))) for k, v in responses.items()}
        if len(score) == 2 and score["R1"] != score["R2"]:
            return reply_json("more words in common", max(score, key=lambda k: score[k]))
        return reply_json("no lexical preference", "R1" if tie == 0 else "R2")
