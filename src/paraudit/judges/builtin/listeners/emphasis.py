"""builtin:emphasis — hears which word carries the sentence stress.

Perception: an accent curve over the clip (F0 in semitones above the clip's median, /3, plus
intensity in dB above its median, /6 — the emphasis QC's two peaks, qc/emphasis.py) and each
word's place in time. The judge has no aligner: it spreads the transcript's words over the
sounding span in proportion to their letters (a stand-in for their phones) and takes each
word's top of the curve inside the middle of its share. P offers two words: the one with the
higher top is heard as stressed; J offers none: the word with the highest top of all.
Adjacent focus words ("say SHE took") are where the estimate can slip.
Mapping: stress on a word contrasts it with an alternative, and the reply that answers that
contrast takes the word up. Four cues, each a fixed word list (measured on the bundled texts in
docs/how-to/another-dimension.md):
- the reply names the stressed word early ("Rome, not Milan"; the user's "my" as "your", "she"
  as "her") — but not inside a "not …" phrase, which names what is *not* meant;
- it names another word of the stressed word's kind (Saturday for Friday, eleven for ten, blue
  for red): the alternative the stress rules out;
- a stressed person ("SHE took it") calls for "someone else" / "who"; any other stressed word
  ("she TOOK it") for "something else", and "someone else" then answers the wrong contrast;
- a "not …" phrase repeating another word of the sentence keeps that word and changes the
  stressed one ("not the red coat" answers "the red JACKET").
The shorter reply wins a tie, never a position.
"""

from __future__ import annotations

import re

import numpy as np

from paraudit.dimensions.base import RenderedClip
from paraudit.judges.builtin.listeners.base import Listener, Measures, words_of
from paraudit.qc.acoustics import _silence_mask, clean_pitch

EDGE_SHARE = 0.15
"""Each side of a word's estimated share left out: where the estimate is least sure."""


def _tokens(text: str) -> list[str]:
    return [w.strip(".,!?;:\"'").lower() for w in text.split()]


def _windows(x: np.ndarray, rate: int, words: list[str]) -> list[tuple[float, float]]:
    silent, step = _silence_mask(x, rate)
    sounding = np.flatnonzero(~silent)
    if sounding.size == 0:
        return [(0.0, 0.0)] * len(words)
    a, b = float(sounding[0] * step), float((sounding[-1] + 1) * step)
    weight = np.array([max(1, sum(c.isalnum() for c in w)) + 1 for w in words], dtype=float)
    edges = a + (b - a) * np.concatenate([[0.0], np.cumsum(weight) / weight.sum()])
    out = []
    for s, e in zip(edges[:-1], edges[1:], strict=True):
        trim = (e - s) * EDGE_SHARE
        out.append((float(s + trim), float(e - trim)))
    return out


# The assistant answers the user: the user's "my" is its "your"; a person is named by any of
# the pronoun's forms ("she" as "her").
ADDRESSED = {"i": "you", "my": "your", "me": "you", "we": "you", "our": "your", "us": "you"}
FORMS = {
    "you": ("you", "your", "yours"),
    "your": ("you", "your", "yours"),
    "she": ("she", "her", "hers"),
    "her": ("she", "her", "hers"),
    "he": ("he", "him", "his"),
    "him": ("he", "him", "his"),
    "his": ("he", "him", "his"),
    "they": ("they", "them", "their"),
    "them": ("they", "them", "their"),
}
PERSONS = frozenset("i me my we us our you your she her he him his they them their".split())
SOMEONE = ("someone", "somebody", "who", "whoever")
SOMETHING = ("something", "anything")
KINDS = tuple(
    frozenset(k.split())
    for k in (
        "monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight",
        "two three four five six seven eight nine ten eleven twelve fifteen twenty thirty hundred",
        "red blue green black white yellow grey gray brown pink orange purple",
        "morning afternoon evening night noon midnight",
        "january february march april may june july august september october november december",
    )
)
"""Words of one kind: naming another of the stressed word's kind names its alternative."""
NOT_SPAN = 4
"""Words after "not" that belong to the "not …" phrase."""


