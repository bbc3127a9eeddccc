"""Emphasis: which word carries the sentence stress ("I didn't say SHE took it" against "I
didn't say she TOOK it"). The words are identical; only the stress moves.

An item names two focus words (their indices in the text). The first value stresses the first
focus word, the second value the second; the P question offers the two words themselves (an
item's `focus_words`, recorded by the renderer), not the value labels. Text may also carry the
two focus words marked as `*word*` (`marked`, `unmark`), for callers that pass text alone.
"""

from __future__ import annotations

import re

from paraudit.dimensions.base import Dimension, Questions, Value, Words

_MARK = re.compile(r"^\*(.+)\*([.,!?;:]*)$")


def marked(text: str, focus: tuple[int, int]) -> str:
    """`text` with the two focus words wrapped in asterisks."""
    words = text.split()
    for i in focus:
        core = words[i].rstrip(".,!?;:")
        words[i] = f"*{core}*{words[i][len(core) :]}"
    return " ".join(words)


def unmark(text: str) -> tuple[str, tuple[int, int] | None]:
    """(the words without marks, the marked word indices) — None when not exactly two."""
    words = text.split()
    focus: list[int] = []
    plain: list[str] = []
    for i, w in enumerate(words):
        m = _MARK.match(w)
        if m:
            focus.append(i)
            w = m.group(1) + m.group(2)
        plain.append(w)
    return " ".join(plain), (focus[0], focus[1]) if len(focus) == 2 else None


DIMENSION = Dimension(
    name="emphasis",
    values=(
        Value("stress-a", "the sentence stress falls on the item's first focus word"),
        Value("stress-b", "the sentence stress falls on the item's second focus word"),
    ),
    item_kinds=("single-turn",),
    no_positional=(
        "the contrast is which word of one sentence carries the stress, and each sentence "
        "stresses its own words: nothing carries over to the next turn, so there is no turn "
        "from which on the delivery has changed and stays changed"
    ),
    words=Words(
        noun="sentence stress",
        attribute="which word the user stresses",
        does_not_hear="does not hear which word is stressed",
        value_phrase="when {description}",
        listen_question="Which response fits the word the user stresses?",
        listen_for="which word the user stresses",
    ),
    questions=Questions(
        perception=(
            "Listen to the speaker. Which of these words does the speaker stress most: "
            "{options}? Answer with the word."
        ),
        annotation="[the user stresses the word '{value}']",
        misleading="The user stresses the word *{value}*; focus on that when making your "
        "decision.\n",
        cues={
            "soft": "Focus on which word the user stresses when making your decision.\n",
            "hard": (
                "Focus *only* on which word the user stresses, and not on what the words say,"
                " when making your decision.\n"
            ),
        },
        described="a note in square brackets naming the word the user stressed",
    ),
    renderer="paraudit.render.emphasis:render",
    qc="paraudit.qc.emphasis:check",
    needs=("espeak",),
    hosted_instructions={
        "stress-a": "Say the sentence naturally, putting strong contrastive stress on the word "
        "'{word}' and on no other word.",
        "stress-b": "Say the sentence naturally, putting strong contrastive stress on the word "
        "'{word}' and on no other word.",
    },
    compose_prompt=(
        "Write one sentence a user might say to a voice assistant whose meaning changes with "
        "which of two of its words is stressed, and name the two words. Then write two "
        "assistant replies: one right when the first word is stressed (it answers the contrast "
        "that stress implies) and wrong for the other stress; and one right for the second. "
        "Neither reply may repeat the sentence or mention stress."
    ),
    no_conflict=(
        "which word carries the stress is not something the words can say without spelling "
        "out the contrast ('the red one, not the blue one'), which names the right response "
        "outright: such an item tests reading, not the voice against the words"
    ),
)
