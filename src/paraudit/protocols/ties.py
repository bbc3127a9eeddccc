"""Tie items and the abstain answer (issue 32): the `ties` prompt preset.

A tie item is one where the audio does not decide: it says so (`meta.tie: true`, e.g. both
responses are right for both branches), or both branches carry the same values. The paper's
preset has no honest answer for it, so tie items are asked only under the `ties` preset, whose
J prompts (pointwise and pairwise) are the paper's with one change: the answer may also be
"tie" (no difference, or cannot tell) — in pairwise, instead of a matching. Every other word,
and every question of the `paper` preset, stays as it is. On a tie item the right answer is
"tie"; on every other item it is the branch's response (pairwise: the matching), and "tie" is
an abstention (answered, not right).
"""

from __future__ import annotations

from paraudit.items.records import AuditItem
from paraudit.protocols import paper_prompts as pp

PRESETS = ("paper", "ties")
TIE = "tie"
"""The abstain label: the option a tie-preset J question adds, and a tie item's gold."""

JSON_CHOICE_TIE = (
    'Reply with a JSON dict with entries "reasoning", containing your reasoning, and "pred", '
    'containing your prediction, which should be either "R1" or "R2", or "tie" if neither '
    "response is more appropriate than the other or you cannot tell. Do not include code "
    "blocks for the JSON. Respond with the JSON string only."
)
_MULTI_JSON_CHOICE = 'containing your prediction, which should be either "R1" or "R2".\n'
_MULTI_JSON_CHOICE_TIE = (
    'containing your prediction, which should be either "R1" or "R2", or "tie" if neither '
    "response is more appropriate than the other or you cannot tell.\n"
)


# Pairwise: the matching, or "tie" in its place (a JSON string, as a pointwise pred is).
JSON_MATCHING_TIE = pp.JSON_MATCHING.replace(
    '{"CA": "R2", "CB": "R1"}.',
    '{"CA": "R2", "CB": "R1"}, or the string "tie" if neither matching is more appropriate '
    "than the other or you cannot tell.",
)
_MULTI_MATCHING = '{"CA": "R2", "CB": "R1"}.\n'
_MULTI_MATCHING_TIE = (
    '{"CA": "R2", "CB": "R1"}, or the string "tie" if neither matching is more appropriate '
    "than the other or you cannot tell.\n"
)


def is_tie(item: AuditItem) -> bool:
    """Whether the audio cannot decide this item (see the module docstring)."""
    if item.meta.get("tie") is True:
        return True
    a, b = item.branches
    return a.emotions == b.emotions


def with_tie_option(head: str) -> str:
    """A J instruction (cue filled) with "tie" added to its answer format."""
    for plain, tie in ((pp.JSON_CHOICE, JSON_CHOICE_TIE), (_MULTI_JSON_CHOICE,
                       _MULTI_JSON_CHOICE_TIE), (pp.JSON_MATCHING, JSON_MATCHING_TIE),
                       (_MULTI_MATCHING, _MULTI_MATCHING_TIE)):  # fmt: skip
        if plain in head:
            return head.replace(plain, tie)
    raise ValueError("not a J question: the ties preset adds 'tie' to J only")


__all__ = ["JSON_CHOICE_TIE", "JSON_MATCHING_TIE", "PRESETS", "TIE", "is_tie", "with_tie_option"]
