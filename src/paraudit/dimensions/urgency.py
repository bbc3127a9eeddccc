"""Urgency / speaking rate: the same words said calmly or in a hurry.

Offline it is rendered as tempo, pauses, pitch level and loudness (Piper length scale, phrase
pauses, Praat PSOLA, gain): a *prosody-manipulated* urgency, not acted. Figures in the README
come from `benchmarks/dimensions.py`.
"""

from __future__ import annotations

from paraudit.dimensions.base import Dimension, Questions, Value, Words

DIMENSION = Dimension(
    name="urgency",
    values=(
        Value("calm", "unhurried: an even pace with a short pause at a phrase boundary"),
        Value(
            "urgent",
            "hurried: about 1.5 times the syllable rate of the calm reading, no pauses, "
            "a little higher and louder",
        ),
    ),
    item_kinds=("single-turn", "positional"),
    words=Words(
        noun="urgency",
        attribute="how urgently the user speaks",
        does_not_hear="does not hear how urgently the user speaks",
        value_phrase="when the user sounds {value}",
        listen_question="Which response fits how urgently the user speaks?",
        listen_for="how urgently the user speaks",
    ),
    questions=Questions(
        perception=(
            "Listen to how the speaker talks, not to what they say. Does the speaker sound "
            "{options}? Answer with one of: {options}."
        ),
        annotation="[the user sounds {value} saying this]",
        cues={
            "soft": "Focus on how urgently the user speaks when making your decision.\n",
            "hard": (
                "Focus *only* on how urgently the user speaks, and not on what the words say,"
                " when making your decision.\n"
            ),
        },
        described="a note in square brackets on how urgently the user said it",
    ),
    renderer="paraudit.render.urgency:render",
    qc="paraudit.qc.urgency:check",
    needs=("tts",),
    hosted_instructions={
        "calm": "Speak calmly and at an unhurried, even pace, with a brief natural pause.",
        "urgent": (
            "Speak urgently, as if something must be done right now: fast, with no pauses, "
            "slightly raised and tense, but not shouting."
        ),
    },
    compose_prompt=(
        "Write one thing a user might say to a voice assistant that could be said either calmly "
        "or urgently with exactly the same words. Then write two assistant replies: one right "
        "when the user is calm (thorough, unhurried, may ask a follow-up or offer options) and "
        "wrong when they are urgent; and one right when the user is urgent (the single most "
        "useful action first, brief, no small talk) and wrong when they are calm. Neither reply "
        "may mention speed, tone or urgency."
    ),
    words_carry={
        "calm": (
            "no rush",
            "no hurry",
            "take your time",
            "whenever you",
            "when you get a chance",
            "no pressure",
            "not urgent",
            "at some point",
            "in your own time",
        ),
        # Not bare 'hurry' or 'urgent': 'no hurry' and 'not urgent' carry calm.
        "urgent": (
            "right now",
            "immediately",
            "hurry up",
            "it's urgent",
            "this is urgent",
            "urgently",
            "asap",
            "as soon as possible",
            "right away",
            "this minute",
            "emergency",
        ),
    },
)
