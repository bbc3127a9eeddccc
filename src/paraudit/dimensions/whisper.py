"""Whisper vs voiced: a whispered request calls for a discreet reply.

Offline, two renderers: Piper speech whose voice source is replaced by noise (the voiced
reading's smoothed spectral envelope over white noise: the same words, formants and timing with
no vocal-fold vibration), and espeak-ng's own whisper variants beside its voiced ones.
"""

from __future__ import annotations

from paraudit.dimensions.base import Dimension, Questions, Value, Words

DIMENSION = Dimension(
    name="whisper",
    values=(
        Value("voiced", "spoken in a normal voice"),
        Value("whispered", "whispered: no voice, only breath noise, and quieter"),
    ),
    item_kinds=("single-turn", "positional"),
    words=Words(
        noun="whisper",
        attribute="whether the user whispers",
        does_not_hear="does not hear that the user whispers",
        value_phrase="when the user speaks {value}",
        listen_question="Which response fits the way the user said it, whispered or aloud?",
        listen_for="whether the user whispers or speaks aloud",
    ),
    questions=Questions(
        perception=(
            "Listen to how the speaker talks, not to what they say. Is the speech {options}? "
            "Answer with one of: {options}."
        ),
        annotation="[the user says this {value}]",
        misleading="The user's speech is *{value}*; focus on that when making your decision.\n",
        cues={
            "soft": (
                "Focus on whether the user whispers or speaks aloud when making your decision.\n"
            ),
            "hard": (
                "Focus *only* on whether the user whispers or speaks aloud, and not on what "
                "the words say, when making your decision.\n"
            ),
        },
        described="a note in square brackets on whether the user whispered it",
    ),
    renderer="paraudit.render.whisper:render",
    qc="paraudit.qc.whisper:check",
    needs=("tts", "espeak"),
    hosted_instructions={
        "voiced": "Speak in a normal, clear conversational voice.",
        "whispered": "Whisper the whole sentence, with no voice at all, quietly, as if others "
        "must not hear.",
    },
    compose_prompt=(
        "Write one thing a user might say to a voice assistant that could be said aloud or "
        "whispered with exactly the same words. Then write two assistant replies: one right "
        "when the user whispers (discreet: short, offers to continue by text or later, does not "
        "read anything private aloud) and wrong when they speak aloud; and one right when they "
        "speak aloud (a full spoken answer) and wrong when they whisper. Neither reply may "
        "mention whispering or volume."
    ),
    no_conflict=(
        "words that call for a whisper ('the baby is asleep') make the discreet reply right "
        "whichever voice says them, so the voice no longer decides the right response: such "
        "an item is a tie, not a conflict"
    ),
)
