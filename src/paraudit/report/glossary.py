"""One line of explanation where a term first appears on the page ("Potemkin", "component
bottleneck", …): a newcomer met them in the verdicts before the guide at the bottom said what
they mean. The page is built top to bottom through one `Glossary`, which hands out each line
once, at the first text that uses its term."""

from __future__ import annotations

from html import escape

TERMS: dict[str, str] = {
    "native": "the judge's ordinary use: one conversation, two replies, no hint what to "
    "listen for (pointwise J, no cue).",
    "reliable": "native J's 95 % lower bound is at least 80 %.",
    "above chance": "native J's interval lies above what a judge deaf to the audio scores.",
    "at chance": "native J scores what a judge deaf to the audio can; its answers are "
    "evidence of nothing.",
    "below chance": "it picks the wrong reply more often than a deaf guess: it hears "
    "something and maps it the wrong way round.",
    "Potemkin": "hears the contrast (P) and maps it when told in text (O), yet fails the "
    "native judgment (J): the parts work, the whole does not.",
    "component bottleneck": "one part fails: perception (010, it does not hear the contrast) "
    "or response mapping (100, it hears it but cannot pick the reply).",
    "perception bottleneck": "maps the contrast when told in text, but does not hear it.",
    "response-mapping bottleneck": "hears the contrast, but cannot map it to the right reply.",
    "shortcut-like success": "right natively without the part it should rest on: a cue in "
    "the words or the position, not the audio.",
    "full-stack failure": "wrong at hearing, mapping and judging alike (000).",
    "systematic failure mode": "P, O and J fail together more often than independent parts "
    "would (a permutation test over items).",
    "recoverable only in pairwise": "right when both versions of the conversation are shown "
    "side by side (pairwise), not natively.",
    "works only when cued": "right only when the prompt says what to listen for.",
    "position-biased": "picks the first (or second) reply whatever the audio.",
    "order-dependent": "right in one reply order only.",
    "ignores the audio": "its answer does not change when only the audio changes.",
    "answers not given": "most of its questions got a refusal, an unparsed reply or an "
    "error, so there is too little to judge.",
}
"""Term (as the verdicts write it) → what it means, in one line."""


class Glossary:
    """Hands out each term's line once, to the first text (in page order) that uses it."""

    def __init__(self) -> None:
        self.told: set[str] = set()

    def first_uses(self, *texts: str) -> list[str]:
        """The terms `texts` use that no earlier text did (now counted as told), longest first
        so 'perception bottleneck' is not told as a part of another term."""
        found = []
        for term in sorted(TERMS, key=len, reverse=True):
            if term in self.told:
                continue
            if any(term in t for t in texts):
                found.append(term)
                self.told.add(term)
        return sorted(found, key=lambda t: min(_at(t, texts)))

    def lines(self, *texts: str) -> str:
        """The HTML lines for the terms `texts` use first ('' when none)."""
        terms = self.first_uses(*texts)
        if not terms:
            return ""
        items = "".join(f"<li><dfn>{escape(t)}</dfn>: {escape(TERMS[t])}</li>" for t in terms)
        return f'<ul class="gloss">{items}</ul>'


def _at(term: str, texts: tuple[str, ...]) -> list[int]:
    """Where `term` first appears, counting the texts one after another."""
    offset, out = 0, []
    for t in texts:
        i = t.find(term)
        if i >= 0:
            out.append(offset + i)
        offset += len(t) + 1
    return out or [offset]
