"""The word–tone conflict check (issue 32): do an item's words and its conflict voice disagree?

A conflict item's words carry one of its two values (`words`, e.g. "I'm totally fine" carries a
positive value) and one branch's voice carries the other (`voice`, said angrily). The right
response follows the voice. The item is a conflict only if the words really read as their value
does and unlike the voice: the words' sentiment is labelled by an offline text classifier
(VADER, from the `lexicon` extra) or by the composing LLM's own label (recorded as such), and
compared with the dimension's valence of each value (`Dimension.valence`).

An item whose words and voice agree after this check is not a conflict item: the builders drop
it and `paraudit validate` refuses a dataset that declares one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paraudit.errors import MissingExtraError

LABELS = ("positive", "negative", "neutral")
THRESHOLD = 0.05
"""VADER's own convention: compound ≥ +0.05 positive, ≤ −0.05 negative, neutral between."""

_vader: Any = None


def words_sentiment(text: str) -> tuple[str, float]:
    """(label, VADER compound score) of `text`."""
    global _vader
    if _vader is None:
        try:
            from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
        except ImportError:
            raise MissingExtraError(
                "The word-tone conflict check", "lexicon", "vaderSentiment"
            ) from None
        _vader = SentimentIntensityAnalyzer()
    compound = float(_vader.polarity_scores(text)["compound"])
    if compound >= THRESHOLD:
        return "positive", compound
    if compound <= -THRESHOLD:
        return "negative", compound
    return "neutral", compound


@dataclass(frozen=True)
class ConflictCheck:
    """The check's answer for one item."""

    passed: bool
    words_label: str
    """How the words read: positive, negative or neutral."""
    source: str
    """Who labelled the words: 'vader' or 'composer' (the composing LLM's own label)."""
    compound: float | None
    """VADER's compound score (None for a composer label)."""
    reasons: tuple[str, ...] = ()

    def meta(self, words: str, voice: str) -> dict[str, Any]:
        """The item's `meta.conflict` record."""
        out: dict[str, Any] = {"words": words, "voice": voice, "words_label": self.words_label,
                               "label_source": self.source}  # fmt: skip
        if self.compound is not None:
            out["compound"] = round(self.compound, 4)
        return out


def check_conflict(
    text: str,
    words: str,
    voice: str,
    valence: Mapping[str, str],
    composer_label: str | None = None,
) -> ConflictCheck:
    """Whether `text`, said with `voice`, is a word–tone conflict whose words carry `words`."""
    if composer_label is not None:
        label, compound, source = composer_label.strip().lower(), None, "composer"
    else:
        (label, compound), source = words_sentiment(text), "vader"
    reasons: list[str] = []
    how = f"{label} (VADER {compound:+.2f})" if compound is not None else f"{label} ({source})"
    if words not in valence or voice not in valence:
        missing = words if words not in valence else voice
        reasons.append(f"'{missing}' has no valence in its dimension: label the words yourself")
    else:
        if label != valence[words]:
            reasons.append(f"the words read {how}, not {valence[words]} as '{words}' does")
        if label == valence[voice]:
            reasons.append(f"the words read {how}, as the '{voice}' voice does: they agree")
    return ConflictCheck(not reasons, label, source, compound, tuple(reasons))


__all__ = ["LABELS", "ConflictCheck", "check_conflict", "words_sentiment"]
