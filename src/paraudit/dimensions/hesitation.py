"""Hesitation, silent only: pauses, phrase-final lengthening and a rising end — never inserted
fillers ("um", "uh"), which change the words and are a different condition, not a value."""

from __future__ import annotations

import re

from paraudit.dimensions.base import Dimension, Questions, Value, Words

FILLERS = ("um", "umm", "uh", "uhh", "uhm", "er", "erm", "hmm", "hm", "mm", "ah", "eh")
_FILLER_RE = re.compile(r"\b(" + "|".join(FILLERS) + r")\b", re.IGNORECASE)


def word_changing(text: str) -> str | None:
    """Why `text` cannot be a hesitation source (it needs or holds fillers), or None."""
    found = _FILLER_RE.findall(text)
    if found:
        return (
            f"the text holds the filler(s) {', '.join(repr(f) for f in found)}: fillers change "
            "the words, so the contrast would not be paralinguistic (remove them; hesitation "
            "is rendered silently, as pauses, lengthening and a rising end)"
        )
    return None


DIMENSION = Dimension(
    name="hesitation",
    values=(
        Value("fluent", "fluent: one even stretch of speech, a falling end"),
        Value(
            "hesitant",
            "hesitant: slower, two long silent pauses at phrase boundaries, the syllable before "
            "each pause drawn out, the end rising as if unsure; no fillers",
        ),
    ),
    item_kinds=("single-turn", "positional"),
    words=Words(
        noun="hesitation",
        attribute="whether the user speaks fluently or hesitantly",
        does_not_hear="does not hear that the user hesitates",
        value_phrase="when the user sounds {value}",
        listen_question="Which response fits how sure or hesitant the user sounds?",
        listen_for="whether the user speaks fluently or hesitates",
    ),
    questions=Questions(
        perception=(
            "Listen to how the speaker talks, not to what they say. Does the speaker sound "
            "{options}? Answer with one of: {options}."
        ),
        annotation="[the user says this in a {value} way]",
        cues={
            "soft": (
                "Focus on whether the user speaks fluently or hesitates when making your "
                "decision.\n"
            ),
            "hard": (
                "Focus *only* on whether the user speaks fluently or hesitates, and not on "
                "what the words say, when making your decision.\n"
            ),
        },
        described="a note in square brackets on whether the user said it fluently or hesitantly",
    ),
    renderer="paraudit.render.hesitation:render",
    qc="paraudit.qc.hesitation:check",
    needs=("tts",),
    hosted_instructions={
        "fluent": "Speak fluently and confidently, in one even flow, with a falling end.",
        "hesitant": (
            "Speak hesitantly and unsure: slow down, leave two long silent pauses, draw out the "
            "word before each pause and let the end rise. Do not add 'um', 'uh' or any word."
        ),
    },
    compose_prompt=(
        "Write one thing a user might say to a voice assistant, with no fillers ('um', 'uh'), "
        "that could be said fluently and sure or hesitantly and unsure with exactly the same "
        "words. Then write two assistant replies: one right when the user is sure (acts on the "
        "request directly) and wrong when they hesitate; and one right when the user hesitates "
        "(checks gently whether this is what they want, offers to slow down or explain) and "
        "wrong when they are sure. Neither reply may mention how the user sounded."
    ),
    no_conflict=(
        "the words that carry hesitation are fillers and hedges ('um', 'I'm not sure'): "
        "fillers change the words (refused for every starter text), and a hedged request "
        "makes the gentle check-in right whichever voice says it, so the voice no longer "
        "decides the right response"
    ),
)
