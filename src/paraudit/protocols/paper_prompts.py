"""The paper's judge prompts (Appendix C.1), reproduced as the default preset.

Single-turn wordings (C.1.1) are copied as printed. The paper prints only pointwise single-turn
prompts; the pairwise ones (marked DERIVED) are made from them the way its multi-turn pairwise
prompt (Listing 4) differs from the pointwise one. Multi-turn wordings come from Listings 4–6;
the extracted listing text lost its spaces, which are restored here word for word, and string
pieces that Python concatenates are joined with one space after sentence ends. The paper's own
quirk "as a series of." (Listing 6, pointwise) is kept verbatim.
"""

from __future__ import annotations

JSON_CHOICE = (
    'Reply with a JSON dict with entries "reasoning", containing your reasoning, and "pred", '
    'containing your prediction, which should be either "R1" or "R2". Do not include code '
    "blocks for the JSON. Respond with the JSON string only."
)
JSON_MATCHING = (
    'Reply with a JSON dict with entries "reasoning", containing your reasoning, and "pred", '
    "containing your predicted matching, which itself should be a JSON dict that is either "
    '{"CA": "R1", "CB": "R2"} or {"CA": "R2", "CB": "R1"}. Do not include code blocks for the '
    "JSON. Respond with the JSON string only."
)

# --- single-turn-emotions (C.1.1) -----------------------------------------------------------
SINGLE_CUES = {
    "none": "\n",
    "soft": "Focus on tone of voice when making your decision.\n",
    "hard": "Focus *only* on tone of voice, and not words, when making your decision.\n",
}

SINGLE_J_POINTWISE = (
    "You will hear audio clip C, and then be given two possible voice assistant replies, R1 and "
    "R2. Your task: decide which response is more appropriate for the conversation C based on "
    "user experience. {cue} " + JSON_CHOICE
)
# DERIVED: pairwise counterpart of SINGLE_J_POINTWISE.
SINGLE_J_PAIRWISE = (
    "You will hear two audio clips, CA and CB, and then be given two possible voice assistant "
    "replies, R1 and R2. Your task: match which response is more appropriate for which "
    "conversation based on user experience. {cue} " + JSON_MATCHING
)
SINGLE_P = (
    "You will hear audio clip C, and then be given the names of two emotions, R1 and R2. Your "
    "task: decide which emotion more accurately describes audio clip C. {cue} " + JSON_CHOICE
)
_SINGLE_TEXT_INTRO = (
    "You will be given a user input C, and then be given two possible voice assistant replies, "
    'R1 and R2. The user input will have a text transcript ("transcript"), and a description '
    'of the speaker\'s emotional tone of voice ("emotion"). '
)
STAGING_DISCLAIMER_SINGLE = (
    "Keep in mind that the human's emotions were detected by an audio-language model which "
    "does not have perfect accuracy. "
)
SINGLE_O_POINTWISE = (
    _SINGLE_TEXT_INTRO + "Your task: select which response is more appropriate for the "
    "conversation based on user experience. {cue} " + JSON_CHOICE
)
SINGLE_S_POINTWISE = (
    _SINGLE_TEXT_INTRO + STAGING_DISCLAIMER_SINGLE + "Your task: select which response is more "
    "appropriate for the conversation based on user experience. {cue} " + JSON_CHOICE
)
# DERIVED: pairwise counterparts of the Oracle and Staging prompts.
_SINGLE_TEXT_INTRO_PAIR = (
    "You will be given two user inputs, CA and CB, and then be given two possible voice "
    "assistant replies, R1 and R2. Each user input will have a text transcript "
    '("transcript"), and a description of the speaker\'s emotional tone of voice '
    '("emotion"). '
)
SINGLE_O_PAIRWISE = (
    _SINGLE_TEXT_INTRO_PAIR + "Your task: match which response is more appropriate for which "
    "user input based on user experience. {cue} " + JSON_MATCHING
)
SINGLE_S_PAIRWISE = (
    _SINGLE_TEXT_INTRO_PAIR + STAGING_DISCLAIMER_SINGLE + "Your task: match which response is "
    "more appropriate for which user input based on user experience. {cue} " + JSON_MATCHING
)
# paraudit's transcript-only control T (DESIGN.md): no audio and no emotion.
CONTROL_T_POINTWISE = (
    "You will be given a user input C, and then be given two possible voice assistant replies, "
    'R1 and R2. The user input will have a text transcript ("transcript"). Your task: select '
    "which response is more appropriate for the conversation based on user experience. {cue} "
    + JSON_CHOICE
)

# --- multi-turn (Listings 4–6) --------------------------------------------------------------
_TRANSITION_TAIL = (
    "When evaluating a response to a conversation, focus on when the transition from X to Y "
    "happens, what might have caused the change in emotion, and how well the response "
    "addresses this cause.\n"
)
MULTI_TRANSITION_INIT = {
    "pairwise": (
        "In both CA and CB, the human's tone of voice (not just words) starts at an emotion X "
        "and transitions to a different emotion Y, but the transition happens at different "
        "points. "
    ),
    "pointwise": (
        "During C, the human's tone of voice (not just words) starts at an emotion X and "
        "transitions to a different emotion Y. "
    ),
}


def multi_cue(protocol: str, cue: str) -> str:
    return {
        "none": "\n",
        "soft": "Focus on the human's tone of voice when making your decision.\n",
        "hard": "Focus *only* on the human's tone of voice, and not their words, when making "
        "your decision.\n",
        "transition": MULTI_TRANSITION_INIT[protocol] + _TRANSITION_TAIL,
    }[cue]


