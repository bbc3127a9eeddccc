"""The typed summary (schema `paraudit.summary/3`): what the report, the terminal and readers of
summary.json read, as validated records instead of string keys into dicts.

`summarize()` builds plain dicts (it is tuned for speed, `benchmarks/stats.py`); `Summary.of`
validates them once into these models, and summary.json is written from the model
(`Summary.to_json`), so the file, its JSON Schema (`summary.schema.json`, generated from these
models by `write_schema`) and the report cannot drift apart. Every record forbids unknown keys:
a key added to `summarize()` without a field here fails loudly, not silently unreported.

The JSON keeps the shape earlier readers know: a record holds the keys `summarize()` computed
for it (e.g. `decision_low` only where a verdict step decides by it), which `exclude_unset`
preserves; an absent key means "not computed", a null one "undefined" (nothing answered).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from paraudit.stats.conflict import ConflictRecord
from paraudit.stats.delivery import DeliveryCell
from paraudit.stats.model import Estimate, Verdict
from paraudit.stats.pressure import TextDominance
from paraudit.stats.served import ServedModels
from paraudit.stats.ties import TieRecord

SCHEMA = "paraudit.summary/3"
SCHEMA_FILE = Path(__file__).with_name("summary.schema.json")


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Share(Estimate):
    """A proportion with its item interval (Estimate), as its own closed record."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class _Cell(_Record):
    judge: str
    task: str


class Consistent(Share):
    """Order-consistent accuracy: units right in every order that ran."""

    units: int
    """(item, branch) units with an answer in every order."""


class AccuracyCell(_Cell):
    """Accuracy of one judge × task × probe × protocol × cue (cue 'all': pooled, labelled)."""

    probe: str
    protocol: str
    cue: str
    n: int
    """Answered instances (failed calls are left out and counted in `errors`)."""
    correct: int
    accuracy: float | None = None
    """Per instance, as the paper's tables (None when nothing was answered)."""
    ci_low: float | None = None
    ci_high: float | None = None
    items: int = 0
    decision_low: float | None = None
    decision_high: float | None = None
    """The 99 % interval verdict steps decide by."""
    wilson_low: float | None = None
    wilson_high: float | None = None
    """The paper's per-instance Wilson interval."""
    parsed: int
    parsed_accuracy: float | None = None
    unparsed: int
    unparsed_rate: float | None = None
    refused: int
    errors: int
    orders: int
    """The most presentations (response × context orders) any unit was answered in."""
    chance: float | None = None
    """What the best deaf guesser scores given the options offered."""
    consistent: Consistent
    above_chance: bool = False
    """The 95 % interval's lower end is above `chance`."""

    @property
    def estimate(self) -> Estimate:
        return Estimate(rate=self.accuracy, ci_low=self.ci_low, ci_high=self.ci_high,
                        items=self.items, decision_low=self.decision_low,
                        decision_high=self.decision_high)  # fmt: skip


class Difference(_Cell):
    """A paired difference of two accuracies on the items both hold."""

    delta: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    items: int = 0
    decision_low: float | None = None
    decision_high: float | None = None

    @property
    def estimate(self) -> Estimate:
        return Estimate(rate=self.delta, ci_low=self.ci_low, ci_high=self.ci_high,
                        items=self.items, decision_low=self.decision_low,
                        decision_high=self.decision_high)  # fmt: skip


class ProtocolGap(Difference):
    """Pairwise − pointwise J accuracy at one cue."""

    cue: str


class CueDependence(Difference):
    """J accuracy under a cue − under none, per protocol."""

    protocol: str
    cue: str


class StagingMinusOracle(Difference):
    """S − O accuracy (all cues pooled), per protocol."""

    protocol: str


class GroupTest(_Record):
    """One state group in the permutation test of dependence."""

    units: int
    expected: float
    """Units independent P, O, J with the same marginals would give."""
    z: float
    p_value: float
    """Family-wise over the five groups (max-z)."""


