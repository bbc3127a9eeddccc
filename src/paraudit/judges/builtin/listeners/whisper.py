"""builtin:whisper — hears a whisper by its missing voicing.

Perception: the voiced share of the sounding frames and the harmonics-to-noise ratio (the
whisper QC's own figures, qc/whisper.py), each against the midpoint of the QC's bounds
(voiced share: whispered ≤ 0.1, voiced ≥ 0.4; HNR: ≤ 2.5 dB, ≥ 3.0 dB). Mapping: a whispered
request calls for a discreet reply (sent to a screen, kept quiet); a voiced one for the answer
said out loud (its figures and details).
"""

from __future__ import annotations

from paraudit.dimensions.base import RenderedClip
from paraudit.judges.builtin.listeners.base import Listener, Measures, count, words_of
from paraudit.qc.dimension_measures import voicing

VOICED_MID = 0.25
HNR_MID_DB = 2.75
DISCREET = frozenset(
    "send sent text texted screen phone privately private quiet quietly later overhear "
    "overhears hearing heard without aloud loud show message discreet silent".split()
)
SPOKEN = frozenset(
    "is are it's you have your one two three four five six seven eight nine ten "
    "hundred thousand".split()
)


class WhisperListener(Listener):
    dimension = "whisper"

    def measure(self, clip: RenderedClip, text: str) -> Measures:
        voiced, hnr = voicing(clip)
        return {"voiced_fraction": voiced, "hnr_db": hnr}

    def lean(self, m: Measures, mean: Measures) -> float:
        return (VOICED_MID - m["voiced_fraction"]) / 0.15 + (HNR_MID_DB - m["hnr_db"]) / 3.0

    def fit(self, response: str, value: str, heard: str) -> float:
        w = words_of(response)
        discreet = count(w, DISCREET) - 0.5 * count(w, SPOKEN) - response.count(",") * 0.25
        return discreet if value == "whispered" else -discreet
