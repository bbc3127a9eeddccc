"""Emotion, the first dimension: the paper's contrast (how the user feels), as data.

Everything the rest of the code read from `items/records.py` and `render/tts_styles.py` about
emotion lives here now; those modules keep their old names as aliases of these objects, so the
starter set, its audio bytes, the prompts and the call keys are what they were. The paper's
Appendix C prompts stay verbatim in `protocols/paper_prompts.py` (pinned by its test); the
`Questions` below quote the parts of them that name the dimension.

Rendering wraps the existing Piper + Praat PSOLA chain (`render/emotion.py`), and QC wraps the
Audio Scorer's per-emotion rules (`qc/emotion.py` → `qc/rules.py`).
"""

from __future__ import annotations

from paraudit.dimensions.base import Dimension, Questions, Value, Words

# Every emotion the offline renderer has a profile for (render/profiles.py), in the order the
# starter set has always used; the first, neutral, is the reference every QC is relative to.
HUMAN_EMOTIONS = ("neutral", "happy", "sad", "angry", "surprised", "frazzled", "hesitant")
ASSISTANT_EMOTIONS = ("neutral", "happy", "empathetic")
DEFAULT_VOCABULARY = tuple(dict.fromkeys(HUMAN_EMOTIONS + ASSISTANT_EMOTIONS))
# Emotions the builders and sources use beyond the starter profiles: the paper's conversation
# set (impatient), its Audio Scorer table (bored) and the EmoCF corpus (fearful, disgusted).
# Rendered only by a hosted TTS; QC'd by the Audio Scorer (SER-only for fearful and disgusted).
OTHER_HUMAN_EMOTIONS = ("impatient", "bored", "fearful", "disgusted")
# Other names for them: the paper's assistant label "apologetic/empathetic/reassuring", the
# source corpora's nouns and common synonyms. Shared by the TTS styles, the Piper profiles and
# the Audio Scorer's rules, so all three read an emotion the same way.
EMOTION_ALIASES = {
    "apologetic": "empathetic",
    "reassuring": "empathetic",
    "apologetic/empathetic/reassuring": "empathetic",
    "anger": "angry",
    "sadness": "sad",
    "joy": "happy",
    "surprise": "surprised",
    "fear": "fearful",
    "disgust": "disgusted",
    "hesistant": "hesitant",  # the paper's prompts spell it so
}

# emotion → (how to speak, extra cues used by the long-utterance template): what an expressive
# TTS is told (render/tts_styles.py). The paper did not publish its wording; these are ours.
TTS_STYLES: dict[str, tuple[str, str]] = {
    "neutral": (
        "Speak in a calm, neutral, matter-of-fact tone, at an even pace and pitch, with no "
        "particular emotion.",
        "Keep the same level tone to the very end; no excitement, no sadness, no emphasis.",
    ),
    "happy": (
        "Speak with genuine happiness: bright, warm and upbeat, smiling as you talk, with a "
        "lively pitch.",
        "Let the joy carry through every sentence; sound delighted, as if sharing good news.",
    ),
    "sad": (
        "Speak sadly: low, soft and slow, with a heavy, downcast voice and little energy.",
        "Sound close to tears all the way through; let the voice sink at the ends of phrases.",
    ),
    "angry": (
        "Speak angrily: loud, tense and forceful, with sharp emphasis and clear irritation.",
        "Stay furious from the first word to the last; bite off the words, do not soften.",
    ),
    "surprised": (
        "Speak with strong surprise: raised pitch, wide pitch swings and an astonished, "
        "disbelieving tone.",
        "Sound as if you just heard something unexpected; keep the astonishment throughout.",
    ),
    "frazzled": (
        "Speak in a frazzled, stressed way: fast, high-pitched and breathless, as if overwhelmed "
        "and rushing.",
        "Keep the panic rising; hurry through the words as if everything is going wrong at once.",
    ),
    "hesitant": (
        "Speak hesitantly: unsure and tentative, with pauses between phrases, and a rising, "
        "questioning pitch at the end.",
        "Pause noticeably before key words, as if searching for them, and end on a rising, "
        "uncertain note.",
    ),
    "impatient": (
        "Speak impatiently: quick and clipped, in a flat, curt tone, as if you have no time to "
        "wait.",
        "Keep rushing; sound fed up with waiting, without raising the pitch.",
    ),
    "bored": (
        "Speak in a bored, flat monotone: slow, low energy, as if nothing here interests you.",
        "Let every phrase trail off with no emphasis at all.",
    ),
    "fearful": (
        "Speak fearfully: tense, shaky and quiet, as if scared of what might happen.",
        "Keep a trembling, anxious quality in the voice throughout.",
    ),
    "disgusted": (
        "Speak with disgust: a repelled, contemptuous tone, drawing out words with distaste.",
        "Keep the revulsion audible throughout.",
    ),
    "empathetic": (
        "Speak as a warm, caring assistant: gentle, soft and reassuring, calm and unhurried, "
        "showing that you understand how the listener feels.",
        "Stay soothing and patient throughout; never sound cheerful or brisk.",
    ),
}