_MULTI_JSON_CHOICE = (
    'Reply with a JSON dict with entries "reasoning", containing your reasoning, and "pred", '
    'containing your prediction, which should be either "R1" or "R2".\n'
    "Do not include code blocks for the JSON. Respond with the JSON string only."
)
_MULTI_JSON_MATCHING = (
    'Reply with a JSON dict with entries "reasoning", containing your reasoning, and "pred", '
    "containing your predicted matching, which itself should be a JSON dict that is either "
    '{"CA": "R1", "CB": "R2"} or {"CA": "R2", "CB": "R1"}.\n'
    "Do not include code blocks for the JSON. Respond with the JSON string only."
)

MULTI_J_PAIRWISE = (
    "You will hear two conversations between a human user and a voice assistant, as a series "
    "of audio clips. First, you will hear CA, which is the first conversation *except* for its "
    "final voice assistant response. Next, you will hear CB, which is the second conversation "
    "*except* for its final voice assistant response. Then, you will hear R1 and R2, which are "
    "the possible final voice assistant responses.\n"
    "Your task: match which response is more appropriate for which conversation based on "
    "user experience.\n{cue}" + _MULTI_JSON_MATCHING
)
MULTI_J_POINTWISE = (
    "You will hear a conversation between a human user and a voice assistant, as a series of "
    "audio clips. First, you will hear C, which is the conversation *except* for the final "
    "voice assistant response. Then, you will hear R1 and R2, which are possible final voice "
    "assistant responses.\n"
    "Your task: decide which response is more appropriate for the conversation C based on "
    "user experience.\n{cue}" + _MULTI_JSON_CHOICE
)

MULTI_P_CUES = {
    "none": "\n",
    "soft": "Focus on tone of voice when making your decision.\n",
    "hard": "Focus *only* on tone of voice, and not words, when making your decision.\n",
    "transition": (
        "In conversation C, the human's tone of voice (not just words) starts at an emotion G "
        "and transitions to a different emotion H. So you should try to detect when this "
        "transition happens.\n"
    ),
}
MULTI_P = (
    "You will hear a conversation C between a human user and a voice assistant, as a series "
    "of audio clips. Each clip will be prefaced with the text description "
    '"Conversation C turn [t] ([S]) clip", where t is the turn number and S is the speaker '
    '("human" or "voice assistant"). You will then be given the names of two emotions, E1 '
    "and E2, which are the possible emotions for the *human* turns in C. Your task: decide "
    "whether each *human* turn has emotion E1 and E2. Do this for all the *human* turns, and "
    "*only* the *human* turns.\n{cue}"
    'Reply with a JSON dict with entries "reasoning", containing your reasoning, and "pred", '
    "containing your prediction, which itself should be a JSON dict of the form "
    '{"C[t]": "E[1 or 2]", ...} (so keys would be like "C2" or "C5", and values would be "E1" '
    'or "E2"), with entries for all *human* turns of C, and *only* the *human* turns.\n'
    "Do not include code blocks for the JSON. Respond with the JSON string only."
)

MULTI_PRED_DISCLAIMER = (
    "Keep in mind that the human's emotions were detected by an audio-language model which "
    "does not have perfect accuracy.\n"
)
_MULTI_TEXT_TURNS = (
    'Each turn will have a text transcript ("transcript"), and a description of the '
    'speaker\'s emotional tone of voice ("emotion").'
)
MULTI_OS_PAIRWISE = (
    "You will be given two spoken conversations between a human user and a voice assistant, "
    "as a series of turns. " + _MULTI_TEXT_TURNS + "{disclaimer}"
    "First, you will be given CA, which is the first conversation *except* for its final voice "
    "assistant response. Next, you will be given CB, which is the second conversation "
    "*except* for its final voice assistant response. Then, you will be given R1 and R2, "
    "which are the possible final voice assistant responses.\n"
    "Your task: match which response is more appropriate for which conversation based on "
    "user experience.\n{cue}" + _MULTI_JSON_MATCHING
)
MULTI_OS_POINTWISE = (
    "You will be given a conversation between a human user and a voice assistant, as a "
    "series of. " + _MULTI_TEXT_TURNS + "{disclaimer}"
    "First, you will be given C, which is the conversation *except* for the final voice "
    "assistant response. Then, you will be given R1 and R2, which are possible final voice "
    "assistant responses.\n"
    "Your task: decide which response is more appropriate for the conversation C based on "
    "user experience.\n{cue}" + _MULTI_JSON_CHOICE
)


def fill(template: str, **values: str) -> str:
    """Substitute {name} slots; not str.format, because the templates hold literal JSON braces."""
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template


# --- paraudit's own (NOT the paper's) -------------------------------------------------------
# The transcript-only control T for multi-turn items. The paper has no such probe; this wording
# follows its multi-turn Oracle prompt (Listing 6) with every mention of emotion removed, so the
# judge is given exactly the words of the conversation and nothing about how they sounded.
CONTROL_T_MULTI_POINTWISE = (
    "You will be given a conversation between a human user and a voice assistant, as a series "
    'of turns. Each turn will have a text transcript ("transcript").\n'
    "First, you will be given C, which is the conversation *except* for the final voice "
    "assistant response. Then, you will be given R1 and R2, which are possible final voice "
    "assistant responses.\n"
    "Your task: decide which response is more appropriate for the conversation C based on "
    "user experience.\n{cue}" + _MULTI_JSON_CHOICE
)
