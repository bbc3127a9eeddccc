"""A parametrised judge model that writes result rows, for testing verdicts by simulation.

A verdict is a claim about a whole family of judges, so it is tested over many simulated
audits of judges whose behaviour is known — skills, noise, habits — not only on one scripted
judge per pattern (`benchmarks/verdicts.py` prints the confusion matrix). Rows have the shape
the runner writes for a default audit: pointwise J, P, O in both response orders for both
branches, pairwise J in both response orders × both context orders, the transcript control T,
per cue. Two task shapes: single-turn (one human turn, a choice of two emotions) and positional
(three human turns; branch 0 shifts after the first, branch 1 after the second).

Every item also has attributes, as a recorded dataset gives the subgroup scan
(`audit_attributes`: contrast, the label each branch differs by, voice, clip and shift times),
drawn from the item's index alone so that a judge's answers draw the same random numbers with
or without them; the subgroup families (a contrast specialist, a label heard as another, a
label prior, a listener that stops after some seconds) answer by them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from paraudit.stats.statrow import StatRow as Row
from paraudit.stats.statrow import reask_pairs
from paraudit.stats.strata_items import ItemAttributes

POSITIONS = ("first", "middle", "last")
TURN_KEYS = ("C1", "C3", "C5")
PAIRS = (("angry", "sad"), ("happy", "sad"), ("angry", "neutral"), ("surprised", "neutral"))
"""The contrasts items cycle through (the starter set's kind of pairs)."""
CALM = {"neutral": 0, "sad": 1, "happy": 2, "surprised": 3, "angry": 4}
"""Calmest first: what a label prior towards calm answers leans to."""
REQUESTED = "gpt-4o"
FALLBACK = "gpt-4o-mini"
"""A routed judge is asked for REQUESTED; its routed share is answered by FALLBACK."""


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
    fixed_errors: bool = False
    """`noise` decided once per question, the same on every draw and re-ask (a deterministic
    judge with errors), instead of afresh on each (a sampling judge)."""
    reask: float = 0.0
    """`paraudit run --reask SHARE`: this share of pointwise questions (not T) asked a second
    time; the row keeps the first answer and both draws' re-ask fields, as the runner writes."""
    only_contrast: str | None = None
    """Subgroup specialist (single-turn): perfect P and J on items of this contrast
    ('angry/sad'), a coin on the others."""
    misheard: str | None = None
    """Hears this label as the other option of its item (single-turn): P and J wrong on the
    branch that has it, right elsewhere; pairwise J a coin on its items (both sound alike)."""
    prior: float = 0.0
    """Label prior (single-turn): this share of P and pointwise J answers go to the calmer of
    the two emotions offered (and its response), whatever it hears."""
    listens_s: float | None = None
    """Time-limited listener (positional): hears the first `listens_s` seconds; P on a later
    turn and J on a branch shifting later are coins (pairwise J a coin when neither shift is
    heard)."""
    routed: float = 0.0
    """This share of rows answered by FALLBACK, right with probability `fallback`, the rest by
    REQUESTED (rows carry the served model, in call order by item); 0: no served model."""
    fallback: float = 0.5


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


class ItemFacts(NamedTuple):
    """What the simulated dataset holds of one item (what audit_attributes reports)."""

    pair: tuple[str, str]
    """(branch 0's label, branch 1's label): for positional items, the emotion of the second
    human turn (where the branches first differ)."""
    voice: str
    seconds: tuple[float, float, float, float, float]
    """Positional: the five context turns' clip lengths (s); single-turn: the clip's, then 0s."""


def item_facts(i: int, task: str) -> ItemFacts:
    """Item i's facts, from its index alone (never the audit's random stream)."""
    rng = np.random.default_rng([7919, i])
    pair = PAIRS[i % len(PAIRS)]
    if rng.random() < 0.5:  # which realisation is branch 0 is a coin, as in a built dataset
        pair = (pair[1], pair[0])
    x = [round(float(s), 2) for s in rng.uniform(1.5, 5.0, 5)]
    if task.startswith("single-turn-"):  # any dimension's: one clip
        x[1:] = [0.0] * 4
    return ItemFacts(pair, f"v{i % 3}", (x[0], x[1], x[2], x[3], x[4]))


def _shift_time(f: ItemFacts, branch: int) -> float:
    # Positional: branch 0 shifts at the second human turn (context turn 3), branch 1 at the
    # third (turn 5): the seconds of context audio before it.
    return round(sum(f.seconds[: 2 if branch == 0 else 4]), 2)


def audit_attributes(
    items: int, task: str = "single-turn-emotions"
) -> dict[tuple[str, str], ItemAttributes]:
    """The attributes the subgroup scan reads for audit_rows' items, as stats.strata_items
    reads them from a dataset: contrast, voice, turns; per branch the label the branches differ
    by, the clip duration and (positional) the shift turn and its time."""
    out = {}
    for i in range(items):
        f = item_facts(i, task)
        item: dict[str, str | float] = {"contrast": "/".join(sorted(f.pair)), "voice": f.voice}
        branches: list[dict[str, str | float]] = []
        for b in (0, 1):
            unit: dict[str, str | float] = {"label": f.pair[b]}
            if task == "single-turn-emotions":
                item["turns"] = "1"
                unit["duration"] = f.seconds[0]
            else:
                item["turns"] = "5"
                unit["duration"] = round(sum(f.seconds), 2)
                unit["shift turn"] = f"human turn {2 + b}"
                unit["shift time"] = _shift_time(f, b)
            branches.append(unit)
        out[(task, f"i{i}")] = ItemAttributes(item, (branches[0], branches[1]))
    return out


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
        rows += _item_rows(model, i, rng, task, cues)
    return rows


def _hearing(model: JudgeModel, f: ItemFacts, probe: str, protocol: str, branch: int | None,
             positional: bool) -> float | None:  # fmt: skip
    """The subgroup families' chance that a P or J answer is right on this question (before
    noise), or None where they do not change it."""
    if probe not in ("P", "J"):
        return None
    if positional:
        if model.listens_s is None or probe == "P":  # P: per turn, in the answer itself
            return None
        shift = _shift_time(f, 0 if branch is None else branch)  # pairwise: the earlier one
        return None if shift < model.listens_s else 0.5
    if model.only_contrast is not None:
        return 1.0 if "/".join(sorted(f.pair)) == model.only_contrast else 0.5
    if model.misheard is not None and model.misheard in f.pair:
        if branch is None:
            return 0.5  # both contexts sound like the other label: nothing to match
        return 0.0 if f.pair[branch] == model.misheard else None
    return None


def _turn_starts(f: ItemFacts) -> tuple[float, float, float]:
    return 0.0, f.seconds[0] + f.seconds[1], sum(f.seconds[:4])


def _item_rows(
    model: JudgeModel, index: int, rng: np.random.Generator, task: str, cues: tuple[str, ...]
) -> list[Row]:
    # Any dimension's single-turn task ('single-turn-whisper') has one human turn: the rows
    # are the same whatever the dimension, only the task name (and so the words) differs.
    positional = not task.startswith("single-turn-")
    item = f"i{index}"
    facts = item_facts(index, task)
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

    def answer(gold: Any, probe: str, protocol: str, cue: str, order: str, rule: Any,
               branch: int | None, flip: bool | None) -> Any:  # fmt: skip
        if model.first:
            if isinstance(gold, dict):
                return {"CA": "R1", "CB": "R2"} if "CA" in gold else dict.fromkeys(gold, "E1")
            return "R1"
        hear = _hearing(model, facts, probe, protocol, branch, positional)
        if fails:
            pred = _other(gold)
        elif model.ab_only and probe != "O":
            pred = gold if order == "ab" else _other(gold)
        elif rule is not None:
            pred = rule
        elif (model.prior and probe in ("P", "J") and protocol == "pointwise"
              and branch is not None and rng.random() < model.prior):  # fmt: skip
            mine, theirs = facts.pair[branch], facts.pair[1 - branch]
            pred = gold if CALM[mine] < CALM[theirs] else _other(gold)
        elif probe == "P" and isinstance(gold, dict):
            s = skill(probe, protocol, cue)
            pred = {}
            starts = _turn_starts(facts)
            for k, pos, at in zip(TURN_KEYS, POSITIONS, starts, strict=True):
                p = s if model.heard is None or pos in model.heard else 0.5
                if model.listens_s is not None and at >= model.listens_s:
                    p = 0.5
                pred[k] = gold[k] if rng.random() < p else _flip(gold[k])
        else:
            p = skill(probe, protocol, cue) if hear is None else hear
            pred = gold if rng.random() < p else _other(gold)
        flipped = rng.random() < model.noise if flip is None else flip
        pred = _other(pred) if flipped else pred
        return _other(pred) if model.invert_p and probe == "P" else pred

    def add(probe: str, protocol: str, cue: str, branch: int | None, order: str,
            ctx: str | None, gold: Any, rule: Any = None) -> None:  # fmt: skip
        served = None
        if model.routed:
            # A provider routes a share of calls to a worse model (items in call order).
            routed = probe != "T" and rng.random() < model.routed
            served = (FALLBACK if routed else REQUESTED, None, index)
        else:
            routed = False
        # Fixed errors: one flip per question, the same on every draw and re-ask.
        flip = bool(rng.random() < model.noise) if model.fixed_errors else None

        def draw() -> Any:
            if probe == "T":
                return rule
            if routed:
                return gold if rng.random() < model.fallback else _other(gold)
            return answer(gold, probe, protocol, cue, order, rule, branch, flip)

        draws = [draw() for _ in range(model.samples)]
        pred, agreement = _majority(draws) if model.samples > 1 else (draws[0], None)
        hits = reask = None
        if model.reask and probe != "T" and protocol == "pointwise" and rng.random() < model.reask:
            # --reask: the row keeps its first answer; both asks give its re-ask fields.
            again = draw()
            agreement = (2 if again == pred else 1, 2)
            hits, reask = ((pred == gold) + (again == gold), 2), (int(again != pred), 1)
        elif model.samples > 1:  # as the runner's rows carry them (statrow: from `samples`)
            hits = (sum(d == gold for d in draws), model.samples)
            reask = reask_pairs([{"status": "ok", "pred": d} for d in draws])
        status = "ok"
        if model.refuse and probe != "T" and rng.random() < model.refuse:
            pred, agreement, status, hits, reask = None, None, "refused", None, None
        rows.append(Row(judge=model.name, task=task, item_id=item, branch=branch, probe=probe,
                        protocol=protocol, cue=cue, order=order, context_order=ctx, pred=pred,
                        gold=gold, status=status, correct=status == "ok" and pred == gold,
                        agreement=agreement, draw_hits=hits, reask=reask,
                        served_call=served))  # fmt: skip

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


class JudgeType(NamedTuple):
    """A scripted type of the simulation study and the verdict its behaviour implies."""

    model: JudgeModel
    want: frozenset[str]
    """The diagnoses that are right for it."""
    task: str
    named: frozenset[str] = frozenset()
    """Marks (`verdict_marks`) the verdict must carry: what it must name."""


DETECTORS = frozenset({
    "fails in a subgroup", "answered by another model", "drifts during the run",
    "one draw less accurate", "answers not given", "P inverted", "O inverted",
})  # fmt: skip
"""Issue 27's detectors: a type's verdict carries none of them beyond its `named` ones (a mark
a judge's behaviour does not imply is a false alarm, whatever its diagnosis)."""


def verdict_marks(verdict: Mapping[str, Any]) -> frozenset[str]:
    """What a verdict (summary.json's `verdicts` entry) names: its behaviours' kinds and, per
    component found inverted at any cue, '<probe> inverted'."""
    kinds = {b["kind"] for b in verdict.get("behaviours") or []}
    inverted = {f"{p} inverted" for c in verdict.get("components") or [] for p in c["inverted"]}
    return frozenset(kinds | inverted)


def judged_right(t: JudgeType, verdict: Mapping[str, Any]) -> tuple[bool, bool, bool]:
    """(the diagnosis is right, everything it must name is named, no other detector fired)."""
    marks = verdict_marks(verdict)
    return (verdict["diagnosis"] in t.want, t.named <= marks,
            not (marks & DETECTORS) - t.named)  # fmt: skip


ST, POS = "single-turn-emotions", "positional-emotion"
_NO_MODE = {"reliable", "usable, no systematic failure mode"}
# The scripted types of the simulation study and the verdict each one's behaviour implies.
TYPES: dict[str, JudgeType] = {
    name: JudgeType(model, frozenset(want), task, frozenset(named))
    for name, model, want, task, named in [
        ("perfect", JudgeModel("perfect"), {"reliable"}, ST, ()),
        ("noise 10 %", JudgeModel("noise10", noise=0.1), _NO_MODE, ST, ()),
        ("noise 20 %", JudgeModel("noise20", noise=0.2), _NO_MODE, ST, ()),
        ("just under the bar", JudgeModel("bar", noise=0.22),
         {"usable, no systematic failure mode"}, ST, ()),
        ("co-occurring failures", JudgeModel("cooccur", noise=0.05, item_failure=0.2),
         {"usable, systematic failure mode"}, ST, ()),
        ("Potemkin", JudgeModel("potemkin", p=0.9, o=0.9, j=0.5), {"Potemkin"}, ST, ()),
        ("perception bottleneck", JudgeModel("perception", p=0.5, o=0.9, j=0.5),
         {"perception bottleneck"}, ST, ()),
        ("mapping bottleneck", JudgeModel("mapping", p=0.9, o=0.5, j=0.5),
         {"response-mapping bottleneck"}, ST, ()),
        ("pairwise only", JudgeModel("pairwise", p=0.5, o=0.5, j=0.5, j_pairwise=0.9),
         {"recoverable only in pairwise"}, ST, ()),
        ("cue-dependent", JudgeModel("cued", p=0.5, o=0.5, j=0.5, cued=0.9),
         {"works only when cued"}, ST, ()),
        ("always first", JudgeModel("first", first=True), {"position-biased"}, ST, ()),
        ("order-dependent", JudgeModel("orderab", ab_only=True), {"order-dependent"}, ST, ()),
        ("deaf to audio", JudgeModel("deaf", deaf=True, o=0.9), {"ignores the audio"}, ST, ()),
        ("random", JudgeModel("random", p=0.5, o=0.5, j=0.5), {"at chance"}, ST, ()),
        ("hears only the last turn", JudgeModel("lastturn", p=0.95, o=0.9, j=0.5,
                                                heard=("last",)),
         {"hears only some turns"}, POS, ()),
        # issue 27: answers not given, and a component in the swapped convention
        ("refuses 30 %", JudgeModel("refuser", refuse=0.3),
         {"usable, no systematic failure mode"}, ST, ("answers not given",)),
        ("inverted P convention", JudgeModel("invertedP", invert_p=True), {"reliable"}, ST,
         ("P inverted",)),
        # issue 27: subgroup specialists (their failures sit on items of one kind: a
        # systematic failure mode, and the subgroup is named)
        ("hears one contrast only", JudgeModel("contrast", only_contrast="angry/sad"),
         {"usable, systematic failure mode"}, ST, ("fails in a subgroup",)),
        ("hears angry as the other label", JudgeModel("misheard", misheard="angry"),
         {"usable, systematic failure mode"}, ST, ("fails in a subgroup",)),
        ("label prior (calm, 50 %)", JudgeModel("prior", prior=0.5),
         {"usable, systematic failure mode"}, ST, ("fails in a subgroup",)),
        # Right on shifts in the first 8 s, a coin on later ones: J usable, whole-trajectory
        # P at chance (its last turn is a coin), so the components are not read.
        ("hears only the first 8 s", JudgeModel("first8s", listens_s=8.0),
         {"usable", "hears only some turns"}, POS, ("fails in a subgroup",)),
        # issue 27: a provider answering half the calls with a coin-level fallback, at random
        # (not in time: no drift), so the failures are independent of the item
        ("routed half to a worse model", JudgeModel("openai:gpt-4o", routed=0.5),
         {"usable, no systematic failure mode"}, ST, ("answered by another model",)),
        # issue 27: fresh draws vs fixed errors, at 80 % a draw
        ("fresh draws 80 %, majority of 5", JudgeModel("fresh5", noise=0.2, samples=5),
         {"reliable"}, ST, ("one draw less accurate",)),
        ("fixed errors 20 %, 5 draws", JudgeModel("fixed5", noise=0.2, samples=5,
                                                  fixed_errors=True), _NO_MODE, ST, ()),
        ("fresh draws 80 %, re-asked 20 %", JudgeModel("freshre", noise=0.2, reask=0.2),
         _NO_MODE, ST, ()),
        ("fixed errors 20 %, re-asked 20 %", JudgeModel("fixedre", noise=0.2, reask=0.2,
                                                        fixed_errors=True), _NO_MODE, ST, ()),
    ]
}  # fmt: skip
"""Type name → the judge model, the verdict that is right for it and the task shape."""


def task_in(task: str, dimension: str) -> str | None:
    """A study type's task (written for emotion) as `dimension`'s task of the same kind; None
    where the dimension has no items of that kind (whisper has no positional items). Every
    dimension's values are two per question, so only the task name changes: the verdict's
    words (stats/verdict_text.py reads the dimension from it), not the rows."""
    from paraudit.dimensions import registry

    dim = registry.get(dimension)
    kind = "single-turn" if task.startswith("single-turn-") else "positional"
    return dim.task_for(kind) if kind in dim.item_kinds else None
