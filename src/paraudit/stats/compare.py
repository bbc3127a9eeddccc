"""Run versus run: paired McNemar on shared instances, state shifts, state correlations.

McNemar's exact test (a binomial test on the discordant pairs) asks whether a judge's
accuracy changed between two runs on the same instances — a regression test across versions.
The §5.3 check correlates the (P,O,J) state proportions of the same judges on two datasets
(e.g. synthetic vs real speech), with Spearman and Pearson coefficients.
"""

from __future__ import annotations

from typing import Any

from scipy.stats import binomtest, pearsonr, spearmanr

from paraudit.stats.states import STATES, instance_states, masses

INSTANCE = ("task", "item_id", "probe", "protocol", "cue", "order", "branch")


def _key(r: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(r[k] for k in INSTANCE)


def judge_pairs(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Judges to compare: the same name in both runs, or the only judge of each run."""
    ja, jb = sorted({r["judge"] for r in a}), sorted({r["judge"] for r in b})
    shared = [(j, j) for j in ja if j in jb]
    if shared:
        return shared
    return [(ja[0], jb[0])] if len(ja) == 1 and len(jb) == 1 else []


def mcnemar(a: list[dict[str, Any]], b: list[dict[str, Any]], ja: str, jb: str) -> dict[str, Any]:
    ra = {_key(r): bool(r["correct"]) for r in a if r["judge"] == ja}
    rb = {_key(r): bool(r["correct"]) for r in b if r["judge"] == jb}
    shared = sorted(set(ra) & set(rb), key=str)
    only_a = sum(ra[k] and not rb[k] for k in shared)
    only_b = sum(rb[k] and not ra[k] for k in shared)
    disc = only_a + only_b
    p = binomtest(only_a, disc, 0.5).pvalue if disc else 1.0
    n = len(shared)
    return {
        "judge_a": ja,
        "judge_b": jb,
        "shared": n,
        "accuracy_a": sum(ra[k] for k in shared) / n if n else None,
        "accuracy_b": sum(rb[k] for k in shared) / n if n else None,
        "a_right_b_wrong": only_a,
        "b_right_a_wrong": only_b,
        "p_value": float(p),
    }


def state_shift(
    a: list[dict[str, Any]], b: list[dict[str, Any]], ja: str, jb: str
) -> dict[str, float]:
    ma = masses([s["state"] for s in instance_states(a) if s["judge"] == ja]).masses
    mb = masses([s["state"] for s in instance_states(b) if s["judge"] == jb]).masses
    return {s: mb[s] - ma[s] for s in STATES}


def state_correlation(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any]:
    """Correlation of the 8 state proportions of every shared judge, pooled."""
    xs: list[float] = []
    ys: list[float] = []
    for ja, jb in judge_pairs(a, b):
        ma = masses([s["state"] for s in instance_states(a) if s["judge"] == ja])
        mb = masses([s["state"] for s in instance_states(b) if s["judge"] == jb])
        if ma.n and mb.n:
            xs += [ma.masses[s] for s in STATES]
            ys += [mb.masses[s] for s in STATES]
    if len(xs) < 3:
        return {"points": len(xs), "spearman": None, "pearson": None}
    sp, pe = spearmanr(xs, ys), pearsonr(xs, ys)
    return {
        "points": len(xs),
        "spearman": float(sp.statistic),
        "spearman_p": float(sp.pvalue),
        "pearson": float(pe.statistic),
        "pearson_p": float(pe.pvalue),
    }


def compare_runs(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any]:
    pairs = judge_pairs(a, b)
    return {
        "mcnemar": [mcnemar(a, b, ja, jb) for ja, jb in pairs],
        "state_shift": {f"{ja} → {jb}": state_shift(a, b, ja, jb) for ja, jb in pairs},
        "state_correlation": state_correlation(a, b),
    }
