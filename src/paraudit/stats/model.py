"""Typed records of the summary's verdicts: what the report, the terminal and the simulation
study read, instead of string keys into dicts.

A verdict follows the paper's diagnostic cascade (§1, §3.2–3.3), one `Step` per question:

1. `native` — does pointwise J work with no cue (or the least cued cue that ran)?
2. `recoverable` — if not, is the contrast recoverable when both worlds are shown (pairwise)?
3. `cue` — does it work only when the prompt cues the contrast?
4. `components` — which of P, O, J fails, per cue (never pooled over cues), and do failures
   co-occur more than independent components would give?
5. `behaviours` — habits that explain a score: position or order habits, deafness to the audio,
   repeating the text-only choice, hearing only some turns; and, from the calls' usage, audio
   the provider did not count ("audio not delivered in N calls", `stats/delivery.py`).

`diagnosis` is one name per verdict (the confusion matrix of `benchmarks/verdicts.py` counts
these); `headline` is the one line the terminal and the report's first screen show.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Estimate(BaseModel):
    """A proportion or difference with its 95 % item-bootstrap interval."""

    model_config = ConfigDict(frozen=True)

    rate: float | None = None
    """The statistic on all items (None when undefined: nothing answered)."""
    ci_low: float | None = None
    ci_high: float | None = None
    items: int = 0
    """Items the statistic rests on."""
    decision_low: float | None = None
    decision_high: float | None = None
    """The 99 % interval a verdict step decides by, where one was computed (see
    `stats/verdicts.py`: a cascade asks several questions of one judge)."""

    def above(self, x: float) -> bool:
        """The decision interval's (else the 95 % interval's) lower end is above `x`."""
        low = self.ci_low if self.decision_low is None else self.decision_low
        return low is not None and low > x

    def below(self, x: float) -> bool:
        """The decision interval's (else the 95 % interval's) upper end is below `x`."""
        high = self.ci_high if self.decision_high is None else self.decision_high
        return high is not None and high < x


Outcome = Literal["above chance", "at chance", "below chance", "not run"]

Diagnosis = Literal[
    "reliable",
    "usable, no systematic failure mode",
    "usable, systematic failure mode",
    "usable",
    "recoverable only in pairwise",
    "works only when cued",
    "Potemkin",
    "perception bottleneck",
    "response-mapping bottleneck",
    "shortcut-like success",
    "position-biased",
    "order-dependent",
    "ignores the audio",
    "hears only some turns",
    "below chance",
    "at chance",
    "answers not given",
    "no answers",
]
"""One name per verdict, in the cascade's precedence (see `stats/verdicts.py`)."""


class Step(BaseModel):
    """One question of the cascade, its answer and the evidence it rests on."""

    model_config = ConfigDict(frozen=True)

    name: Literal["native", "recoverable", "cue", "components", "behaviours"]
    ran: bool
    """False when the probes this step needs were not asked (its text says which)."""
    outcome: str
    """A short name of the answer, e.g. 'reliable', 'at chance', 'recoverable', 'not run'."""
    cue: str | None = None
    """The cue the step's evidence comes from (never 'all')."""
    text: str
    evidence: dict[str, Estimate] = Field(default_factory=dict)


class Behaviour(BaseModel):
    """A habit that explains (part of) a score, with the figure that shows it."""

    model_config = ConfigDict(frozen=True)

    kind: Literal[
        "position-biased",
        "order-dependent",
        "ignores the audio",
        "repeats its text-only choice",
        "hears only some turns",
        "audio not delivered",
        "answers without audio",
        # The invariance audit (stats/invariance.py), on a run over an invariance set:
        "flips on irrelevant changes",
        "not discriminating",
        # Answer accounting (stats/accounting.py): refusals, unparsed replies, no-audio, errors
        "answers not given",
        "fails in a subgroup",  # stats/strata.py
        "one draw less accurate",  # stats/reask.py: ?samples=N, a draw vs the majority
        # Which model answered (stats/served.py): the reply's model field, the drift test.
        "answered by another model",
        "drifts during the run",
        "follows the text against the audio",  # the misleading cue (stats/pressure.py)
        "never says there is no difference",  # the ties preset (stats/ties.py)
        "abstains where the audio decides",
        "follows the words against the voice",  # word–tone conflict items (stats/conflict.py)
    ]
    text: str
    evidence: Estimate | None = None
    probes: list[str] = Field(default_factory=list)
    """The probes the habit shows in (position bias: J, P, O …); empty when not per probe."""


class ComponentsAtCue(BaseModel):
    """The (P, O, J) attribution at one cue."""

    model_config = ConfigDict(frozen=True)

    cue: str
    pattern: str
    """'all components work', 'Potemkin', 'perception bottleneck', 'response-mapping
    bottleneck', 'shortcut-like success', 'no component above chance'."""
    marginals: dict[str, Estimate]
    """Pointwise P, O, J accuracy at this cue (per instance, item intervals)."""
    above: dict[str, bool]
    """Each of P, O, J above what the best deaf guesser scores."""
    inverted: list[str] = Field(default_factory=list)
    """P or O below chance: informative, in the swapped convention (not deaf)."""
    dependence_tested: bool
    """P, O and J were each above chance, so a dependence between them means something."""
    over_represented: list[str] = Field(default_factory=list)
    """State groups whose mass exceeds independence (Bonferroni over the five groups)."""
    text: str


class Verdict(BaseModel):
    """The cascade's answer for one judge × task."""

    model_config = ConfigDict(frozen=True)

    judge: str
    task: str
    items: int
    small_sample: bool
    failed_calls: int = 0
    diagnosis: Diagnosis
    headline: str
    """One line: can I use this judge natively, and if not, why."""
    native: Step
    recoverable: Step
    cue: Step
    components: list[ComponentsAtCue]
    behaviours: list[Behaviour]
    text: str
    """Every step in one paragraph (the report's 'why' text)."""
    # Kept for readers of summary/2 (figures grey at-chance judges by `kind`).
    kind: str
    """'at chance', 'below chance', 'above chance' (native J) or 'no answers'."""
    group: str | None = None
    """The components pattern at the native cue when it names a state group, else None."""
    j_accuracy: Estimate | None = None
    """Native J accuracy (the step's evidence), for the verdict table's column."""
