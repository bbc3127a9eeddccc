"""Pins the paper's prompt wording (Appendix C.1): a change here must be deliberate."""

from __future__ import annotations

from paraudit.protocols import paper_prompts as pp


def test_single_turn_pointwise_j_is_verbatim() -> None:
    assert pp.fill(pp.SINGLE_J_POINTWISE, cue=pp.SINGLE_CUES["hard"]) == (
        "You will hear audio clip C, and then be given two possible voice assistant replies, R1 "
        "and R2. Your task: decide which response is more appropriate for the conversation C "
        "based on user experience. Focus *only* on tone of voice, and not words, when making "
        'your decision.\n Reply with a JSON dict with entries "reasoning", containing your '
        'reasoning, and "pred", containing your prediction, which should be either "R1" or '
        '"R2". Do not include code blocks for the JSON. Respond with the JSON string only.'
    )


def test_single_turn_perception_oracle_staging_are_verbatim() -> None:
    assert pp.SINGLE_P.startswith(
        "You will hear audio clip C, and then be given the names of two emotions, R1 and R2. "
        "Your task: decide which emotion more accurately describes audio clip C. {cue} Reply"
    )
    assert "Crucially" not in pp.SINGLE_O_POINTWISE
    assert pp.SINGLE_S_POINTWISE == pp.SINGLE_O_POINTWISE.replace(
        '("emotion"). ', '("emotion"). ' + pp.STAGING_DISCLAIMER_SINGLE
    )
    assert pp.SINGLE_CUES == {
        "none": "\n",
        "soft": "Focus on tone of voice when making your decision.\n",
        "hard": "Focus *only* on tone of voice, and not words, when making your decision.\n",
    }


def test_multi_turn_listings() -> None:
    text = pp.fill(pp.MULTI_J_POINTWISE, cue=pp.multi_cue("pointwise", "transition"))
    assert (
        "Your task: decide which response is more appropriate for the conversation C based on "
        "user experience.\nDuring C, the human's tone of voice (not just words) starts at an "
        "emotion X and transitions to a different emotion Y. When evaluating" in text
    )
    assert '"Conversation C turn [t] ([S]) clip"' in pp.MULTI_P
    assert "as a series of. Each turn" in pp.MULTI_OS_POINTWISE  # the paper's own wording
    assert pp.multi_cue("pairwise", "hard") == (
        "Focus *only* on the human's tone of voice, and not their words, "
        "when making your decision.\n"
    )
