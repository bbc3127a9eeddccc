"""The word–tone conflict check (issue 32): do an item's words and its conflict voice disagree?

A conflict item's words carry one of its two values (`words`, e.g. "I'm totally fine" carries a
positive value) and one branch's voice carries the other (`voice`, said angrily). The right
response follows the voice. The item is a conflict only if the words really read as their value
does and unlike the voice: the words' sentiment is labelled by an offline text classifier
(VADER, from the `lexicon` extra) or by the composing LLM's own label (recorded as such), and
compared with the dimension's valence of each value (`Dimension.valence`).

A dimension the words' sentiment does not decide (urgency: "no rush at all" said urgently)
declares a small lexicon instead (`Dimension.words_carry`: value → phrases); the words carry
the one value whose phrases they hold (`lexicon_value`), and the check is the same with that
value as the label. A dimension with neither, or that says why conflict makes no sense for it
(`Dimension.no_conflict`), gets no conflict items (`conflict_refusal`).

An item whose words and voice agree after this check is not a conflict item: the builders drop
it and `paraudit validate` refuses a dataset that declares one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paraudit.errors import MissingExtraError

if TYPE_CHECKING:
    from paraudit.dimensions.base import Dimension

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


def lexicon_value(text: str, lexicon: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The values whose phrases occur in `text` (whole words, any case), in lexicon order."""
    low = " ".join(re.findall(r"[a-z0-9']+", text.lower()))
    return tuple(
        v
        for v, phrases in lexicon.items()
        if any(re.search(rf"\b{re.escape(' '.join(p.lower().split()))}\b", low) for p in phrases)
    )


def conflict_refusal(dim: Dimension) -> str | None:
    """Why `dim` can have no word–tone conflict items (None when it can)."""
    if dim.no_conflict:
        return dim.no_conflict
    if not dim.words_carry and not dim.valence:
        return (
            f"the {dim.name} dimension declares nothing in the words that would carry one of "
            "its values (Dimension.words_carry or valence)"
        )
    return None


def check_words(text: str, words: str, voice: str, dim: Dimension) -> ConflictCheck:
    """`check_conflict` for any dimension: its lexicon where it declares one, else VADER
    against its valence."""
    if not dim.words_carry:
        return check_conflict(text, words, voice, dim.valence)
    hits = lexicon_value(text, dim.words_carry)
    label = hits[0] if len(hits) == 1 else "+".join(hits) or "none"
    how = f"'{label}' (the {dim.name} lexicon)"
    reasons: list[str] = []
    if label != words:
        reasons.append(f"the words carry {how}, not '{words}'")
    if voice in hits:
        reasons.append(f"the words carry {how}, as the '{voice}' voice does: they agree")
    return ConflictCheck(not reasons, label, "lexicon", None, tuple(reasons))


__all__ = [
    "LABELS",
    "ConflictCheck",
    "check_conflict",
    "check_words",
    "conflict_refusal",
    "lexicon_value",
    "words_sentiment",
]