class Dependence(_Record):
    """Whether failures of P, O and J co-occur more than independence gives (one cue)."""

    units: int
    permutations: int
    alpha: float | None = None
    """Absent when there were no units to test."""
    groups: dict[str, GroupTest]
    over_represented: list[str]
    """Groups named over-represented, largest z first."""


class StateRow(_Cell):
    """Order-consistent (P, O, J) states of one judge × task × cue ('all': pooled, labelled)."""

    cue: str
    units: int
    items: int
    masses: dict[str, Share]
    """The eight states '111' … '000'."""
    groups: dict[str, Share]
    """The five groups (reliable, Potemkin, component bottleneck, shortcut-like success,
    full-stack failure)."""
    expected: dict[str, Share]
    """Group masses independent P, O, J with the same marginals would give."""
    excess: dict[str, Share]
    marginals: dict[str, Share]
    """P, O, J accuracy over the units."""
    potemkin: Share
    """π110 / (π110 + π111)."""
    potemkin_baseline: Share
    """Its independence baseline 1 − acc(J)."""
    interpretable: bool
    """P, O and J each above chance at this cue."""
    not_above_chance: list[str]
    dependence: Dependence | None = None
    """Per cue only (pooling cues would count one item's units several times)."""

    @property
    def over_represented(self) -> list[str] | None:
        return None if self.dependence is None else self.dependence.over_represented


class PositionShare(Share):
    """Share of first-option picks of one cell (not an accuracy)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    judge: str
    task: str
    probe: str
    protocol: str
    cue: str
    direction: Literal["first", "second"] | None = None
    """Set when the judge is biased to one option (`stats/verdicts.py`)."""


class BehaviourRates(_Cell):
    """Audio sensitivity, pair accuracy and J-choice order consistency (all cues pooled)."""

    audio_sensitivity: Share
    pair_accuracy: Share
    order_consistency: Share


class TranscriptControl(_Cell):
    """The text-only probe T: its preference and its agreement with J."""

    answers: int
    unparsed: int
    refused: int
    errors: int
    order_consistency: Share | None = None
    prefers_branch_0: Share | None = None
    j_t_agreement: Share | None = None


class Bounds(BaseModel):
    """An interval's two ends (undefined where nothing was answered)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    low: float | None = None
    high: float | None = None


class PerceptionTurns(Share):
    """Positional P accuracy per human turn, at one cue."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    judge: str
    task: str
    cue: str


class PerceptionPosition(PerceptionTurns):
    """Positional P at one human-turn position, beside what a deaf guesser scores there."""

    position: str
    """'first', 'middle' or 'last' (what verdicts decide by), or 'human turn N' (shown)."""
    chance: float
    versus: dict[str, Bounds] | None = None
    """For first / middle / last: P here minus P at each other of them, paired by dialogue
    (99 % decision interval): a turn is "not heard" only below a heard one."""


class OrderDependence(_Cell):
    """Pointwise J in response order ab, in ba, and ab − ba (paired), at one cue."""

    probe: str
    protocol: str
    cue: str
    ab: Share
    ba: Share
    delta: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    items: int = 0
    decision_low: float | None = None
    decision_high: float | None = None
    """The 99 % interval the verdict's "order-dependent" is decided by."""

    @property
    def estimate(self) -> Estimate:
        return Estimate(rate=self.delta, ci_low=self.ci_low, ci_high=self.ci_high,
                        items=self.items, decision_low=self.decision_low,
                        decision_high=self.decision_high)  # fmt: skip


class BehaviourByCue(_Cell):
    """Audio sensitivity, J-choice order consistency and J–T agreement at one cue."""

    cue: str
    audio_sensitivity: Share
    order_consistency: Share
    j_t_agreement: Share


