"""Run versus run, at item level: per probe, state shifts, state correlations.

A regression test across judge versions or datasets. For every probe × protocol, each
(task, item, cue, branch) unit both runs answered is scored order-consistently (right in every
order that ran). Per item, each run's accuracy over its shared units gives:
- a paired bootstrap interval of acc(B) − acc(A), resampling whole items;
- an exact McNemar test on the items: an item is discordant when one run does better on it
  than the other, and under "no change" each discordant item favours either run with
  probability ½ (a two-sided binomial test; with one unit per item this is McNemar's exact
  test, with several it is its sign-test form). Items, not instances, are the trials: three
  items flipping give p = 0.25, not the p ≈ 1e-11 that counting their instances would.
The §5.3 check correlates the order-consistent (P, O, J) state proportions of the same judges
on two datasets (e.g. synthetic vs real speech), with Spearman and Pearson coefficients.

State shifts and correlations use only the items both runs hold states for (their count is
shown): over each run's whole item set, two runs with identical answers on their shared items
would show shifts that are only the items one of them has. Below `MIN_SHARED_ITEMS` shared
items the state comparison is refused.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.stats import binomtest, pearsonr, spearmanr

from paraudit.errors import ParauditError
from paraudit.stats.bootstrap import PairedCounts, paired_interval
from paraudit.stats.states import STATES, masses, unit_states
from paraudit.stats.units import Row, answered

Unit = tuple[str, str, str, Any]
"""(task, item_id, cue, branch)"""
MIN_SHARED_ITEMS = 10


def judge_pairs(a: list[Row], b: list[Row]) -> list[tuple[str, str]]:
    """Judges to compare: the same name in both runs, or the only judge of each run."""
    ja, jb = judge_labels(a), judge_labels(b)
    shared = [(j, j) for j in ja if j in jb]
    if shared:
        return shared
    return [(ja[0], jb[0])] if len(ja) == 1 and len(jb) == 1 else []


def judge_labels(rows: list[Row]) -> list[str]:
    return sorted({r.judge for r in rows})


def resolve_pair(
    text: str, a: list[Row], b: list[Row], names: tuple[str, str] = ("A", "B")
) -> tuple[str, str]:
    """'A=B' → (judge A of run a, judge B of run b).

    Judge labels may hold '=' themselves (model options: 'openai:m?temperature=0'), so every
    '=' is tried as the separator and the one whose two sides name judges of the two runs wins.
    A label missing from its run is one line that lists the labels the run has."""
    la, lb = judge_labels(a), judge_labels(b)
    splits = [(text[:i], text[i + 1 :]) for i, c in enumerate(text) if c == "="]
    if not splits:
        raise ParauditError(
            f"--judge {text!r}: write LABEL_A=LABEL_B (a judge of run {names[0]}, then one of "
            f"run {names[1]})"
        )
    found = [(x, y) for x, y in splits if x in la and y in lb]
    if len(found) == 1:
        return found[0]
    if found:
        raise ParauditError(
            f"--judge {text!r} can be read as "
            + " or ".join(f"{x!r}={y!r}" for x, y in found)
            + "; the judge labels are ambiguous here"
        )
    left = next((x for x, _ in splits if x in la), None)
    if left is None:
        missing, run, labels = splits[0][0], names[0], la
    else:
        missing, run, labels = text[len(left) + 1 :], names[1], lb
    raise ParauditError(
        f"--judge {text!r}: run {run} has no judge {missing!r} (its judges: "
        f"{', '.join(labels) or 'none'})"
    )


def consistent_units(rows: list[Row], judge: str) -> dict[tuple[str, str], dict[Unit, bool]]:
    """(probe, protocol) → unit → right in every order that ran (failed calls left out).

    The transcript control T is left out: both branches get the same words, so it has no right
    answer to compare."""
    tally: dict[tuple[str, str], dict[Unit, list[int]]] = defaultdict(
        lambda: defaultdict(lambda: [0, 0])
    )
    failed: set[tuple[str, str, Unit]] = set()  # a failed call leaves its unit undecided
    for r in rows:
        # The misleading cue and tie items measure pressure and abstention, not skill: pooled
        # here they would read as lost accuracy (stats/pressure.py, stats/ties.py).
        if r.cue == "misleading" or r.gold == "tie":
            continue
        if r.judge == judge and r.probe != "T":
            unit = (r.task, r.item_id, r.cue, r.branch)
            if not answered(r):
                failed.add((r.probe, r.protocol, unit))
                continue
            t = tally[(r.probe, r.protocol)][unit]
            t[0] += 1
            t[1] += bool(r.correct)
    return {
        k: {u: n == c for u, (n, c) in v.items() if (*k, u) not in failed} for k, v in tally.items()
    }


def item_test(
    ua: dict[Unit, bool], ub: dict[Unit, bool], replicates: int = 10_000, seed: int = 0
) -> dict[str, Any]:
    """Item-level comparison of two runs' order-consistent outcomes on their shared units."""
    per: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for u in set(ua) & set(ub):
        t = per[(u[0], u[1])]
        t[0] += ua[u]
        t[1] += ub[u]
        t[2] += 1
    items = sorted(per)
    out: dict[str, Any] = {"items": len(items), "units": sum(per[i][2] for i in items)}
    if not items:
        return {**out, "accuracy_a": None, "accuracy_b": None, "delta": None, "ci_low": None,
                "ci_high": None, "a_better": 0, "b_better": 0, "p_value": 1.0}  # fmt: skip
    ka = np.array([per[i][0] for i in items], float)
    kb = np.array([per[i][1] for i in items], float)
    n = np.array([per[i][2] for i in items], float)
    iv = paired_interval(PairedCounts(kb, n, ka, n), replicates, seed)
    a_better = int(np.sum(ka > kb))
    b_better = int(np.sum(kb > ka))
    disc = a_better + b_better
    return {
        **out,
        "accuracy_a": float(ka.sum() / n.sum()),
        "accuracy_b": float(kb.sum() / n.sum()),
        "delta": iv.estimate,
        "ci_low": iv.low,
        "ci_high": iv.high,
        "a_better": a_better,
        "b_better": b_better,
        "p_value": float(binomtest(a_better, disc, 0.5).pvalue) if disc else 1.0,
    }


