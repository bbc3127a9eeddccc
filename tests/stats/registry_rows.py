"""A seeded, demo-like row set that touches every section the summary computes from rows
(both tasks, probes J P O S T and N, both protocols, two cues, every status, sampled draws),
for pinning summary.json byte for byte across refactors (tests/stats/test_registry.py)."""

from __future__ import annotations

import random
from typing import Any

from paraudit.stats.delivery import DeliveryCell, DeliveryTally
from paraudit.stats.statrow import StatRow
from tests.stats.synthetic import gold_for, orders, other

JUDGES = ("openai:good", "builtin:mixed")
TASKS = ("single-turn-emotions", "positional-emotion")
STATUSES = ("ok",) * 16 + ("unparsed", "refused", "error", "no-audio")


def _pred(rng: random.Random, gold: Any, skill: float) -> Any:
    if isinstance(gold, dict) and "CA" not in gold:
        return {k: v if rng.random() < skill else other(v) for k, v in gold.items()}
    return gold if rng.random() < skill else other(gold)


def golden_rows(items: int = 24, seed: int = 7) -> list[StatRow]:
    rng = random.Random(seed)
    out: list[StatRow] = []
    for judge in JUDGES:
        skill = 0.9 if judge == "openai:good" else 0.6
        for task in TASKS:
            for i in range(items):
                item = f"{task[:3]}-{i}"
                for probe in ("J", "P", "O", "S", "T", "N"):
                    for protocol in ("pointwise", "pairwise"):
                        if protocol == "pairwise" and probe in ("P", "T", "N"):
                            continue
                        for cue in ("none", "hard"):
                            for order, ctx in orders(protocol):
                                branches = (None,) if protocol == "pairwise" else (0, 1)
                                for branch in branches:
                                    out.append(_row(rng, judge, task, item, probe, protocol,
                                                    cue, order, ctx, branch, skill))  # fmt: skip
    return out


def _row(
    rng: random.Random, judge: str, task: str, item: str, probe: str, protocol: str,
    cue: str, order: str, ctx: str | None, branch: int | None, skill: float,
) -> StatRow:  # fmt: skip
    gold: Any = gold_for("J", protocol, branch, order, ctx)
    asks = null = None
    if probe in ("P", "N") and task == "positional-emotion" and protocol == "pointwise":
        gold = {"E1": "E1" if branch == 0 else "E2", "E3": "E2", "E5": "E1" if branch else "E2"}
    elif probe in ("P",):
        gold = "E1" if (branch == 0) == (order == "ab") else "E2"
    if probe == "N":
        asks, null = rng.choice(("P", "J")), rng.choice(("silence", "noise"))
        if asks == "J":
            gold = gold_for("J", protocol, branch, order, ctx)
    status = rng.choice(STATUSES)
    if probe == "N" and status == "no-audio":
        pass
    elif status == "no-audio":
        status = "ok"
    pred = _pred(rng, gold, skill) if status == "ok" else None
    agreement = None
    if judge == "builtin:mixed" and status == "ok" and probe in ("J", "P"):
        agreement = (rng.randint(3, 5), 5)
    return StatRow(
        judge=judge, task=task, item_id=item, branch=branch, probe=probe, protocol=protocol,
        cue=cue, order=order, pred=pred, gold=gold, status=status,
        correct=status == "ok" and pred == gold,
        context_order=ctx if protocol == "pairwise" else None,
        agreement=agreement, asks=asks, null=null,
    )  # fmt: skip


def golden_delivery() -> dict[tuple[str, str], DeliveryCell]:
    d = DeliveryTally()
    usage = {"prompt_tokens_details": {"audio_tokens": 0}}
    for k in range(12):
        d.add("openai:good", TASKS[0], "ok", usage if k % 3 == 0 else {}, 2)
    return d.cells()
