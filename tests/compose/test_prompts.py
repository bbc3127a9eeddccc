"""The generator prompts are data pinned here: any change to a wording must change this test.

The printed parts were checked word for word against the paper (spaces lost in its text
extraction, everything else equal); reconstructed parts fill the listings' cuts."""

from __future__ import annotations

import hashlib

import pytest

from paraudit.compose import prompts as P

PINNED = {
    "single-turn-response": [("printed", "d216beaa169eff1a")],
    "positional-goal-failure": [
        ("printed", "9f0342ef1d437ec2"),
        ("reconstructed", "1b0adedb1feebc6b"),
        ("printed", "a32f7c01a6b32209"),
        ("reconstructed", "66a50ea7dbea2d2a"),
    ],
    "emotional-conversations": [
        ("printed", "f96f1fec1c4c7a4e"),
        ("reconstructed", "1652cad49a4c9334"),
        ("printed", "7696eb7334b8612e"),
        ("reconstructed", "013f75fc8425ff67"),
    ],
    "emotional-conversations-refine": [("printed", "1b8cf10166633470")],
    "response-balance": [("reconstructed", "4bcdab2ae1e2f42d")],
}


@pytest.mark.parametrize("template", P.ALL_TEMPLATES, ids=lambda t: t.name)
def test_every_part_is_pinned_and_labelled(template: P.PromptTemplate) -> None:
    got = [(p.origin, hashlib.sha256(p.text.encode()).hexdigest()[:16]) for p in template.parts]
    assert got == PINNED[template.name]


def test_cut_listings_are_marked_reconstructed_and_whole_ones_are_not() -> None:
    assert P.POSITIONAL.reconstructed and P.CONVERSATIONS.reconstructed
    assert not P.SINGLE_TURN_RESPONSE.reconstructed and not P.REFINE.reconstructed
    # The cut falls mid-word in the paper ("r_" … "ust ALWAYS"): the parts join the word.
    joined = P.POSITIONAL.parts[0].text[-3:] + P.POSITIONAL.parts[1].text[:2]
    assert joined == " r_i."
    assert P.POSITIONAL.parts[2].text.startswith("ust ALWAYS acknowledge")


def test_single_turn_prompt_renders_the_paper_fields() -> None:
    text = P.SINGLE_TURN_RESPONSE.render(sentence="It is raining.", emoA="anger", emoB="sadness")
    assert 'Sentence: "It is raining." Emotion A: anger Emotion B: sadness' in text
    assert '"A_response" and "B_response"' in text


def test_positional_prompt_carries_the_option_sets_and_the_source() -> None:
    text = P.POSITIONAL.render(
        x_options=P.option_list(("neutral",)),
        y_options=P.option_list(("sad", "hesitant")),
        source='HUMAN: "hi"',
    )
    assert "X_options = {neutral}" in text and "Y_options = {sad, hesistant}" in text
    assert text.rstrip().endswith('S:\nHUMAN: "hi"')
    assert P.FINAL_ANSWER_LINE in text


def test_option_sets_are_the_non_empty_subsets() -> None:
    xs = P.nonempty_subsets(P.POSITIONAL_X)
    ys = P.nonempty_subsets(P.POSITIONAL_Y)
    assert len(xs) == 3 and len(ys) == 15 and () not in ys
    assert set(ys) == {s for s in ys if set(s) <= set(P.POSITIONAL_Y)}


def test_balance_prompt_renders_json_braces() -> None:
    text = P.BALANCE.render(factors="politeness", r1="a", r2="b")
    assert '{"reply1": {"factor": score, ...}' in text
