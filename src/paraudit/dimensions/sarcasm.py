"""Sarcasm vs sincere: "That was really helpful" said and meant, or said and meaning the
opposite. Offline it is a *prosody-manipulated* sarcasm — the deadpan kind: slower, lower and
flatter than the sincere reading (Piper + PSOLA). Hosted TTS with these instructions renders
it acted where a key is given; the dataset card says which renderer made a set.
"""

from __future__ import annotations

from paraudit.dimensions.base import Dimension, Questions, Value, Words

DIMENSION = Dimension(
    name="sarcasm",
    values=(
        Value("sincere", "sincere: meant as said, with the voice's natural melody"),
        Value(
            "sarcastic",
            "sarcastic (deadpan): slower, about 2.5 semitones lower and with half the pitch "
            "range of the sincere reading, drawn out",
        ),
    ),
    item_kinds=("single-turn",),
    no_positional=(
        "sarcasm is a reading of one remark against its situation, not a lasting way of "
        "speaking: a user who 'turns sarcastic from turn k on' says each later line "
        "sarcastically for its own reason, so no one turn decides the right reply"
    ),
    words=Words(
        noun="sarcasm",
        attribute="whether the user means what they say",
        does_not_hear="does not hear that the user is sarcastic",
        value_phrase="when the user sounds {value}",
        listen_question="Which response fits whether the user means it or is sarcastic?",
        listen_for="whether the user means what they say",
    ),
    questions=Questions(
        perception=(
            "Listen to how the speaker talks, not to what they say. Does the speaker sound "
            "{options}? Answer with one of: {options}."
        ),
        annotation="[the user says this in a {value} way]",
        cues={
            "soft": "Focus on whether the user means what they say when making your decision.\n",
            "hard": (
                "Focus *only* on whether the user means what they say, and not on what the "
                "words say, when making your decision.\n"
            ),
        },
        described=(
            "a note in square brackets on whether the user said it sincerely or sarcastically"
        ),
    ),
    renderer="paraudit.render.sarcasm:render",
    qc="paraudit.qc.sarcasm:check",
    needs=("tts",),
    hosted_instructions={
        "sincere": "Say this sincerely and warmly, meaning every word.",
        "sarcastic": (
            "Say this sarcastically, meaning the opposite: a flat, drawn-out, deadpan delivery "
            "with a slightly lowered voice."
        ),
    },
    compose_prompt=(
        "Write one thing a user might say to a voice assistant that reads as praise or "
        "agreement but could be meant sincerely or sarcastically with exactly the same words "
        "(no 'oh great' or other words that only a sarcastic speaker would use). Then write "
        "two assistant replies: one right when the user is sincere (accepts the thanks or "
        "goes on as agreed) and wrong when they are sarcastic; and one right when they are "
        "sarcastic (acknowledges the problem and fixes it) and wrong when they are sincere. "
        "Neither reply may mention tone or sarcasm."
    ),
    # Sarcasm is itself a word–tone conflict: praise said deadpan. The words carry 'sincere'
    # when they press their thanks home, 'sarcastic' when they hold the stock phrases only a
    # sarcastic speaker tends to use (the ordinary starter texts avoid those).
    words_carry={
        "sincere": (
            "thank you so much",
            "i really appreciate",
            "i'm so grateful",
            "that means a lot",
            "from the bottom of my heart",
            "i truly mean it",
        ),
        "sarcastic": (
            "oh great",
            "oh wonderful",
            "oh perfect",
            "oh joy",
            "yeah right",
            "just what i needed",
            "thanks a lot",
            "big surprise",
            "lucky me",
            "what a treat",
        ),
    },
)
