"""The audit plan: items × probes × protocols × cues × orders (× branches for pointwise)."""

from __future__ import annotations

from dataclasses import dataclass

from paraudit.items.dataset import Dataset
from paraudit.protocols.instances import (
    Instance,
    Probe,
    Protocol,
    choose_orders,
    cues_for,
    is_multi_turn,
    j_instance,
    p_instance,
    text_instance,
)


@dataclass(frozen=True)
class PlanSpec:
    probes: tuple[Probe, ...]
    protocols: tuple[Protocol, ...]
    cues: tuple[str, ...]
    orders: str = "both"
    seed: int = 0
    limit: int | None = None


def plan_instances(ds: Dataset, spec: PlanSpec) -> list[Instance]:
    """Every instance except Staging (which needs the judge's P answers first)."""
    out: list[Instance] = []
    for item in ds.items[: spec.limit]:
        for probe in spec.probes:
            if probe == "S":
                continue
            protocols = ("pointwise",) if probe in ("P", "T") else spec.protocols
            for protocol in protocols:
                if protocol not in spec.protocols and probe not in ("P", "T"):
                    continue
                for cue in cues_for(item, probe, spec.cues):
                    branches: list[int | None] = [0, 1] if protocol == "pointwise" else [None]
                    for branch in branches:
                        key = f"{probe}|{protocol}|{cue}|{branch}"
                        for order in choose_orders(item, spec.orders, spec.seed, key):
                            if probe == "J":
                                out.append(j_instance(ds, item, protocol, cue, order, branch))
                            elif probe == "P":
                                assert branch is not None
                                out.append(p_instance(ds, item, cue, order, branch))
                            else:
                                out.append(text_instance(item, probe, protocol, cue, order, branch))
    return out


def staging_instances(
    ds: Dataset, spec: PlanSpec, p_preds: dict[tuple[str, int, str], tuple[str, ...]]
) -> list[Instance]:
    """S instances from the judge's own P predictions, keyed (item, branch, cue) → labels."""
    out: list[Instance] = []
    if "S" not in spec.probes:
        return out
    for item in ds.items[: spec.limit]:
        for protocol in spec.protocols:
            for cue in cues_for(item, "S", spec.cues):
                staged = {b: p_preds.get((item.id, b, cue)) for b in (0, 1)}
                if any(v is None for v in staged.values()):
                    continue  # no parsed P answer: Staging cannot be asked (counted as skipped)
                branches: list[int | None] = [0, 1] if protocol == "pointwise" else [None]
                for branch in branches:
                    key = f"S|{protocol}|{cue}|{branch}"
                    for order in choose_orders(item, spec.orders, spec.seed, key):
                        out.append(
                            text_instance(
                                item,
                                "S",
                                protocol,
                                cue,
                                order,
                                branch,
                                {b: v for b, v in staged.items() if v},
                            )
                        )
    return out


def p_labels(inst: Instance, pred: str | dict[str, str], n_turns: int) -> tuple[str, ...]:
    """Turn a P prediction into per-context-turn emotion names (assistant turns: 'neutral')."""
    if isinstance(pred, str):
        return (inst.options[pred],)
    labels = ["neutral"] * n_turns
    for key, lab in pred.items():
        labels[int(key[1:]) - 1] = inst.options[lab]
    return tuple(labels)


__all__ = ["PlanSpec", "plan_instances", "staging_instances", "p_labels", "is_multi_turn"]
