"""CAVA EmoCF ("Tone Awareness"): one line per human recording of an emotionally ambiguous
sentence; a pair is the same sentence with the same expected emotions.

Fields: `filename` (the recording, relative to the source file's folder or --audio-root),
`emotion` (label of that recording), `sentence`, `expected_emotions` (the pair, a list or a
string such as "anger/sadness"). Source file names carry the emotion label, so they are kept
only here: items store clips by content hash and ids by a hash of the words and pair.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paraudit.dimensions.emotion import EMOCF_LABELS
from paraudit.errors import ParauditError
from paraudit.sources.tables import ColumnMap, need, read_rows

# EmoCF labels (Livingstone & Russo's taxonomy) → the dataset vocabulary: the emotion plugin's
# data.
LABELS = EMOCF_LABELS
# Labels already in the dataset vocabulary are accepted as they are.
_ACCEPTED = {**LABELS, **{v: v for v in LABELS.values()}}


@dataclass(frozen=True)
class SentencePair:
    """One single-turn source: a sentence that fits two emotions."""

    key: str
    """Stable id from the words and the pair (never the file names)."""
    sentence: str
    emotions: tuple[str, str]
    """Dataset-vocabulary labels, in the source's expected_emotions order."""
    source_labels: tuple[str, str]
    recordings: tuple[Path | None, Path | None]
    """The source's human recording of each emotion, when it has one."""

    @property
    def pair(self) -> str:
        return "/".join(self.source_labels)


def map_label(label: str, where: str) -> str:
    e = label.strip().lower()
    if e not in _ACCEPTED:
        raise ParauditError(
            f"{where}: unknown emotion label '{label}' (EmoCF labels: {', '.join(LABELS)})"
        )
    return _ACCEPTED[e]


def _expected(value: Any, where: str) -> tuple[str, str]:
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except (json.JSONDecodeError, RecursionError):
                raise ParauditError(f"{where}: expected_emotions is not a list") from None
        else:
            value = [v for v in re.split(r"[/,;|]", text) if v.strip()]
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ParauditError(f"{where}: expected_emotions must name exactly two emotions")
    a, b = (str(v).strip().lower() for v in value)
    if a == b:
        raise ParauditError(f"{where}: expected_emotions names the same emotion twice")
    return a, b


def pair_key(sentence: str, emotions: tuple[str, str]) -> str:
    blob = json.dumps([" ".join(sentence.split()), list(emotions)])
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def read_emocf(
    path: Path, mapping: ColumnMap | None = None, audio_root: Path | None = None
) -> list[SentencePair]:
    """Every pair of the source, in first-seen order."""
    root = audio_root or (path.parent if path.is_file() else path)
    # Grouped by the words and the unordered pair; the first line's order is kept.
    groups: dict[tuple[str, frozenset[str]], dict[str, Path | None]] = {}
    labels: dict[tuple[str, frozenset[str]], tuple[tuple[str, str], tuple[str, str]]] = {}
    for n, row in read_rows(path, mapping):
        where = f"{path}:{n}"
        sentence = " ".join(str(need(path, n, row, "sentence")).split())
        src = _expected(need(path, n, row, "expected_emotions"), where)
        mapped = (map_label(src[0], where), map_label(src[1], where))
        key = (sentence, frozenset(mapped))
        recs = groups.setdefault(key, {mapped[0]: None, mapped[1]: None})
        labels.setdefault(key, (mapped, src))
        emotion = row.get("emotion")
        filename = row.get("filename")
        if emotion and filename:
            e = map_label(str(emotion), where)
            if e not in recs:
                raise ParauditError(
                    f"{where}: recording labelled '{emotion}' is not one of the pair "
                    f"{'/'.join(src)}"
                )
            recs[e] = (root / str(filename)).resolve()
    if not groups:
        raise ParauditError(f"{path}: no records")
    out: list[SentencePair] = []
    for key, recs in groups.items():
        emotions, src_labels = labels[key]
        out.append(
            SentencePair(
                key=pair_key(key[0], emotions),
                sentence=key[0],
                emotions=emotions,
                source_labels=src_labels,
                recordings=(recs[emotions[0]], recs[emotions[1]]),
            )
        )
    return out


def pair_counts(pairs: list[SentencePair]) -> dict[str, int]:
    return dict(Counter(p.pair for p in pairs).most_common())
