"""A parametrised judge model that writes result rows, for testing verdicts by simulation.

A verdict is a claim about a whole family of judges, so it is tested over many simulated
audits of judges whose behaviour is known — skills, noise, habits — not only on one scripted
judge per pattern (`benchmarks/verdicts.py` prints the confusion matrix). Rows have the shape
the runner writes for a default audit: pointwise J, P, O in both response orders for both
branches, pairwise J in both response orders × both context orders, the transcript control T,
per cue. Two task shapes: single-turn (one human turn, a choice of two emotions) and positional
(three human turns; branch 0 shifts after the first, branch 1 after the second).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from paraudit.stats.statrow import StatRow as Row

POSITIONS = ("first", "middle", "last")
TURN_KEYS = ("C1", "C3", "C5")


@dataclass(frozen=True)
class JudgeModel:
    """How a simulated judge answers. Skills are the probability an answer is right (½ is a
    coin); every answer is then flipped with probability `noise`, independently."""

    name: str
    p: float = 1.0
    """Perception: P answers (each human turn of a positional trajectory separately)."""
    o: float = 1.0
    """Oracle response mapping: O answers."""
    j: float = 1.0
    """Native judgment: pointwise J answers."""
    j_pairwise: float | None = None
    """Pairwise J (default: `j`)."""
    cued: float | None = None
    """J, P and O under a cue other than none (default: the uncued skills)."""
    noise: float = 0.0
    item_failure: float = 0.0
    """Share of items on which every answer is wrong (failures that co-occur)."""
    first: bool = False
    """Always the first option (R1, E1, CA → R1), whatever was asked."""
    ab_only: bool = False
    """Right when the responses come in the given order, wrong when swapped."""
    deaf: bool = False
    """J and P follow the words only: one answer for both branches."""
    heard: tuple[str, ...] | None = None
    """Positional P: the human-turn positions it hears; the others are coins."""
    refuse: float = 0.0
    """Share of questions (any probe but T) refused; the rest are answered as above."""
    invert_p: bool = False
    """P answered in the swapped label convention (every P answer flipped): hears, says E2."""
    samples: int = 1
    """`?samples=N`: every answer drawn N times independently (skill and noise each time); the
    row's answer is their majority (ties: the first drawn) and its `agreement` the majority's
    count of N. 1: one draw, and the random stream of an unsampled audit."""


def _flip(label: str) -> str:
    return {"R1": "R2", "R2": "R1", "E1": "E2", "E2": "E1"}[label]


def _other(pred: Any) -> Any:
    if isinstance(pred, dict):
        return {k: _flip(v) for k, v in pred.items()}
    return _flip(pred)


def _majority(draws: list[Any]) -> tuple[Any, tuple[int, int]]:
    """The most common draw (ties: the first drawn) and (its count, draws), as the runner's
    majority row and StatRow.agreement have them."""
    keys = [json.dumps(d, sort_keys=True) for d in draws]
    counts = Counter(keys)
    best = max(counts.values())
    first = next(d for d, k in zip(draws, keys, strict=True) if counts[k] == best)
    return first, (best, len(draws))


def _emotions(branch: int) -> tuple[str, str, str]:
    # X = "E1 in order ab", Y = "E2 in order ab"; branch 0 shifts earlier.
    return ("X", "Y", "Y") if branch == 0 else ("X", "X", "Y")


def _label(emotion: str, order: str) -> str:
    first = "X" if order == "ab" else "Y"
    return "E1" if emotion == first else "E2"


def _trajectory(branch: int, order: str) -> dict[str, str]:
    return {k: _label(e, order) for k, e in zip(TURN_KEYS, _emotions(branch), strict=True)}


def audit_rows(
    model: JudgeModel,
    items: int,
    rng: np.random.Generator,
    *,
    task: str = "single-turn-emotions",
    cues: tuple[str, ...] = ("none", "hard"),
) -> list[Row]:
    """The rows one audit of `items` items writes for this judge."""
    rows: list[Row] = []
    for i in range(items):
        rows += _item_rows(model, f"i{i}", rng, task, cues)
    return rows


def _item_rows(
    model: JudgeModel, item: str, rng: np.random.Generator, task: str, cues: tuple[str, ...]
) -> list[Row]:
    # Any dimension's single-turn task ('single-turn-whisper') has one human turn: the rows
    # are the same whatever the dimension, only the task name (and so the words) differs.
    positional = not task.startswith("single-turn-")
    rows: list[Row] = []
    fails = rng.random() < model.item_failure
    prefer = int(rng.random() < 0.5)  # the branch a text-only reader prefers

    def skill(probe: str, protocol: str, cue: str) -> float:
        base = {"P": model.p, "O": model.o, "J": model.j}[probe]
        if probe == "J" and protocol == "pairwise" and model.j_pairwise is not None:
            base = model.j_pairwise
        if cue != "none" and model.cued is not None and probe != "O":
            base = model.cued
        return base

    def answer(gold: Any, probe: str, protocol: str, cue: str, order: str, rule: Any) -> Any:
        if model.first:
            if isinstance(gold, dict):
                return {"CA": "R1", "CB": "R2"} if "CA" in gold else dict.fromkeys(gold, "E1")
            return "R1"
        if fails:
            pred = _other(gold)
        elif model.ab_only and probe != "O":
            pred = gold if order == "ab" else _other(gold)
        elif rule is not None:
            pred = rule
        elif probe == "P" and isinstance(gold, dict):
            s = skill(probe, protocol, cue)
            pred = {}
            for k, pos in zip(TURN_KEYS, POSITIONS, strict=True):
                p = s if model.heard is None or pos in model.heard else 0.5
                pred[k] = gold[k] if rng.random() < p else _flip(gold[k])
        else:
            pred = gold if rng.random() < skill(probe, protocol, cue) else _other(gold)
        pred = _other(pred) if rng.random() < model.noise else pred
        return _other(pred) if model.invert_p and probe == "P" else pred

    def add(probe: str, protocol: str, cue: str, branch: int | None, order: str,
            ctx: str | None, gold: Any, rule: Any = None) -> None:  # fmt: skip
        draws = [answer(gold, probe, protocol, cue, order, rule) if probe != "T" else rule
                 for _ in range(model.samples)]  # fmt: skip
        pred, agreement = _majority(draws) if model.samples > 1 else (draws[0], None)
        status = "ok"
        if model.refuse and probe != "T" and rng.random() < model.refuse:
            pred, agreement, status = None, None, "refused"
        rows.append(Row(judge=model.name, task=task, item_id=item, branch=branch, probe=probe,
                        protocol=protocol, cue=cue, order=order, context_order=ctx, pred=pred,
                        gold=gold, status=status, correct=status == "ok" and pred == gold,
                        agreement=agreement))  # fmt: skip

    for cue in cues:
        for branch in (0, 1):
            for order in ("ab", "ba"):
                choice = "R1" if (branch == 0) == (order == "ab") else "R2"
                text_choice = "R1" if (prefer == 0) == (order == "ab") else "R2"
                add("J", "pointwise", cue, branch, order, None, choice,
                    text_choice if model.deaf else None)  # fmt: skip
                add("O", "pointwise", cue, branch, order, None, choice)
                if positional:
                    add("P", "pointwise", cue, branch, order, None, _trajectory(branch, order),
                        _trajectory(0, order) if model.deaf else None)  # fmt: skip
                else:
                    # Deaf, P picks one emotion by its name: the same one in both orders.
                    add("P", "pointwise", cue, branch, order, None, choice,
                        ("R1" if order == "ab" else "R2") if model.deaf else None)  # fmt: skip
        for order in ("ab", "ba"):
            text_choice = "R1" if (prefer == 0) == (order == "ab") else "R2"
            # Deaf, the two contexts are the same words: one matching whatever their order.
            deaf_match = {"CA": text_choice, "CB": _flip(text_choice)}
            for ctx in ("ab", "ba"):
                same = order == ctx
                gold = {"CA": "R1", "CB": "R2"} if same else {"CA": "R2", "CB": "R1"}
                add("J", "pairwise", cue, None, order, ctx, gold,
                    deaf_match if model.deaf else None)  # fmt: skip
    for branch in (0, 1):
        for order in ("ab", "ba"):
            # T sees the words only: every judge answers it by its text-only preference.
            text_choice = "R1" if (prefer == 0) == (order == "ab") else "R2"
            choice = "R1" if (branch == 0) == (order == "ab") else "R2"
            add("T", "pointwise", "none", branch, order, None, choice, text_choice)
    return rows


# The scripted types of the simulation study and the diagnoses each one's behaviour implies.
TYPES: dict[str, tuple[JudgeModel, frozenset[str], str]] = {
    name: (model, frozenset(want), task)
    for name, model, want, task in [
        ("perfect", JudgeModel("perfect"), {"reliable"}, "single-turn-emotions"),
        ("noise 10 %", JudgeModel("noise10", noise=0.1),
         {"reliable", "usable, no systematic failure mode"}, "single-turn-emotions"),
        ("noise 20 %", JudgeModel("noise20", noise=0.2),
         {"reliable", "usable, no systematic failure mode"}, "single-turn-emotions"),
        ("just under the bar", JudgeModel("bar", noise=0.22),
         {"usable, no systematic failure mode"}, "single-turn-emotions"),
        ("co-occurring failures", JudgeModel("cooccur", noise=0.05, item_failure=0.2),
         {"usable, systematic failure mode"}, "single-turn-emotions"),
        ("Potemkin", JudgeModel("potemkin", p=0.9, o=0.9, j=0.5), {"Potemkin"},
         "single-turn-emotions"),
        ("perception bottleneck", JudgeModel("perception", p=0.5, o=0.9, j=0.5),
         {"perception bottleneck"}, "single-turn-emotions"),
        ("mapping bottleneck", JudgeModel("mapping", p=0.9, o=0.5, j=0.5),
         {"response-mapping bottleneck"}, "single-turn-emotions"),
        ("pairwise only", JudgeModel("pairwise", p=0.5, o=0.5, j=0.5, j_pairwise=0.9),
         {"recoverable only in pairwise"}, "single-turn-emotions"),
        ("cue-dependent", JudgeModel("cued", p=0.5, o=0.5, j=0.5, cued=0.9),
         {"works only when cued"}, "single-turn-emotions"),
        ("always first", JudgeModel("first", first=True), {"position-biased"},
         "single-turn-emotions"),
        ("order-dependent", JudgeModel("orderab", ab_only=True), {"order-dependent"},
         "single-turn-emotions"),
        ("deaf to audio", JudgeModel("deaf", deaf=True, o=0.9), {"ignores the audio"},
         "single-turn-emotions"),
        ("random", JudgeModel("random", p=0.5, o=0.5, j=0.5), {"at chance"},
         "single-turn-emotions"),
        ("hears only the last turn", JudgeModel("lastturn", p=0.95, o=0.9, j=0.5,
                                                heard=("last",)),
         {"hears only some turns"}, "positional-emotion"),
        # issue 27: answers not given, and a component in the swapped convention
        ("refuses 30 %", JudgeModel("refuser", refuse=0.3),
         {"usable, no systematic failure mode"}, "single-turn-emotions"),
        ("inverted P convention", JudgeModel("invertedP", invert_p=True), {"reliable"},
         "single-turn-emotions"),
    ]
}  # fmt: skip
"""Type name → (judge model, the diagnoses that are right for it, task shape)."""


def task_in(task: str, dimension: str) -> str | None:
    """A study type's task (written for emotion) as `dimension`'s task of the same kind; None
    where the dimension has no items of that kind (whisper has no positional items). Every
    dimension's values are two per question, so only the task name changes: the verdict's
    words (stats/verdict_text.py reads the dimension from it), not the rows."""
    from paraudit.dimensions import registry

    dim = registry.get(dimension)
    kind = "single-turn" if task.startswith("single-turn-") else "positional"
    return dim.task_for(kind) if kind in dim.item_kinds else None
