"""The `no-audio` outcome: a reply that says it heard nothing, instead of answering.

On null audio (probe N) the honest answer is "I can't hear anything"; the parser would call it
`unparsed`, which counts as a wrong answer and hides the one thing a null-audio audit wants to
know. So a reply is `no-audio` when all three hold:

1. it does not parse to an offered label (a reply that picks one is an answer, whatever it adds:
   "the audio is quiet, but R1" is a confident answer);
2. it says, in one of the phrasings below, that there is no audible audio — it cannot hear
   anything / any speech, no audio was provided, the audio is silent / empty / only noise;
3. it names no offered label (R1, E2 …) as a word, except where the JSON 'pred' is an explicit
   non-answer ("none", "n/a", "unknown", null, ""): "can't hear it, R1 I guess" picks one.

The phrases are deliberately narrow (`tests/protocols/test_no_audio.py` holds the accepted and
the refused wordings): "I cannot hear the difference between R1 and R2" is not no-audio.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

_CANT = r"(?:can ?not|can't|cannot|couldn't|could not|am unable to|was unable to|unable to|" \
    r"am not able to|do not|don't|did not|didn't)"  # fmt: skip
_THING = (
    r"(?:anything|any(?:thing| speech| sound| voice| audio| words?)|the (?:audio|speech|voice|"
    r"clip|clips|recording|sound|user)|it|a thing|speech|audio|sound)"
)
_AUDIO = (
    r"(?:the )?(?:audio|sound|recording|clip|clips|speech)(?: (?:clip|clips|file|files|input))?"
)
_PATTERNS = [
    # "I can't hear anything", "I cannot hear the audio", "I don't hear any speech"
    rf"\b{_CANT} (?:actually )?(?:hear|detect|make out|perceive) {_THING}\b",
    # "I can't listen to audio", "I am unable to process the audio"
    rf"\b{_CANT} (?:listen to|process|access|play|receive|open) {_AUDIO}\b",
    # "no audio was provided", "no audio clip is attached", "no speech was detected"
    r"\bno (?:audio|sound|speech|voice|audible speech)(?: (?:clip|clips|file|files|input))? "
    r"(?:was |is |were |are |has been |have been )?(?:provided|attached|included|present|"
    r"detected|found|given|received|audible|available|in the)",
    # "there is no audio", "there is no speech in the clip"
    r"\bthere (?:is|was|are) no (?:audio|sound|speech|voice|audible)",
    # "the audio is silent", "the clip appears to be empty", "the recording contains only noise"
    rf"\b{_AUDIO} (?:is|was|are|were|seems|seem|appears|appear)(?: to be)? (?:completely |entirely "
    r"|totally |just |only )?(?:silent|silence|empty|blank|missing|inaudible|mute|muted|"
    r"only noise|just noise|static|white noise)\b",
    rf"\b{_AUDIO} (?:contains?|has) (?:only|just|nothing but) (?:silence|noise|static)\b",
    r"\b(?:only|just|nothing but) (?:silence|static|noise|background noise) (?:in|on|is|was)\b",
]
_NO_AUDIO = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.I)
_NON_ANSWERS = {"", "none", "n/a", "na", "unknown", "null", "cannot determine", "undetermined"}


def _pred_values(raw: str) -> list[object]:
    """Every 'pred' value of the JSON objects in `raw` (none when there is no JSON)."""
    out: list[object] = []
    decoder = json.JSONDecoder(strict=False)
    i = raw.find("{")
    while i >= 0:
        try:
            obj, end = decoder.raw_decode(raw, i)
        except json.JSONDecodeError:
            i = raw.find("{", i + 1)
            continue
        if isinstance(obj, dict):
            out += [v for k, v in obj.items() if str(k).lower() == "pred"]
        i = raw.find("{", end)
    return out


def _non_answer(value: object) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in _NON_ANSWERS)


def says_no_audio(raw: str, labels: Iterable[str]) -> bool:
    """Whether an unparsed reply is a no-audio outcome (rules 2 and 3 of the module docstring;
    the caller has established rule 1)."""
    text = re.sub(r"[\u2018\u2019]", "'", raw)
    if not _NO_AUDIO.search(text):
        return False
    preds = _pred_values(text)
    if preds:
        return all(_non_answer(v) for v in preds)
    return not any(re.search(rf"\b{re.escape(lab)}\b", text, re.I) for lab in labels)


__all__ = ["says_no_audio"]
