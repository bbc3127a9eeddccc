"""builtin:emphasis's mapping from the stressed word to a reply (judges/builtin/listeners/
emphasis.py): on the bundled starter texts, given the true stressed word, it picks each value's
own reply, and each of its cues decides the case it is for."""

from __future__ import annotations

import pytest

from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions import registry
from paraudit.judges.builtin.listeners.emphasis import EmphasisListener

EAR = EmphasisListener()


def test_the_bundled_texts_map_to_their_own_replies() -> None:
    right = total = 0
    for t in starter_texts(registry.get("emphasis")):
        assert t.focus is not None
        words = t.text.split()
        for k, (value, other) in enumerate((("stress-a", "stress-b"), ("stress-b", "stress-a"))):
            stressed = words[t.focus[k]].strip(".,!?;:")
            own = EAR.fit(t.responses[value], stressed, t.text)
            right += own > EAR.fit(t.responses[other], stressed, t.text)
            total += 1
    # Measured 76 of 80 (the earliest-naming rule alone: 68).
    assert (right, total) >= (76, 80), right


SENTENCE = {
    "person": "I didn't say she took the money.",
    "colour": "I wanted the red jacket in the window.",
    "day": "I asked for two tickets for Friday.",
}


@pytest.mark.parametrize(
    ("sentence", "stressed", "better", "worse"),
    [
        # a stressed person calls for someone else; any other word for something else
        ("person", "she", "So someone else took it.", "So she did something else with it."),
        ("person", "took", "So she did something else with it.", "So someone else took it."),
        # the alternative of the stressed word's kind
        ("day", "Friday", "I booked them for Saturday. Moving them to Friday.",
         "I booked four. Changing it to two tickets for Friday."),
        # "not the red coat" keeps red and changes the stressed jacket
        ("colour", "jacket", "Not the red coat. The red jacket.",
         "Not the blue one. The red jacket."),
        ("colour", "red", "Not the blue one. The red jacket.", "Not the red coat. The red jacket."),
        # the pronoun in another form
        ("person", "she", "So it was her.", "The money, then."),
    ],
)  # fmt: skip
def test_each_cue_decides_its_case(sentence: str, stressed: str, better: str, worse: str) -> None:
    text = SENTENCE[sentence]
    assert EAR.fit(better, stressed, text) > EAR.fit(worse, stressed, text)
