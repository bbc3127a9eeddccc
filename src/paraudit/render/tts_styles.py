"""What an expressive TTS is told about each emotion: instructions, prompt styles, a template.

The paper (B.2.3) prompts gpt-4o-mini-tts with "a natural-language description of the emotion"
and wraps long utterances in a template "that contains further emotional cues". Its wording was
not published; the texts below are ours. The transcript itself is always sent verbatim as the
text to speak: the template goes into the instructions, so the words heard are exactly the words
of the item (pairs must share their words).
"""

from __future__ import annotations

from paraudit.errors import ParauditError
from paraudit.items.records import EMOTION_ALIASES

# Words from which an utterance counts as long and gets the template with extra cues.
LONG_UTTERANCE_WORDS = 20

# emotion → (how to speak, extra cues used by the long-utterance template)
STYLES: dict[str, tuple[str, str]] = {
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
LONG_TEMPLATE = (
    "{style} This is a long utterance; the emotion must stay clear from the first word to the "
    "last. {cues} You are saying: «{text}»"
)


def style_key(emotion: str) -> str:
    key = EMOTION_ALIASES.get(emotion.lower(), emotion.lower())
    if key not in STYLES:
        known = ", ".join(sorted(STYLES))
        raise ParauditError(f"no TTS style for emotion '{emotion}' (known: {known})")
    return key


def is_long(text: str) -> bool:
    return len(text.split()) >= LONG_UTTERANCE_WORDS


def instructions_for(text: str, emotion: str) -> tuple[str, bool]:
    """The OpenAI `instructions` for `text` spoken with `emotion`, and whether the long template
    was used."""
    style, cues = STYLES[style_key(emotion)]
    if is_long(text):
        return LONG_TEMPLATE.format(style=style, cues=cues, text=text), True
    return style, False


def gemini_prompt(text: str, emotion: str) -> tuple[str, bool]:
    """Gemini TTS takes its style in the prompt text: a directive, then the words to say."""
    style, cues = STYLES[style_key(emotion)]
    lead = f"{style} {cues}" if is_long(text) else style
    return f"{lead}\nSay exactly the following words and nothing else:\n{text}", is_long(text)
