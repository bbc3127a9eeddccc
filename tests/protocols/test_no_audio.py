"""The no-audio outcome: which replies count as "heard nothing", and which stay answers."""

from __future__ import annotations

import pytest

from paraudit.protocols.no_audio import says_no_audio
from paraudit.protocols.parsing import parse_choice

LABELS = ("R1", "R2")

NO_AUDIO = [
    "I can't hear anything.",
    "I cannot hear any speech in the clip, so I can't judge.",
    "Sorry, I’m unable to hear the audio.",
    "No audio was provided.",
    "No audio clip is attached to this message.",
    "The audio is silent.",
    "The audio clip appears to be completely silent.",
    "The recording contains only noise.",
    "There is no speech in the audio.",
    "I am unable to process audio.",
    "I don't hear anything in the recording.",
    '{"reasoning": "The audio is silent.", "pred": "none"}',
    '{"reasoning": "I cannot hear anything", "pred": null}',
    '```json\n{"reasoning": "no audio was provided", "pred": ""}\n```',
    "I can't listen to audio; I can only read text.",
]
NOT_NO_AUDIO = [
    # it names a label: an answer (or an unparsed one), never no-audio
    "The audio is silent, but R1 fits better.",
    "I can't hear it well, R2 I guess.",
    '{"reasoning": "the audio is quiet", "pred": "R3"}',
    # it hears something
    "I cannot hear the difference between the two responses.",
    "The speaker sounds quiet and sad.",
    "The audio is clear: the user is angry.",
    "I can hear the user clearly.",
    "There is no sarcasm in the audio.",
    "",
    "I am not sure.",
]


@pytest.mark.parametrize("reply", NO_AUDIO)
def test_heard_nothing(reply: str) -> None:
    assert parse_choice(reply).pred is None  # rule 1 holds for these
    assert says_no_audio(reply, LABELS)


@pytest.mark.parametrize("reply", NOT_NO_AUDIO)
def test_not_heard_nothing(reply: str) -> None:
    assert not says_no_audio(reply, LABELS)


def test_a_reply_that_picks_a_label_is_an_answer_whatever_it_says() -> None:
    """Rule 1 (the caller's): the parser reads the label first; says_no_audio is asked only
    about unparsed replies (runner.asking.result_row)."""
    reply = '{"reasoning": "the audio is silent, so I guess", "pred": "R1"}'
    assert parse_choice(reply).pred == "R1"
    assert not says_no_audio(reply, LABELS)  # and it would refuse it anyway


def test_turn_labels_count_as_labels() -> None:
    assert not says_no_audio("The audio is silent; E1 for every turn.", ("E1", "E2"))
    assert says_no_audio("The audio is silent.", ("E1", "E2"))
