"""The acoustic built-in judge of a dimension other than emotion: measure → value → response.

One `ListenerJudge` answers every probe for one dimension through its `Listener`, which says
three things in the dimension's terms:

1. `measure`: the figures it reads from a clip — the dimension's own QC figures
   (qc/dimension_measures.py and qc/NAME.py), measured on the clip the prompt carries;
2. `lean`: how far those figures lie towards the dimension's marked value (urgent, whispered,
   sarcastic, hesitant) rather than its reference value (calm, voiced, sincere, fluent),
   against the midpoint of the QC rule's bounds or the dataset's mean of the figure (found in
   `calibrate` over every human clip, never reading a label);
3. `fit`: how well a response's words suit a value (a small cue-word lexicon per dimension).

It hears no words: where it needs a clip's transcript (a syllable rate, which response a clip
is) it takes the dataset's own transcript, a perfect speech recogniser, as builtin:prosody
does. It never reads an item's labels, ids, QC figures or renderer metadata: a clip it has not
measured is measured afresh, so a swapped or null clip is heard as what it is.

`?words=follow` (issue 32), for a dimension whose words can carry a value
(`Dimension.words_carry`: sarcasm, urgency): on J it takes the value the user's words carry
by that lexicon (qc/conflict.lexicon_value) instead of measuring the clip, whenever they carry
exactly one: the words-follower of the known-behaviour suite for word–tone conflict items.
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from typing import Any

import numpy as np
import soundfile as sf

from paraudit.dimensions import registry
from paraudit.dimensions.base import Dimension, RenderedClip
from paraudit.errors import ParauditError
from paraudit.judges.base import Reply
from paraudit.judges.builtin.common import BuiltinJudge, reply_json
from paraudit.judges.spec import LOCAL_OPTIONS, JudgeSpec
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.protocols.questions import ClipRole, Question

Measures = dict[str, float]
_WORD = re.compile(r"[a-z']+")


def words_of(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def count(words: list[str], lexicon: frozenset[str]) -> int:
    return sum(w in lexicon for w in words)


class Listener(ABC):
    """What one dimension's acoustic judge measures and how it maps a value to a response."""

    dimension: str
    """The dimension it listens for (a `paraudit dimensions` name)."""
    finds_changes: bool = True
    """Whether it answers positional J by the turn where `lean` changes (False: a listener
    without a lean, emphasis, maps each conversation's last human turn as single-turn)."""

    @abstractmethod
    def measure(self, clip: RenderedClip, text: str) -> Measures:
        """The figures this listener reads from one clip of `text`."""

    def lean(self, m: Measures, mean: Measures) -> float:
        """> 0: the clip sounds like the marked value (the dimension's second); < 0: the
        reference value. `mean`: each figure's mean over the dataset's human clips."""
        raise NotImplementedError

    @abstractmethod
    def fit(self, response: str, value: str, heard: str) -> float:
        """How well `response` suits the user's `value` (the larger, the better), for the
        words `heard`. Emphasis passes the stressed word as the value."""

    def choose(self, m: Measures, mean: Measures, options: dict[str, str], text: str) -> str:
        """P: the option label (R1/R2, E1/E2) whose value the clip carries."""
        want = self.perceive(m, mean, text)
        # An option list without the value heard (not this dimension's values): the first.
        return next((k for k, v in options.items() if v == want), next(iter(options)))

    def perceive(self, m: Measures, mean: Measures, text: str) -> str:
        """J: the value heard in a context clip, with no options offered."""
        return self.values[1] if self.lean(m, mean) > 0 else self.values[0]

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.spec.values)

    @property
    def spec(self) -> Dimension:
        return registry.get(self.dimension)


