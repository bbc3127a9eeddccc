"""`build single-turn --conflict` (issue 32): keep the source sentences whose words and one
voice disagree, as word–tone conflict items.

The source sentence is shared by both branches. Its words are labelled by VADER (qc/conflict.py);
the pair value whose valence matches that label is the value the words carry, the other value's
voice is the conflict voice, and the check must pass (the words read as their value does and
unlike the voice). A sentence whose words carry neither value, or both, is not a conflict: it is
rejected with the reason before any LLM call or rendering, so `--dry-run` counts only what is
kept. What passes is recorded in the item's `meta.conflict`.
"""

from __future__ import annotations

from typing import Any

from paraudit.builders.composing import Candidate
from paraudit.dimensions.emotion import VALENCE
from paraudit.items.conflict import ConflictError
from paraudit.qc.conflict import check_conflict, words_sentiment
from paraudit.sources.emocf import SentencePair


def conflict_meta(text: str, values: tuple[str, str]) -> dict[str, Any] | str:
    """The `meta.conflict` record of `text` said with either of `values`, or why it is not a
    word–tone conflict."""
    label, compound = words_sentiment(text)
    carried = [v for v in values if VALENCE.get(v) == label]
    if len(carried) != 1:
        return (
            f"the words read {label} (VADER {compound:+.2f}), which "
            + ("both voices" if carried else "neither voice")
            + f" ({values[0]}, {values[1]}) carries: not a word-tone conflict"
        )
    words = carried[0]
    voice = values[1] if values[0] == words else values[0]
    check = check_conflict(text, words, voice, VALENCE)
    return check.meta(words, voice) if check.passed else "; ".join(check.reasons)


def keep_conflicts(
    candidates: list[Candidate], rejections: list[dict[str, str]] | None = None
) -> tuple[list[Candidate], dict[str, dict[str, Any]]]:
    """The candidates that are conflicts and their records by key; the others join
    `rejections`. None left: one line naming the problem and the fix (exit 2)."""
    kept: list[Candidate] = []
    metas: dict[str, dict[str, Any]] = {}
    first = ""
    for cand in candidates:
        rec = cand.record
        assert isinstance(rec, SentencePair)  # --conflict is refused for other kinds
        meta = conflict_meta(rec.sentence, rec.emotions)
        if isinstance(meta, str):
            first = first or meta
            if rejections is not None:
                rejections.append({"source_id": cand.source_id, "stage": "conflict",
                                   "code": "not-conflict", "reason": meta})  # fmt: skip
            continue
        kept.append(cand)
        metas[cand.key] = meta
    if not kept:
        raise ConflictError(
            f"--conflict: no source sentence is a word-tone conflict (first: {first}); nothing "
            "was composed or written: give sentences whose words read positive or negative, "
            "paired with two values of different valence (e.g. --pairs joy/anger)"
        )
    return kept, metas


__all__ = ["conflict_meta", "keep_conflicts"]
