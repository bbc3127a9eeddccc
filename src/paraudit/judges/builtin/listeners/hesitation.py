"""builtin:hesitation — hears hesitation by its silent pauses.

Perception: the share of the speech span that is silent against the midpoint of the QC's
bounds (hesitant ≥ 0.22, fluent ≤ 0.2), and the count of pauses ≥ 0.3 s (hesitant ≥ 1, fluent
0) (qc/hesitation.py). Mapping: a hesitant user is asked to confirm or given time before
anything is done; a fluent one gets it done.
"""

from __future__ import annotations

from paraudit.dimensions.base import RenderedClip
from paraudit.judges.builtin.listeners.base import Listener, Measures, count, words_of
from paraudit.qc.dimension_measures import long_pauses, pause_share
from paraudit.qc.hesitation import LONG_PAUSE_S

PAUSE_MID = 0.21
CHECK = frozenset(
    "would shall sure before first maybe think help time rush instead want like decide "
    "whether or hold check".split()
)
DONE = frozenset(
    "done booked sent cancelled canceled ordered confirmed set added moved paid finished "
    "scheduled".split()
)


class HesitationListener(Listener):
    dimension = "hesitation"

    def measure(self, clip: RenderedClip, text: str) -> Measures:
        return {
            "pause_share": pause_share(clip),
            "long_pauses": float(long_pauses(clip, LONG_PAUSE_S)),
        }

    def lean(self, m: Measures, mean: Measures) -> float:
        return (m["pause_share"] - PAUSE_MID) / 0.05 + (m["long_pauses"] - 0.5)

    def fit(self, response: str, value: str, heard: str) -> float:
        w = words_of(response)
        hesitant = 1.5 * response.count("?") + 0.5 * count(w, CHECK) - count(w, DONE)
        return hesitant if value == "hesitant" else -hesitant