class ListenerJudge(BuiltinJudge):
    """A built-in judge that hears one dimension (builtin:whisper, builtin:urgency, …)."""

    def __init__(
        self, listener: Listener, spec: str | JudgeSpec, options: dict[str, str] | None = None
    ) -> None:
        super().__init__(spec, options)
        self.listener = listener
        self.transcripts: dict[str, str] = {}
        """clip sha256 → the words it carries (the perfect recogniser)."""
        self._measures: dict[str, Measures] = {}
        self.mean: Measures = {}
        self.accepts = LOCAL_OPTIONS.get(f"builtin:{listener.dimension}", self.accepts)
        words = self.judge_spec.options.get("words", "ignore")
        if words not in ("follow", "ignore"):
            raise ParauditError(f"{self.judge_spec.head} ?words= takes follow or ignore "
                                f"(got {words!r})")  # fmt: skip
        self.follows_words = words == "follow"

    # -- calibration --------------------------------------------------------------------
    def calibrate(self, dataset: Any) -> None:
        human: list[str] = []
        for item in dataset.items:
            for br in item.branches:
                for turn, rel in zip(item.context, br.audio, strict=True):
                    sha = _sha(rel)
                    self.transcripts[sha] = turn.text
                    if turn.speaker == "human":
                        human.append(sha)
                        self._measure(AudioPart(dataset.audio_path(rel), sha))
                self.transcripts[_sha(br.response.audio)] = br.response.text
        seen = [self._measures[s] for s in dict.fromkeys(human)]
        # Each figure every clip has (emphasis's per-word figures differ between sentences).
        shared = set.intersection(*(set(m) for m in seen)) if seen else set()
        self.mean = {k: float(np.mean([m[k] for m in seen])) for k in sorted(shared)}

    def _measure(self, part: AudioPart) -> Measures:
        got = self._measures.get(part.sha256)
        if got is None:
            x, rate = sf.read(str(part.path), dtype="float32", always_2d=True)
            clip = RenderedClip(x.mean(axis=1), int(rate), {"text": self._text(part)})
            got = self._measures[part.sha256] = self.listener.measure(clip, self._text(part))
        return got

    def _text(self, part: AudioPart) -> str:
        # A clip whose words are unknown (made outside the dataset) counts as one syllable.
        return self.transcripts.get(part.sha256, "x")

    # -- answering ----------------------------------------------------------------------
    def answer(self, prompt: Prompt, q: Question, sample: int) -> Reply:
        audio = [p for p in prompt if isinstance(p, AudioPart)]
        clips = list(zip(q.clips, audio, strict=True))
        if q.probe == "P":
            return self._perceive(q, clips)
        if not clips:
            return self._from_text(q)
        return self._judge(q, clips)

    def _perceive(self, q: Question, clips: list[tuple[ClipRole, AudioPart]]) -> Reply:
        ear = self.listener
        if q.answer == "turns":
            pred = {
                f"C{role.turn}": ear.choose(self._measure(a), self.mean, q.options, self._text(a))
                for role, a in clips
                if role.role == "C" and role.speaker == "human"
            }
            return reply_json(f"{ear.dimension} heard per human turn", pred)
        clip = next(a for role, a in clips if role.role == "C")
        pick = ear.choose(self._measure(clip), self.mean, q.options, self._text(clip))
        return reply_json(f"{ear.dimension}: sounds {q.options[pick]}", pick)

    def _heard(self, a: AudioPart) -> str:
        if self.follows_words:
            from paraudit.qc.conflict import lexicon_value

            read = lexicon_value(self._text(a), self.listener.spec.words_carry)
            if len(read) == 1:
                return read[0]
        return self.listener.perceive(self._measure(a), self.mean, self._text(a))

    def _judge(self, q: Question, clips: list[tuple[ClipRole, AudioPart]]) -> Reply:
        by_role = {role.role: a for role, a in clips}
        responses: dict[str, str] = {
            k: self._text(by_role[k]) for k in ("R1", "R2") if k in by_role
        }
        if q.multi_turn and self.listener.finds_changes:
            return self._by_shift(q, clips, responses)
        # Each conversation's last human clip (single-turn: the only one) decides.
        last: dict[str, AudioPart] = {}
        for role, a in clips:
            if role.role not in ("R1", "R2") and role.speaker == "human":
                last[role.role] = a
        heard = {c: (self._heard(a), self._text(a)) for c, a in last.items()}
        return self._map(q, heard, responses, "heard")

    def _by_shift(
        self, q: Question, clips: list[tuple[ClipRole, AudioPart]], responses: dict[str, str]
    ) -> Reply:
        """Positional J: per conversation, the human turn where the clips' lean towards the
        marked value rises most (a change point, as builtin:prosody finds a mood shift), and
        the response that takes up most of that turn's words."""
        turns: dict[str, list[AudioPart]] = {}
        for role, a in clips:
            if role.role not in ("R1", "R2") and role.speaker == "human":
                turns.setdefault(role.role, []).append(a)
        said = {}
        for conv, parts in turns.items():
            lean = [self.listener.lean(self._measure(a), self.mean) for a in parts]
            said[conv] = self._text(parts[change_point(lean)])
        return self._map_shift(q, said, responses, "heard the change at")

    def _map_shift(
        self, q: Question, said: dict[str, str], responses: dict[str, str], how: str
    ) -> Reply:
        s = {(c, r): shared_words(said[c], responses[r]) for c in said for r in responses}
        if q.answer == "matching":
            keep = s[("CA", "R1")] + s[("CB", "R2")] >= s[("CA", "R2")] + s[("CB", "R1")]
            pred = {"CA": "R1", "CB": "R2"} if keep else {"CA": "R2", "CB": "R1"}
            return reply_json(f"{how} {[said[c] for c in ('CA', 'CB')]}", pred)
        pick = "R1" if s[("C", "R1")] >= s[("C", "R2")] else "R2"
        return reply_json(f"{how} {said['C']!r}", pick)

    def _from_text(self, q: Question) -> Reply:
        """O and S (the value is written beside the words), T (no value: a fixed answer)."""
        if all(t.emotion is None for t in q.context):
            return reply_json("no value given", "R1")
        if q.multi_turn:  # the first human turn whose value differs from the first's
            said_at: dict[str, str] = {}
            first: dict[str, str | None] = {}
            for t in q.context:
                if t.speaker != "human":
                    continue
                if t.conversation not in first:
                    first[t.conversation] = t.emotion
                    said_at[t.conversation] = t.transcript  # no change: its first turn
                elif t.emotion != first[t.conversation] and first[t.conversation] is not None:
                    said_at[t.conversation] = t.transcript
                    first[t.conversation] = None  # found: later turns do not move it
            shown = {k: q.options[k] for k in ("R1", "R2")}
            return self._map_shift(q, said_at, shown, "told the change at")
        said: dict[str, tuple[str, str]] = {}
        for t in q.context:
            if t.speaker == "human" and t.emotion is not None:
                said[t.conversation] = (t.emotion, t.transcript)  # the last human turn wins
        responses: dict[str, str] = {k: q.options[k] for k in ("R1", "R2")}
        return self._map(q, said, responses, "told")

    def _map(
        self,
        q: Question,
        heard: dict[str, tuple[str, str]],
        responses: dict[str, str],
        how: str,
    ) -> Reply:
        fit = self.listener.fit
        if q.answer == "matching":
            s = {(c, r): fit(responses[r], *heard[c]) for c in ("CA", "CB") for r in ("R1", "R2")}
            keep = s[("CA", "R1")] + s[("CB", "R2")] >= s[("CA", "R2")] + s[("CB", "R1")]
            pred = {"CA": "R1", "CB": "R2"} if keep else {"CA": "R2", "CB": "R1"}
            return reply_json(f"{how} {[heard[c][0] for c in ('CA', 'CB')]}", pred)
        value, text = heard["C"]
        scores = {r: fit(t, value, text) for r, t in responses.items()}
        pick = "R1" if scores["R1"] >= scores["R2"] else "R2"
        return reply_json(f"{how} {value}", pick)


def change_point(lean: list[float]) -> int:
    """The index k ≥ 1 where mean(lean[k:]) − mean(lean[:k]) is largest: the turn from which
    on the clips sound most like the marked value (the last turn when there is one turn)."""
    if len(lean) < 2:
        return len(lean) - 1
    gains = [float(np.mean(lean[k:]) - np.mean(lean[:k])) for k in range(1, len(lean))]
    return 1 + int(np.argmax(gains))


def _content(text: str) -> set[str]:
    # Words of four letters or more, cut to five: "invite" and "inviting" are one word here,
    # and "the", "and", "for" carry nothing about which turn a reply takes up.
    return {w[:5] for w in words_of(text) if len(w) >= 4}


def shared_words(turn: str, response: str) -> float:
    """How many of a turn's content words a response takes up (the shorter reply on a tie)."""
    return len(_content(turn) & _content(response)) - 0.001 * len(words_of(response))


def _sha(rel: str) -> str:
    return rel.rsplit("/", 1)[-1].split(".")[0]


def log_ratio(a: float, b: float) -> float:
    """log(a / b), 0 where either is not positive (a figure Praat could not measure)."""
    return math.log(a / b) if a > 0 and b > 0 else 0.0