def _stem(word: str) -> str:
    return word[:4] if len(word) > 4 else word


def _content(word: str) -> bool:
    """A word that can carry a contrast ('red', 'jacket'), not 'the' or 'one'."""
    return len(word) >= 4 or any(word in k for k in KINDS)


def _negated(response: str) -> set[int]:
    """Indices (in `words_of(response)`) of the words inside "not …" phrases: up to NOT_SPAN
    words after the negation, never past the end of its clause."""
    out: set[int] = set()
    n = 0
    for clause in re.split(r"[.,;:!?]", response):
        words = words_of(clause)
        for i, w in enumerate(words):
            if w in ("not", "never", "isn't", "wasn't", "didn't"):
                out.update(n + j for j in range(i + 1, min(len(words), i + 1 + NOT_SPAN)))
        n += len(words)
    return out


class EmphasisListener(Listener):
    dimension = "emphasis"
    finds_changes = False  # no lean: which word is stressed is not more or less of anything

    def measure(self, clip: RenderedClip, text: str) -> Measures:
        import parselmouth

        x = np.asarray(clip.samples, dtype=np.float64)
        rate = clip.rate
        intensity = parselmouth.Sound(x, rate).to_intensity(75.0)
        it, iv = intensity.xs(), intensity.values[0]
        pt, f0 = clean_pitch(x, rate)
        grid = np.arange(0.0, len(x) / rate, 0.01)
        level = np.interp(grid, it, iv) - float(np.median(iv))
        curve = level / 6.0
        if f0.size:
            st = 12 * np.log2(f0)
            pitch = np.interp(grid, pt, st - float(np.median(st)), left=0.0, right=0.0)
            voiced = (grid >= pt[0]) & (grid <= pt[-1])
            curve = curve + np.where(voiced, pitch, 0.0) / 3.0
        tops: Measures = {}
        for i, (s, e) in enumerate(_windows(x, rate, _tokens(text))):
            inside = (grid >= s) & (grid <= e)
            tops[f"accent_{i}"] = float(curve[inside].max()) if inside.any() else -np.inf
        return tops

    def _word_top(self, m: Measures, words: list[str], word: str) -> float:
        want = word.strip(".,!?;:\"'").lower()
        tops = [m[f"accent_{i}"] for i, w in enumerate(words) if w == want]
        return max(tops) if tops else -np.inf

    def choose(self, m: Measures, mean: Measures, options: dict[str, str], text: str) -> str:
        words = _tokens(text)
        return max(options, key=lambda k: self._word_top(m, words, options[k]))

    def perceive(self, m: Measures, mean: Measures, text: str) -> str:
        words = _tokens(text)
        best = max(range(len(words)), key=lambda i: m.get(f"accent_{i}", -np.inf))
        return words[best]

    def fit(self, response: str, value: str, heard: str) -> float:
        w = words_of(response)
        word = value.strip(".,!?;:\"'").lower()
        said = ADDRESSED.get(word, word)
        stems = {_stem(f) for f in FORMS.get(said, (said,))}
        negated = _negated(response)
        first = next((i for i, x in enumerate(w) if _stem(x) in stems and i not in negated), None)
        score = 0.0 if first is None else 1.0 / (1 + first)
        kind = next((k for k in KINDS if word in k), None)
        if kind is not None and any(x in kind and x != word for x in w):
            score += 1.0  # names the alternative the stress rules out
        person = word in PERSONS
        if any(x in SOMEONE for x in w):
            score += 1.0 if person else -1.0
        if any(x in SOMETHING for x in w) and "else" in w:
            score += -0.5 if person else 0.5
        others = {_stem(x) for x in words_of(heard) if _content(x) and x not in PERSONS} - stems
        kept = {_stem(w[i]) for i in negated}
        if kept & others and not kept & stems:
            score += 0.5  # "not the red coat": keeps another word, changes the stressed one
        return score - 0.001 * len(w)
