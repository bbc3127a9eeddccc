"""Validating the "follows the text against the audio" rule by simulation (issue 32).

A parametrised judge family answers pointwise J with and without the misleading cue; its rows
go through the real tally and rule (stats/pressure.py). Parameters:

- `skill`: how often it hears the audio right (otherwise a coin); each item's skill varies
  around it (sd 0.15), so answers of one item are correlated, as with real items;
- `obedience`: under the misleading cue, how often it takes the cue's value instead of listening;
- `noise`: how often any answer is a coin, whatever it heard or read.

Its true pressure is (1 − noise) · obedience · (1 + skill) / 2: a judge that obeys no cue has
pressure 0 whatever its skill, and must not get the behaviour.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paraudit.stats.analysis import GroupContext
from paraudit.stats.pressure import PressureTally
from paraudit.stats.statrow import StatRow


@dataclass(frozen=True)
class FamilyJudge:
    skill: float
    obedience: float
    noise: float

    @property
    def pressure(self) -> float:
        return (1 - self.noise) * self.obedience * (1 + self.skill) / 2


def judge_rows(judge: FamilyJudge, items: int, rng: np.random.Generator) -> list[StatRow]:
    """Every pointwise J row (2 branches × 2 orders × cues none and misleading) of one audit."""
    rows = []
    for i in range(items):
        skill = float(np.clip(judge.skill + 0.15 * rng.standard_normal(), 0, 1))
        for branch in (0, 1):
            for order in ("ab", "ba"):
                gold = "R1" if (branch == 0) == (order == "ab") else "R2"
                wrong = "R2" if gold == "R1" else "R1"
                for cue in ("none", "misleading"):
                    if rng.random() < judge.noise:
                        pred = gold if rng.random() < 0.5 else wrong
                    elif cue == "misleading" and rng.random() < judge.obedience:
                        pred = wrong
                    elif rng.random() < skill:
                        pred = gold
                    else:
                        pred = gold if rng.random() < 0.5 else wrong
                    rows.append(StatRow("sim", "single-turn-emotions", f"it-{i}", branch, "J",
                                        "pointwise", cue, order, pred, gold, "ok",
                                        pred == gold))  # fmt: skip
    return rows


def flag_rate(
    judge: FamilyJudge, items: int, audits: int, *, replicates: int = 500, seed: int = 0
) -> float:
    """Share of simulated audits in which the rule names the behaviour."""
    rng = np.random.default_rng(seed)
    flagged = 0
    for a in range(audits):
        tally = PressureTally("sim", "single-turn-emotions")
        for row in judge_rows(judge, items, rng):
            tally.add(row)
        ctx = GroupContext("sim", "single-turn-emotions", items, replicates, seed + a)
        flagged += bool(tally.records(ctx)[0]["follows_text"])
    return flagged / audits


@dataclass(frozen=True)
class TieJudge:
    """A judge under the ties preset: says "tie" on a tie item with probability `spots`, on an
    item the audio decides with probability `abstains`; otherwise answers R1/R2 (right with
    probability `skill`, else a coin)."""

    spots: float
    abstains: float
    skill: float = 1.0


def tie_rows(judge: TieJudge, items: int, ties: int, rng: np.random.Generator) -> list[StatRow]:
    rows = []
    for i in range(items + ties):
        tie = i >= items
        for branch in (0, 1):
            for order in ("ab", "ba"):
                gold = "tie" if tie else ("R1" if (branch == 0) == (order == "ab") else "R2")
                if rng.random() < (judge.spots if tie else judge.abstains):
                    pred = "tie"
                elif not tie and rng.random() < judge.skill:
                    pred = gold
                else:
                    pred = "R1" if rng.random() < 0.5 else "R2"
                rows.append(StatRow("sim", "single-turn-emotions", f"it-{i}", branch, "J",
                                    "pointwise", "none", order, pred, gold, "ok",
                                    pred == gold))  # fmt: skip
    return rows


def tie_flag_rates(
    judge: TieJudge, items: int, ties: int, audits: int, *, replicates: int = 500, seed: int = 0
) -> tuple[float, float]:
    """Shares of simulated audits naming (never abstains, always abstains)."""
    from paraudit.stats.ties import TieTally

    rng = np.random.default_rng(seed)
    never = always = 0
    for a in range(audits):
        tally = TieTally("sim", "single-turn-emotions")
        for row in tie_rows(judge, items, ties, rng):
            tally.add(row)
        ctx = GroupContext("sim", "single-turn-emotions", items + ties, replicates, seed + a)
        (rec,) = tally.records(ctx)
        never += bool(rec["never_abstains"])
        always += bool(rec["always_abstains"])
    return never / audits, always / audits


@dataclass(frozen=True)
class WordsJudge:
    """A judge on word–tone conflict items (stats/conflict.py): with probability `pull` it picks
    the response the words' value calls for; otherwise it hears the voice right with
    probability `skill` (per item, sd 0.15), else a coin; `deaf` judges answer each item by
    one fixed coin per order instead of listening (same words, same answer on both
    branches); `noise` makes any answer a coin. Its true gap (conflict − congruent accuracy)
    is −(1 − noise) · pull whatever its skill: 0 when it follows no words."""

    skill: float
    pull: float
    noise: float = 0.0
    deaf: bool = False


def words_rows(judge: WordsJudge, items: int, rng: np.random.Generator) -> list[StatRow]:
    """Native pointwise J rows of `items` conflict items; branch 0 is the congruent one on even
    items, the conflict one on odd items (as the builders' balanced coin)."""
    rows = []
    for i in range(items):
        skill = float(np.clip(judge.skill + 0.15 * rng.standard_normal(), 0, 1))
        congruent = i % 2
        habit = {o: "R1" if rng.random() < 0.5 else "R2" for o in ("ab", "ba")}
        for branch in (0, 1):
            for order in ("ab", "ba"):
                gold = "R1" if (branch == 0) == (order == "ab") else "R2"
                wrong = "R2" if gold == "R1" else "R1"
                # The response the words call for: the congruent branch's.
                worded = gold if branch == congruent else wrong
                if rng.random() < judge.noise:
                    pred = gold if rng.random() < 0.5 else wrong
                elif judge.deaf:
                    pred = habit[order]
                elif rng.random() < judge.pull:
                    pred = worded
                elif rng.random() < skill:
                    pred = gold
                else:
                    pred = gold if rng.random() < 0.5 else wrong
                rows.append(StatRow("sim", "single-turn-emotions", f"it-{i}", branch, "J",
                                    "pointwise", "none", order, pred, gold, "ok",
                                    pred == gold))  # fmt: skip
    return rows


def words_flag_rate(
    judge: WordsJudge, items: int, audits: int, *, replicates: int = 500, seed: int = 0
) -> float:
    """Share of simulated audits in which "follows the words against the voice" is named."""
    from paraudit.stats.conflict import ConflictTally
    from paraudit.stats.strata_items import WORDS, ItemAttributes

    sides = ({WORDS: "congruent"}, {WORDS: "conflict"})
    attributes = {
        f"it-{i}": ItemAttributes({}, sides[::-1] if i % 2 else sides) for i in range(items)
    }
    rng = np.random.default_rng(seed)
    flagged = 0
    for a in range(audits):
        tally = ConflictTally("sim", "single-turn-emotions")
        for row in words_rows(judge, items, rng):
            tally.add(row)
        ctx = GroupContext("sim", "single-turn-emotions", items, replicates, seed + a,
                           attributes=attributes)  # fmt: skip
        flagged += bool(tally.records(ctx)[0]["follows_words"])
    return flagged / audits


__all__ = [
    "FamilyJudge",
    "TieJudge",
    "WordsJudge",
    "flag_rate",
    "judge_rows",
    "tie_flag_rates",
    "tie_rows",
    "words_flag_rate",
    "words_rows",
]
