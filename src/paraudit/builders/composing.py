"""Text composition for each builder: source record → prompt(s) → checked counterfactual text.

The result is a `Composed` pair in the generator's own A/B order; which side becomes branch 0
is decided later by a seeded coin. Every failure is a `Rejection` with a reason.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from paraudit.compose.llm import ComposerLLM, Message
from paraudit.compose.parse import (
    ParsedPair,
    Rejection,
    check_positional,
    parse_pair,
    parse_responses,
)
from paraudit.compose.prompts import (
    ASSISTANT_EMOTIONS,
    CONVERSATION_HUMAN,
    CONVERSATIONS,
    POSITIONAL,
    POSITIONAL_X,
    POSITIONAL_Y,
    REFINE,
    SINGLE_TURN_RESPONSE,
    nonempty_subsets,
    option_list,
)
from paraudit.items.records import Speaker, Turn
from paraudit.sources.emocf import SentencePair
from paraudit.sources.od3 import Dialogue, format_source

TASKS = {
    "single-turn": "single-turn-emotions",
    "positional": "positional-emotion",
    "conversations": "emotional-conversations",
}
ID_PREFIX = {"single-turn": "st", "positional": "pos", "conversations": "conv"}
# Human emotions Listing 1 lets the generator write (its list minus the assistant-only tone).
POSITIONAL_HUMAN = ("hesitant", "frazzled", "angry", "neutral", "sad", "happy")


@dataclass(frozen=True)
class Composed:
    """Counterfactual text for one source record, sides in the generator's A/B order."""

    key: str
    """Stable id part (pair hash or source sample id)."""
    context: tuple[Turn, ...]
    emotions: tuple[tuple[str, ...], tuple[str, ...]]
    """Emotion of every context turn, for side A and side B."""
    responses: tuple[tuple[str, str], tuple[str, str]]
    """(text, tone) of the final response for side A and side B."""
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Candidate:
    """One source record to try, with what its prompt will be."""

    key: str
    source_id: str
    group: str
    """Pair (single-turn) or corpus (multi-turn), for composition tables."""
    messages: tuple[Message, ...]
    """The first prompt (a refine pass adds a second turn)."""
    record: SentencePair | Dialogue
    options: dict[str, Any] = field(default_factory=dict)


def _rng(seed: int, key: str, what: str) -> random.Random:
    return random.Random(f"{seed}:{what}:{key}")


def single_turn_candidate(p: SentencePair) -> Candidate:
    prompt = SINGLE_TURN_RESPONSE.render(
        sentence=p.sentence, emoA=p.source_labels[0], emoB=p.source_labels[1]
    )
    return Candidate(p.key, p.key, p.pair, ({"role": "user", "content": prompt},), p)


def positional_candidate(d: Dialogue, seed: int) -> Candidate:
    rng = _rng(seed, d.id, "options")
    x = rng.choice(nonempty_subsets(POSITIONAL_X))
    y = rng.choice(nonempty_subsets(POSITIONAL_Y))
    prompt = POSITIONAL.render(
        x_options=option_list(x), y_options=option_list(y), source=format_source(d)
    )
    return Candidate(
        d.id,
        d.id,
        d.corpus_name,
        ({"role": "user", "content": prompt},),
        d,
        {"x_options": list(x), "y_options": list(y)},
    )


def conversations_candidate(d: Dialogue) -> Candidate:
    prompt = CONVERSATIONS.render(source=format_source(d))
    return Candidate(d.id, d.id, d.corpus_name, ({"role": "user", "content": prompt},), d)


def _from_pair(c: Candidate, pair: ParsedPair, meta: dict[str, Any]) -> Composed:
    context = tuple(Turn(speaker=t.speaker, text=t.text) for t in pair.a.context)
    return Composed(
        key=c.key,
        context=context,
        emotions=(
            tuple(t.emotion for t in pair.a.context),
            tuple(t.emotion for t in pair.b.context),
        ),
        responses=(
            (pair.a.response.text, pair.a.response.emotion),
            (pair.b.response.text, pair.b.response.emotion),
        ),
        meta=meta,
    )


def compose_single_turn(c: Candidate, llm: ComposerLLM, response_tone: str) -> Composed:
    p = c.record
    assert isinstance(p, SentencePair)
    reply = llm.chat(list(c.messages))
    ra, rb = parse_responses(reply, p.emotions)
    return Composed(
        key=c.key,
        context=(Turn(speaker="human", text=p.sentence),),
        emotions=((p.emotions[0],), (p.emotions[1],)),
        responses=((ra, response_tone), (rb, response_tone)),
        meta={"pair": p.pair, "source_labels": list(p.source_labels)},
    )


def compose_positional(c: Candidate, llm: ComposerLLM) -> Composed:
    reply = llm.chat(list(c.messages))
    pair = parse_pair(reply, POSITIONAL_HUMAN, ASSISTANT_EMOTIONS)
    x, y = tuple(c.options["x_options"]), tuple(c.options["y_options"])
    ka, kb = check_positional(pair, x, y)
    humans = [i for i, t in enumerate(pair.a.context) if t.speaker == "human"]
    return _from_pair(
        c,
        pair,
        {
            **c.options,
            "shift_turns_ab": [humans[ka], humans[kb]],
            "pair": f"{pair.human_emotions(0)[0]}->{pair.human_emotions(0)[-1]}",
        },
    )


def compose_conversations(c: Candidate, llm: ComposerLLM) -> Composed:
    first = llm.chat(list(c.messages))
    messages: list[Message] = [
        *c.messages,
        {"role": "assistant", "content": first},
        {"role": "user", "content": REFINE.render()},
    ]
    refined = llm.chat(messages)
    pair = parse_pair(refined, CONVERSATION_HUMAN, ASSISTANT_EMOTIONS)
    return _from_pair(c, pair, {"refined": True})


def composer_for(
    kind: str, llm: ComposerLLM, response_tone: str
) -> Callable[[Candidate], Composed]:
    if kind == "single-turn":
        return lambda c: compose_single_turn(c, llm, response_tone)
    if kind == "positional":
        return lambda c: compose_positional(c, llm)
    return lambda c: compose_conversations(c, llm)


def unrenderable(
    composed: Composed, can_voice: Callable[[Speaker, str], bool], *, human: bool
) -> None:
    """Reject text whose emotions the chosen TTS cannot render (named in the card)."""
    for side in (0, 1):
        for turn, emotion in zip(composed.context, composed.emotions[side], strict=True):
            if turn.speaker == "human" and not human:
                continue
            if not can_voice(turn.speaker, emotion):
                raise Rejection(
                    "unrenderable", f"the TTS cannot render {turn.speaker} emotion '{emotion}'"
                )
        text, tone = composed.responses[side]
        if not can_voice("assistant", tone):
            raise Rejection("unrenderable", f"the TTS cannot render assistant tone '{tone}'")


def calls_per_candidate(kind: str) -> int:
    return 2 if kind == "conversations" else 1
