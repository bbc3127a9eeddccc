"""What an expressive TTS is told about each emotion: instructions, prompt styles, a template.

The paper (B.2.3) prompts gpt-4o-mini-tts with "a natural-language description of the emotion"
and wraps long utterances in a template "that contains further emotional cues". Its wording was
not published; the texts below are ours. The transcript itself is always sent verbatim as the
text to speak: the template goes into the instructions, so the words heard are exactly the words
of the item (pairs must share their words).
"""

from __future__ import annotations

from paraudit.dimensions.emotion import EMOTION_ALIASES, TTS_STYLES
from paraudit.errors import ParauditError

# Words from which an utterance counts as long and gets the template with extra cues.
LONG_UTTERANCE_WORDS = 20

# emotion → (how to speak, extra cues used by the long-utterance template): the emotion
# plugin's data.
STYLES: dict[str, tuple[str, str]] = TTS_STYLES
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