class NullAudioCell(_Cell):
    """Probe N for one asked probe (P, J) × null kind (silence, noise): `stats/null_audio.py`."""

    asks: str
    null: str
    answers: int
    """N questions that did not fail (the shares' denominator)."""
    no_audio_replies: int
    unparsed: int
    refused: int
    errors: int
    pairs: int
    """N questions whose real-audio twin was answered (agreement's denominator)."""
    confident: Share
    """Share of answers naming a valid label."""
    no_audio: Share
    """Share of no-audio outcomes ("I can't hear anything")."""
    agreement: Share
    """Share of N answers equal to the real-audio answer of the same question."""
    answers_without_audio: bool
    """agreement's 95 % lower bound above ¾ (the rule: stats/null_audio.py)."""


class InvarianceFlip(_Cell):
    """The invariance audit for one change (variants pooled) or one variant
    (stats/invariance.py): how often the J choice flips, beside how often it follows the
    emotion."""

    change: str
    """'voice', 'loudness', … (pooled) or a variant such as 'voice-up'."""
    variants: list[str]
    pooled: bool
    pairs: int
    """(original, twin) answer pairs, both parsed."""
    flipped: int
    flip_rate: Share
    sensitivity: Share
    """Share of (item, cue, order) whose J choice differs between the branches."""
    sensitivity_minus_flip: Share
    flips: bool
    """The 'flips on C changes' rule fired."""
    not_discriminating: bool
    reask: Share | None = None
    """The judge's own re-ask disagreement on identical audio (sampled judges only)."""
    flip_minus_reask: Share | None = None
    """Flip rate − re-ask rate, paired on items; either flag needs it above 0 where measured."""


class VoiceAccuracy(_Cell):
    """Pointwise J accuracy per voice: the originals and each voice twin (fairness)."""

    voice: str
    n: int
    correct: int
    accuracy: Share


class SelfConsistency(_Cell):
    """`?samples=N`: how far one draw of a sampled judge agrees with its majority, per probe
    (stats/samples.py). Not skill: an always-R1 judge is 100 % self-consistent."""

    probe: str
    questions: int
    """Sampled questions (rows) with at least one answered draw."""
    items: int
    agreement: Share
    """Mean share of a question's answered draws that agree with its majority."""
    unanimous: float
    """Share of questions whose answered draws all agree."""


class GivenAccuracy(Share):
    """Accuracy of the answers given, with the 99 % interval the verdict decides by."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class AccountingCell(_Cell):
    """Every question of one probe × protocol × cue in exactly one outcome
    (`stats/accounting.py`); protocol and cue 'all' pool them."""

    probe: str
    protocol: str
    cue: str
    questions: int
    answered: int
    """Questions with a parsed answer (right + wrong; T: its answers, which have no gold)."""
    right: int | None = None
    wrong: int | None = None
    refused: int
    no_audio: int
    unparsed: int
    error: int
    shapes: list[str]
    """The probe's most frequent unparsed reply shapes (most frequent first)."""
    bare_choice: int = 0
    """Unparsed choice questions whose reply is a bare label (what `--parse lenient` reads)."""
    given_accuracy: GivenAccuracy | None = None
    """right / answered with its item interval (absent for T)."""


class Bootstrap(_Record):
    replicates: int
    seed: int
    unit: Literal["item"]


class DependenceSettings(_Record):
    test: str
    permutations: int
    alpha: float