# Label sets of known sources → emotion values. EmoCF is Livingstone & Russo's 7 classes
# (sources/emocf.py reads it from here); the other two are the usual 6- and 4-class sets.
EMOCF_LABELS = {
    "anger": "angry",
    "disgust": "disgusted",
    "fear": "fearful",
    "joy": "happy",
    "sadness": "sad",
    "surprise": "surprised",
    "neutral": "neutral",
}
TAXONOMIES = {
    "emocf": EMOCF_LABELS,
    "ekman6": {
        "anger": "angry",
        "disgust": "disgusted",
        "fear": "fearful",
        "happiness": "happy",
        "sadness": "sad",
        "surprise": "surprised",
    },
    # IEMOCAP's four-class convention merges "excited" into happy.
    "iemocap4": {"neu": "neutral", "hap": "happy", "exc": "happy", "sad": "sad", "ang": "angry"},
}

_HUMAN = (*HUMAN_EMOTIONS, *OTHER_HUMAN_EMOTIONS)

# How words that carry each emotion read to a sentiment classifier (qc/conflict.py): a
# conflict item's words must read as its words' value does and unlike its conflict voice.
# Surprise is counted positive: the starter's conflict sentences pair it with good news
# (congruent) and with bad news (the conflict voice).
VALENCE = {
    "happy": "positive",
    "surprised": "positive",
    "neutral": "neutral",
    "hesitant": "neutral",
    **dict.fromkeys(
        ("sad", "angry", "frazzled", "impatient", "bored", "fearful", "disgusted"), "negative"
    ),
}

EMOTION = Dimension(
    name="emotion",
    summary="how the user feels (the paper's contrast), as a prosody manipulation offline",
    values=tuple(Value(e, TTS_STYLES[e][0]) for e in _HUMAN),
    item_kinds=("single-turn", "positional", "conversation"),
    tasks={
        "single-turn": "single-turn-emotions",
        "positional": "positional-emotion",
        "conversation": "emotional-conversations",
    },
    response_values=tuple(e for e in ASSISTANT_EMOTIONS if e not in _HUMAN),
    words=Words(
        noun="emotion",
        attribute="how the user feels",
        does_not_hear="does not hear how the user feels",
        value_phrase="when the user sounds {value}",
        # The listening app's heading as it has always read (annotate/static/listen.html).
        listen_question="Which response fits better?",
    ),
    questions=Questions(
        # The paper's single-turn P prompt (Appendix C.1.1) up to its cue and answer format.
        perception=(
            "You will hear audio clip C, and then be given the names of two emotions, R1 and R2. "
            "Your task: decide which emotion more accurately describes audio clip C."
        ),
        # How O and S write a turn's emotion after its transcript (protocols/instances.py).
        annotation="emotion: {value}",
    ),
    renderer="paraudit.render.emotion:render",
    qc="paraudit.qc.emotion:check",
    needs=("tts",),
    hosted_instructions={e: style for e, (style, _) in TTS_STYLES.items()},
    aliases=EMOTION_ALIASES,
    taxonomies=TAXONOMIES,
    valence=VALENCE,
)
