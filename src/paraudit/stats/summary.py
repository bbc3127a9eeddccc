"""Every figure of the diagnostic report, computed from result rows only (summary.json).

Schema `paraudit.summary/1` (all rates are fractions in [0, 1]; intervals are 95 %):
- `accuracy`: one row per judge × task × probe × protocol × cue — n, correct (strict: unparsed
  and errors count as wrong), accuracy with Wilson ci_low/ci_high, parsed, parsed_accuracy,
  unparsed_rate, errors, refused. Rows with cue "all" pool the cues.
- `protocol_gap`: judge × task × cue (J probe) — pairwise, pointwise, delta = pairwise −
  pointwise, ci_low/ci_high from a paired bootstrap over items, items.
- `cue_dependence`: judge × task × protocol × cue ∈ {hard, transition} (J probe) — delta =
  acc(cue) − acc(none) with a paired item bootstrap interval.
- `states`: judge × task × cue (and "all") — n, masses of the 8 (P,O,J) states, the 5 group
  masses, potemkin_rate = π110 / (π110 + π111) with a Wilson interval.
- `behaviour`: judge × task — audio_sensitivity, pair_accuracy, position_bias (share of R1
  picks), order_consistency, transcript_control (T accuracy), staging_minus_oracle per
  protocol; each as {k, n, rate} or a difference.
- `verdicts`: judge → one plain sentence, from the states pooled over tasks and cues, with
  position bias and audio insensitivity named when they are extreme.
- `pointwise_j_overall`: judge → pointwise J accuracy pooled over tasks and cues.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from paraudit.stats import behaviour as bh
from paraudit.stats.accuracy import wilson_interval
from paraudit.stats.bootstrap import DEFAULT_B, PairedCounts, paired_interval
from paraudit.stats.states import GROUPS, STATES, instance_states, masses, verdict

SCHEMA = "paraudit.summary/1"
Row = dict[str, Any]


def group_by(
    rows: Iterable[Row], key: Callable[[Row], tuple[Any, ...]]
) -> dict[tuple[Any, ...], list[Row]]:
    out: dict[tuple[Any, ...], list[Row]] = defaultdict(list)
    for r in rows:
        out[key(r)].append(r)
    return dict(out)


def accuracy_row(rs: list[Row]) -> dict[str, Any]:
    n = len(rs)
    k = sum(bool(r["correct"]) for r in rs)
    parsed = sum(r["status"] == "ok" for r in rs)
    lo, hi = wilson_interval(k, n)
    return {
        "n": n,
        "correct": k,
        "accuracy": k / n if n else 0.0,
        "ci_low": lo,
        "ci_high": hi,
        "parsed": parsed,
        "parsed_accuracy": k / parsed if parsed else None,
        "unparsed_rate": sum(r["status"] == "unparsed" for r in rs) / n if n else 0.0,
        "errors": sum(r["status"] == "error" for r in rs),
        "refused": sum(r["status"] == "refused" for r in rs),
    }


def _rate(kn: tuple[int, int]) -> dict[str, Any]:
    k, n = kn
    lo, hi = wilson_interval(k, n)
    return {"k": k, "n": n, "rate": k / n if n else None, "ci_low": lo, "ci_high": hi}


def item_counts(rs: list[Row]) -> dict[str, tuple[int, int]]:
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rs:
        out[r["item_id"]][0] += bool(r["correct"])
        out[r["item_id"]][1] += 1
    return {k: (v[0], v[1]) for k, v in out.items()}


def paired(a: list[Row], b: list[Row]) -> PairedCounts | None:
    ca, cb = item_counts(a), item_counts(b)
    items = sorted(set(ca) & set(cb))
    if not items:
        return None
    return PairedCounts(
        np.array([ca[i][0] for i in items], float),
        np.array([ca[i][1] for i in items], float),
        np.array([cb[i][0] for i in items], float),
        np.array([cb[i][1] for i in items], float),
    )


def _diff(a: list[Row], b: list[Row], replicates: int, seed: int) -> dict[str, Any] | None:
    c = paired(a, b)
    if c is None:
        return None
    iv = paired_interval(c, replicates, seed)
    return {"delta": iv.estimate, "ci_low": iv.low, "ci_high": iv.high, "items": len(c.k_a)}


def summarize(rows: list[Row], *, replicates: int = DEFAULT_B, seed: int = 0) -> dict[str, Any]:
    judges = sorted({r["judge"] for r in rows})
    accuracy = []
    for (j, t, p, pr, c), rs in sorted(
        group_by(
            rows, lambda r: (r["judge"], r["task"], r["probe"], r["protocol"], r["cue"])
        ).items()
    ):
        accuracy.append(
            {"judge": j, "task": t, "probe": p, "protocol": pr, "cue": c, **accuracy_row(rs)}
        )
    for (j, t, p, pr), rs in sorted(
        group_by(rows, lambda r: (r["judge"], r["task"], r["probe"], r["protocol"])).items()
    ):
        accuracy.append(
            {"judge": j, "task": t, "probe": p, "protocol": pr, "cue": "all", **accuracy_row(rs)}
        )

    j_rows = group_by(
        (r for r in rows if r["probe"] == "J"),
        lambda r: (r["judge"], r["task"], r["protocol"], r["cue"]),
    )
    gaps, cue_dep = [], []
    for (j, t, pr, c), rs in sorted(j_rows.items()):
        if pr == "pairwise" and (j, t, "pointwise", c) in j_rows:
            point = j_rows[(j, t, "pointwise", c)]
            d = _diff(rs, point, replicates, seed)
            if d:
                gaps.append(
                    {
                        "judge": j,
                        "task": t,
                        "cue": c,
                        "pairwise": accuracy_row(rs)["accuracy"],
                        "pointwise": accuracy_row(point)["accuracy"],
                        **d,
                    }
                )
        if c in ("hard", "transition") and (j, t, pr, "none") in j_rows:
            d = _diff(rs, j_rows[(j, t, pr, "none")], replicates, seed)
            if d:
                cue_dep.append({"judge": j, "task": t, "protocol": pr, "cue": c, **d})

    inst = instance_states(rows)
    states = []
    for (j, t, c), ss in sorted(
        group_by(inst, lambda s: (s["judge"], s["task"], s["cue"])).items()
    ):
        states.append(_state_row(j, t, c, [s["state"] for s in ss]))
    for (j, t), ss in sorted(group_by(inst, lambda s: (s["judge"], s["task"])).items()):
        states.append(_state_row(j, t, "all", [s["state"] for s in ss]))

    behaviour = []
    for (j, t), rs in sorted(group_by(rows, lambda r: (r["judge"], r["task"])).items()):
        by_probe = group_by(rs, lambda r: (r["probe"], r["protocol"]))
        staging = {}
        for pr in ("pointwise", "pairwise"):
            s, o = by_probe.get(("S", pr)), by_probe.get(("O", pr))
            if s and o:
                staging[pr] = accuracy_row(s)["accuracy"] - accuracy_row(o)["accuracy"]
        t_rows = by_probe.get(("T", "pointwise"), [])
        behaviour.append(
            {
                "judge": j,
                "task": t,
                "audio_sensitivity": _rate(bh.audio_sensitivity(rs)),
                "pair_accuracy": _rate(bh.pair_accuracy(rs)),
                "position_bias": _rate(bh.position_bias(rs)),
                "order_consistency": _rate(bh.order_consistency(rs)),
                "transcript_control": _rate((sum(bool(r["correct"]) for r in t_rows), len(t_rows))),
                "staging_minus_oracle": staging,
            }
        )

    verdicts = {}
    overall: dict[str, dict[str, Any] | None] = {}
    for j in judges:
        pooled = masses([s["state"] for s in inst if s["judge"] == j])
        jr = [r for r in rows if r["judge"] == j]
        point = [r for r in jr if r["probe"] == "J" and r["protocol"] == "pointwise"]
        acc = accuracy_row(point) if point else None
        overall[j] = acc
        text = verdict(pooled, acc["accuracy"] if acc else 0.0)
        first, picks = bh.position_bias(jr)
        flips, pairs = bh.audio_sensitivity(jr)
        if picks and first / picks >= 0.9:
            text += f" Position-biased: it picks the first option {first / picks:.0%} of the time."
        if pairs and flips == 0:
            text += " It ignores the audio: no choice changes when only the audio changes."
        verdicts[j] = text

    return {
        "schema": SCHEMA,
        "judges": judges,
        "bootstrap": {"replicates": replicates, "seed": seed},
        "accuracy": accuracy,
        "protocol_gap": gaps,
        "cue_dependence": cue_dep,
        "states": states,
        "behaviour": behaviour,
        "verdicts": verdicts,
        "pointwise_j_overall": overall,
    }


def _state_row(judge: str, task: str, cue: str, states: list[str]) -> dict[str, Any]:
    m = masses(states)
    rate, lo, hi = m.potemkin_rate()
    return {
        "judge": judge,
        "task": task,
        "cue": cue,
        "n": m.n,
        "masses": {s: m.masses[s] for s in STATES},
        "groups": {g: m.group(g) for g in GROUPS},
        "potemkin_rate": rate,
        "potemkin_ci_low": lo,
        "potemkin_ci_high": hi,
    }