class Summary(_Record):
    """Every number of the diagnostic report (summary.json)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    schema_id: Literal["paraudit.summary/3"] = Field(alias="schema")
    judges: list[str]
    bootstrap: Bootstrap
    dependence: DependenceSettings
    intervals: int
    """Item-level 95 % intervals the summary holds."""
    accuracy: list[AccuracyCell]
    protocol_gap: list[ProtocolGap]
    cue_dependence: list[CueDependence]
    staging_minus_oracle: list[StagingMinusOracle]
    states: list[StateRow]
    position_bias: list[PositionShare]
    behaviour: list[BehaviourRates]
    transcript_control: list[TranscriptControl]
    perception_turns: list[PerceptionTurns]
    perception_positions: list[PerceptionPosition]
    order_dependence: list[OrderDependence]
    behaviour_by_cue: list[BehaviourByCue]
    verdicts: list[Verdict]
    delivery: list[DeliveryCell] = Field(default_factory=list)
    """The audio-delivery check per judge × task (`stats/delivery.py`; absent in summaries
    written before it existed)."""
    null_audio: list[NullAudioCell] = Field(default_factory=list)
    """Probe N's cells (absent in summaries written before it)."""
    self_consistency: list[SelfConsistency] = Field(default_factory=list)
    """Sampled judges only (absent from summaries written before it)."""
    accounting: list[AccountingCell] = Field(default_factory=list)
    """Answer accounting per probe × protocol × cue (absent from summaries before it)."""
    runs: list[str] | None = None
    """The run folders the report read (written by `paraudit report`)."""
    invariance: list[InvarianceFlip] = Field(default_factory=list)
    """Runs on an invariance set only (`build invariance`): flip rates per change."""
    invariance_voices: list[VoiceAccuracy] = Field(default_factory=list)
    text_dominance: list[TextDominance] = Field(default_factory=list)
    """Runs with the misleading cue only (`stats/pressure.py`)."""
    ties: list[TieRecord] = Field(default_factory=list)
    """Runs with the ties prompt preset only (`stats/ties.py`)."""
    conflict: list[ConflictRecord] = Field(default_factory=list)
    """Runs over word–tone conflict items only (`stats/conflict.py`)."""
    served: list[ServedModels] = Field(default_factory=list)
    """Which model answered (stats/served.py): per judge × task, the models the replies named,
    their shares and accuracy, and the drift test over call order."""
    strata: list[dict[str, Any]] = Field(default_factory=list)
    """The subgroup scan (stats/strata.py): per-stratum records, the P confusion matrix and
    every tested split; runs whose dataset folder is readable only."""
    reask: list[dict[str, Any]] = Field(default_factory=list)
    """Re-ask noise of sampled judges (stats/reask.py): one draw vs the majority, the re-ask
    disagreement, and J's audio sensitivity beyond it."""
    generator_bias: list[dict[str, Any]] = Field(default_factory=list)
    """Reports of two runs on two generators' sets only: the one result of
    stats/generator_bias.py (also written whole as the report's generators.json)."""
    scaffold: list[dict[str, Any]] = Field(default_factory=list)
    """Reports holding a judge and its `scaffold:` only (stats/scaffold.py; scaffold.json)."""
    joined: list[dict[str, Any]] = Field(default_factory=list)
    """Reports holding a judge with its clips separate and joined only (stats/joined.py;
    joined.json)."""

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Summary:
        """Validate what `summarize()` returns (or a summary.json's contents)."""
        return cls.model_validate(raw)

    @classmethod
    def read(cls, path: Path) -> Summary:
        return cls.model_validate_json(path.read_text(encoding="utf-8"))

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of summary.json (see the module docstring)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def section(self, name: str) -> list[dict[str, Any]]:
        """One section's records as JSON dicts (the report's full_*.csv files)."""
        records: list[BaseModel | dict[str, Any]] = getattr(self, name)
        # Sections typed as plain records (strata, reask) are already JSON dicts.
        return [
            r if isinstance(r, dict) else r.model_dump(mode="json", exclude_unset=True)
            for r in records
        ]


def json_schema() -> dict[str, Any]:
    """The JSON Schema of summary.json, generated from `Summary`."""
    schema = Summary.model_json_schema(by_alias=True, mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA,
        **schema,
    }


def write_schema(path: Path = SCHEMA_FILE) -> None:
    """Regenerate the committed schema file (after a change to these models)."""
    path.write_text(json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n", "utf-8")


if __name__ == "__main__":
    write_schema()
