"""builtin:urgency — hears urgency by speaking rate and the missing pauses.

Perception: the syllable rate (the dataset's transcript counts the syllables) against the top
of the QC's calm band (5.6 syllables/s), and the pause share against the midpoint between the
urgent bound (≤ 0.08) and the calm one (≥ 0.1) (qc/urgency.py). Mapping: an urgent caller needs
the one action to take now; a calm one can be given the explanation and the options.
"""

from __future__ import annotations

from paraudit.dimensions.base import RenderedClip
from paraudit.judges.builtin.listeners.base import (
    Listener,
    Measures,
    count,
    log_ratio,
    words_of,
)
from paraudit.qc.dimension_measures import features, pause_share

CALM_TOP = 5.6
PAUSE_MID = 0.09
NOW = frozenset(
    "now immediately straight away right call emergency quickly fast first shut stop get "
    "turn leave find go".split()
)
LATER = frozenset(
    "usually could might worth when while over habit often normal normally enough plenty "
    "later can look help happens most".split()
)


class UrgencyListener(Listener):
    dimension = "urgency"

    def measure(self, clip: RenderedClip, text: str) -> Measures:
        return {
            "syllable_rate": features(clip, text).syllable_rate,
            "pause_share": pause_share(clip),
        }

    def lean(self, m: Measures, mean: Measures) -> float:
        fast = log_ratio(m["syllable_rate"], CALM_TOP) / 0.1
        return fast + (PAUSE_MID - m["pause_share"]) / 0.03

    def fit(self, response: str, value: str, heard: str) -> float:
        w = words_of(response)
        urgent = count(w, NOW) - count(w, LATER) - len(w) / 15
        return urgent if value == "urgent" else -urgent