def per_probe(
    a: list[Row], b: list[Row], ja: str, jb: str, replicates: int = 10_000, seed: int = 0
) -> list[dict[str, Any]]:
    ca, cb = consistent_units(a, ja), consistent_units(b, jb)
    out = []
    for probe, protocol in sorted(set(ca) & set(cb)):
        test = item_test(ca[(probe, protocol)], cb[(probe, protocol)], replicates, seed)
        out.append({"judge_a": ja, "judge_b": jb, "probe": probe, "protocol": protocol, **test})
    return out


def _states(rows: list[Row], judge: str) -> list[dict[str, Any]]:
    return [s for s in unit_states([r for r in rows if r.judge == judge])]


def shared_state_items(a: list[Row], b: list[Row], ja: str, jb: str) -> set[tuple[str, str]]:
    """(task, item) that both runs hold (P, O, J) states for, for this judge pair."""
    ia = {(s["task"], s["item_id"]) for s in _states(a, ja)}
    ib = {(s["task"], s["item_id"]) for s in _states(b, jb)}
    return ia & ib


def _masses(rows: list[Row], judge: str, keep: set[tuple[str, str]]) -> dict[str, float] | None:
    m = masses([s["state"] for s in _states(rows, judge) if (s["task"], s["item_id"]) in keep])
    return m.masses if m.n else None


def state_shift(a: list[Row], b: list[Row], ja: str, jb: str) -> dict[str, Any]:
    """B − A state masses on the items both runs hold states for; refused (with the count)
    below MIN_SHARED_ITEMS of them."""
    keep = shared_state_items(a, b, ja, jb)
    out: dict[str, Any] = {"shared_items": len(keep), "shift": {}}
    if len(keep) < MIN_SHARED_ITEMS:
        out["refused"] = (
            f"only {len(keep)} items hold (P, O, J) states in both runs (at least "
            f"{MIN_SHARED_ITEMS} are needed to compare states)"
        )
        return out
    ma, mb = _masses(a, ja, keep), _masses(b, jb, keep)
    if ma is not None and mb is not None:
        out["shift"] = {s: mb[s] - ma[s] for s in STATES}
    return out


def state_correlation(
    a: list[Row], b: list[Row], pairs: Sequence[tuple[str, str]] | None = None
) -> dict[str, Any]:
    """Correlation of the 8 state proportions of every compared judge pair, pooled, each pair
    on the items both runs hold states for (pairs with fewer than MIN_SHARED_ITEMS left out)."""
    xs: list[float] = []
    ys: list[float] = []
    shared = 0
    for ja, jb in judge_pairs(a, b) if pairs is None else pairs:
        keep = shared_state_items(a, b, ja, jb)
        if len(keep) < MIN_SHARED_ITEMS:
            continue
        ma, mb = _masses(a, ja, keep), _masses(b, jb, keep)
        if ma is not None and mb is not None:
            shared += len(keep)
            xs += [ma[s] for s in STATES]
            ys += [mb[s] for s in STATES]
    if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return {"points": len(xs), "shared_items": shared, "spearman": None, "pearson": None}
    sp, pe = spearmanr(xs, ys), pearsonr(xs, ys)
    return {
        "points": len(xs),
        "shared_items": shared,
        "spearman": float(sp.statistic),
        "spearman_p": float(sp.pvalue),
        "pearson": float(pe.statistic),
        "pearson_p": float(pe.pvalue),
    }


def compare_runs(
    a: list[Row],
    b: list[Row],
    *,
    replicates: int = 10_000,
    seed: int = 0,
    pairs: Sequence[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """`pairs`: (judge of a, judge of b) to compare (see resolve_pair); default judge_pairs."""
    pairs = judge_pairs(a, b) if pairs is None else list(dict.fromkeys(pairs))
    return {
        "unit": "item",
        "probes": [t for ja, jb in pairs for t in per_probe(a, b, ja, jb, replicates, seed)],
        "state_shift": {f"{ja} → {jb}": state_shift(a, b, ja, jb) for ja, jb in pairs},
        "state_correlation": state_correlation(a, b, pairs),
    }
