"""The paper's generator-bias check (§5.3, Fig. 5): the same judges on two audit sets composed
from the same source records by generators of different families.

Worry: a judge of family F does best on the F-composed set because it recognises its own
family's writing, not because it hears better. Per task × protocol × cue, from probe J:

- each judge's accuracy on each set (per instance, strict: unparsed is wrong, failed calls left
  out — the paper's figure) and the difference B − A;
- the judges' ranking on each set: Kendall's τ-b and Spearman's ρ between the two accuracy
  columns;
- the interaction (difference-in-differences): F judges' gain on the F-composed set over the
  other set, minus the comparison judges' gain. The comparison judges are those of neither
  generator's family (builtin judges, a third family); when there are none, the judges of the
  other generator's family — then the estimate is the two families' alignments added up, and
  the line says which group it compared with.

Every interval is a percentile bootstrap over **source records**, in three strata: the sources
both sets kept (the same record composed twice) are drawn once and used in both sets, so the
difference is paired where it can be; the sources only one set kept are drawn within that set.
All judges share each replicate's draws, so τ and the interaction see the same items.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import rankdata

from paraudit.errors import ParauditError
from paraudit.items.dataset import iter_item_lines
from paraudit.runfolder.spec import read_run_json
from paraudit.specs import model_family
from paraudit.stats.bootstrap import _weights
from paraudit.stats.rowgroups import read_groups
from paraudit.stats.units import Row, answered

Cell = tuple[str, str, str]
"""(task, protocol, cue)"""
_RUN_SUFFIX = re.compile(r" \[[^\]]*\]\Z")


class GeneratorCheckError(ParauditError):
    """Runs that cannot be compared for generator bias: a usage mistake (exit 2)."""

    exit_code = 2


def judge_family(label: str) -> str | None:
    """A judge's model family from its spec (`gemini:gemini-2.5-pro` → google,
    `openai:gpt-4o-audio-preview` → openai, `openai:Qwen/Qwen2-Audio-7B@URL` → qwen); None for
    builtin judges and models the family table does not know."""
    label = _RUN_SUFFIX.sub("", label)  # "JUDGE [RUN]" when a report merged two runs
    backend, _, rest = label.partition(":")
    if not rest or backend == "builtin":
        return None
    model = rest.split("?", 1)[0].split("@", 1)[0]
    family = model_family(model, backend)
    return None if family == "unknown" else family


@dataclass(frozen=True)
class AuditSet:
    """What a run's dataset says of its items: the generator and each item's source record."""

    dataset: str
    generator: str
    """The generator's spec label (e.g. openai:gpt-4o-mini)."""
    family: str
    sources: dict[tuple[str, str], str]
    """(task, item id) → source record id; items without one are absent (never shared)."""


def _family(gen: dict[str, Any]) -> str:
    # Recomputed from backend and model when recorded, so both sides use today's table.
    model, backend = gen.get("model"), gen.get("backend")
    if isinstance(model, str) and isinstance(backend, str):
        return model_family(model, backend)
    return str(gen.get("family") or "unknown")


def read_set(run: Path, name: str = "") -> AuditSet:
    """The audit set a run audited (its dataset folder, from run.json)."""
    record = read_run_json(run)
    where = f"run {name} ({run})" if name else f"run {run}"
    ds = record.get("dataset") if record else None
    if not isinstance(ds, str):
        raise GeneratorCheckError(f"{where} has no run.json naming its dataset folder")
    root = Path(ds)
    if not (root / "items.jsonl").is_file():
        raise GeneratorCheckError(
            f"{where}: its dataset {root} is not there; --generators reads each item's "
            "meta.generator and source record from it"
        )
    gens: dict[str, str] = {}
    sources: dict[tuple[str, str], str] = {}
    lacking = 0
    for _, line in iter_item_lines(root):
        item = json.loads(line)
        meta = item.get("meta") or {}
        gen = meta.get("generator")
        if not isinstance(gen, dict):
            lacking += 1
            continue
        gens[str(gen.get("spec") or gen.get("model"))] = _family(gen)
        if meta.get("source_id") is not None:
            sources[(item["task"], item["id"])] = f"{meta.get('source')}:{meta['source_id']}"
    if lacking:
        raise GeneratorCheckError(
            f"{where}: {lacking} items of {root} lack meta.generator (not built by "
            "`paraudit build`?); the check needs the generator of every item"
        )
    if len(set(gens.values())) != 1:
        raise GeneratorCheckError(
            f"{where}: {root} mixes generator families ({', '.join(sorted(set(gens.values())))})"
            "; compare two sets, each composed by one generator"
        )
    return AuditSet(str(root), " + ".join(sorted(gens)), next(iter(gens.values())), sources)


def _interval(x: np.ndarray, value: float | None) -> dict[str, float | None]:
    x = x[np.isfinite(x)]
    if value is None or not np.isfinite(value) or not x.size:
        return {"value": None, "ci_low": None, "ci_high": None}
    lo, hi = np.quantile(x, [0.025, 0.975])
    return {"value": float(value), "ci_low": float(lo), "ci_high": float(hi)}


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's τ-b between the columns of x and y, row by row ((R, J) → (R,)); NaN where a
    row is constant (no ranking)."""
    i, k = np.triu_indices(x.shape[1], 1)
    sx, sy = np.sign(x[:, i] - x[:, k]), np.sign(y[:, i] - y[:, k])
    den = np.sqrt(np.abs(sx).sum(1) * np.abs(sy).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(den > 0, (sx * sy).sum(1) / den, np.nan))


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's ρ (average ranks for ties) row by row; NaN where a row is constant."""
    rx = rankdata(x, axis=1) - (x.shape[1] + 1) / 2
    ry = rankdata(y, axis=1) - (y.shape[1] + 1) / 2
    den = np.sqrt((rx**2).sum(1) * (ry**2).sum(1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(den > 0, (rx * ry).sum(1) / den, np.nan))


def _tallies(
    rows: list[Row], judges: list[str], sources: dict[tuple[str, str], str]
) -> dict[Cell, dict[str, np.ndarray]]:
    """cell → source → [k per judge…, n per judge…] over probe J's answered rows."""
    col = {j: c for c, j in enumerate(judges)}
    out: dict[Cell, dict[str, np.ndarray]] = defaultdict(dict)
    for r in rows:
        if r.probe != "J" or r.judge not in col or not answered(r):
            continue
        src = sources.get((r.task, r.item_id), f"item:{r.item_id}")
        cell = out[(r.task, r.protocol, r.cue)]
        t = cell.get(src)
        if t is None:
            t = cell[src] = np.zeros(2 * len(judges))
        j = col[r.judge]
        t[j] += bool(r.correct)
        t[len(judges) + j] += 1
    return out


def _stack(t: dict[str, np.ndarray], keys: list[str], width: int) -> np.ndarray:
    return np.array([t[k] for k in keys], np.float32).reshape(len(keys), width)


def _draws(n: int, replicates: int, seed: int) -> np.ndarray:
    """How often each of n sources is drawn per replicate (a stratum may be empty)."""
    return _weights(n, replicates, seed) if n else np.zeros((replicates, 0), np.float32)


def _sums(w: list[np.ndarray], m: list[np.ndarray]) -> np.ndarray:
    """Replicate column sums over the strata (weights (R, n) @ table (n, cols))."""
    return np.asarray(sum((wi @ mi).astype(np.float64) for wi, mi in zip(w, m, strict=True)))


def _acc(s: np.ndarray, nj: int) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(s[..., :nj] / s[..., nj:])


def pct(e: dict[str, float | None]) -> str:
    """'+12 % [4, 20]' (percentage points)."""
    v, lo, hi = e["value"], e["ci_low"], e["ci_high"]
    if v is None or lo is None or hi is None:
        return "–"
    return f"{v * 100:+.0f} % [{lo * 100:.0f}, {hi * 100:.0f}]"


def points(e: dict[str, float | None], sep: str = ", ") -> str:
    """A difference in points with its interval: '+44 [+32, +57]'."""
    v, lo, hi = e["value"], e["ci_low"], e["ci_high"]
    if v is None or lo is None or hi is None:
        return "–"
    return f"{v * 100:+.0f} [{lo * 100:+.0f}{sep}{hi * 100:+.0f}]"


def coefficient(e: dict[str, Any] | None) -> str:
    """τ or ρ with its interval: '0.62 [0.46, 0.62]'."""
    if not e or e["value"] is None:
        return "–"
    return f"{e['value']:.2f} [{e['ci_low']:.2f}, {e['ci_high']:.2f}]"


def ranking_line(r: dict[str, Any]) -> str:
    return (
        f"ranking of {r['judges']} judges, A vs B: Kendall τ {coefficient(r.get('kendall_tau'))}"
        f" · Spearman ρ {coefficient(r.get('spearman'))}"
    )


def interaction_line(family: str, group: str, did: dict[str, float | None]) -> str:
    """The one line the check gives per judge family: alignment only when the interval lies
    above 0."""
    lo, hi = did["ci_low"], did["ci_high"]
    than = f"than {group} judges"
    if lo is not None and lo > 0:
        return f"{family} judges gain {pct(did)} more on the {family}-composed set {than}"
    if hi is not None and hi < 0 and lo is not None and did["value"] is not None:
        flipped: dict[str, float | None] = {"value": -did["value"], "ci_low": -hi, "ci_high": -lo}
        return (
            f"{family} judges gain {pct(flipped).lstrip('+')} less on the {family}-composed set "
            f"{than} (the opposite of alignment)"
        )
    return (
        f"no sign of generator alignment: {family} judges {pct(did)} on the {family}-composed "
        f"set relative to {group} judges"
    )


def _interaction(
    judges: list[str], fam: dict[str, str | None], sets: tuple[str, str], point: np.ndarray,
    reps: np.ndarray,
) -> list[dict[str, Any]]:  # fmt: skip
    """One entry per generator family that has judges of its own; point (2, J), reps (R, 2, J):
    accuracy on set A (row 0) and B (row 1)."""
    if sets[0] == sets[1]:
        return []
    out = []
    for s, family in enumerate(sets):
        if family == "unknown":  # a model the family table does not know: no family to test
            continue
        own = [c for c, j in enumerate(judges) if fam[j] == family]
        neutral = [c for c, j in enumerate(judges) if fam[j] not in sets]
        rival = [c for c, j in enumerate(judges) if fam[j] == sets[1 - s]]
        other, group = (neutral, "other") if neutral else (rival, sets[1 - s])
        if not own or not other:
            continue

        def did(
            acc: np.ndarray, s: int = s, own: list[int] = own, other: list[int] = other
        ) -> np.ndarray:
            gain = acc[..., s, :] - acc[..., 1 - s, :]  # on the family's set minus the other
            return np.asarray(gain[..., own].mean(-1) - gain[..., other].mean(-1))

        est = _interval(did(reps), float(did(point)))
        out.append({
            "family": family,
            "set": "AB"[s],
            "judges": [judges[c] for c in own],
            "compared_with": [judges[c] for c in other],
            "group": group,
            "did": est,
            "line": interaction_line(family, group, est),
        })  # fmt: skip
    return out


def _cell(
    cell: Cell, ta: dict[str, np.ndarray], tb: dict[str, np.ndarray], judges: list[str],
    sets: tuple[str, str], replicates: int, seed: int,
) -> dict[str, Any]:  # fmt: skip
    nj = len(judges)
    shared = sorted(set(ta) & set(tb))
    only_a, only_b = sorted(set(ta) - set(tb)), sorted(set(tb) - set(ta))
    w = [_draws(len(k), replicates, seed + i) for i, k in enumerate((shared, only_a, only_b))]
    ma = [_stack(ta, shared, 2 * nj), _stack(ta, only_a, 2 * nj)]
    mb = [_stack(tb, shared, 2 * nj), _stack(tb, only_b, 2 * nj)]
    # Shared sources: the same draws (w[0]) in both sets — the pairing.
    reps = np.stack([_acc(_sums(w[:2], ma), nj), _acc(_sums([w[0], w[2]], mb), nj)], axis=1)
    full = np.stack([_acc(sum(m.sum(0).astype(np.float64) for m in x), nj) for x in (ma, mb)])
    fam = {j: judge_family(j) for j in judges}
    per_judge = []
    for c, j in enumerate(judges):
        per_judge.append({
            "judge": j,
            "family": fam[j],
            "accuracy_a": _interval(reps[:, 0, c], full[0, c]),
            "accuracy_b": _interval(reps[:, 1, c], full[1, c]),
            "difference": _interval(reps[:, 1, c] - reps[:, 0, c], full[1, c] - full[0, c]),
        })  # fmt: skip
    ranked = [c for c in range(nj) if np.isfinite(full[:, c]).all()]
    ranking: dict[str, Any] = {"judges": len(ranked)}
    if len(ranked) >= 2:
        pa, pb = full[0, ranked][None], full[1, ranked][None]
        ra, rb = reps[:, 0][:, ranked], reps[:, 1][:, ranked]
        ranking["kendall_tau"] = _interval(kendall_tau_b(ra, rb), float(kendall_tau_b(pa, pb)[0]))
        ranking["spearman"] = _interval(spearman_rows(ra, rb), float(spearman_rows(pa, pb)[0]))
        for s, key in enumerate(("order_a", "order_b")):
            ranking[key] = [judges[c] for c in sorted(ranked, key=lambda c: -full[s, c])]
    return {
        "task": cell[0],
        "protocol": cell[1],
        "cue": cell[2],
        "sources_a": len(ta),
        "sources_b": len(tb),
        "shared_sources": len(shared),
        "judges": per_judge,
        "ranking": ranking,
        "interaction": _interaction(
            [judges[c] for c in ranked], fam, sets, full[:, ranked], reps[:, :, ranked]
        ),
    }


def generator_check(
    a: list[Row],
    b: list[Row],
    set_a: AuditSet,
    set_b: AuditSet,
    *,
    replicates: int = 10_000,
    seed: int = 0,
) -> dict[str, Any]:
    """The check on two runs (rows of probe J) of the same judges on two generators' sets."""
    shared_sources = set(set_a.sources.values()) & set(set_b.sources.values())
    if not shared_sources:
        raise GeneratorCheckError(
            f"the two sets share no source record ({len(set(set_a.sources.values()))} vs "
            f"{len(set(set_b.sources.values()))}); build both from the same source with the "
            "same --seed"
        )
    judges = sorted({r.judge for r in a if r.probe == "J"}
                    & {r.judge for r in b if r.probe == "J"})  # fmt: skip
    if not judges:
        raise GeneratorCheckError("the runs share no judge that answered probe J")
    ta, tb = _tallies(a, judges, set_a.sources), _tallies(b, judges, set_b.sources)
    sets = (set_a.family, set_b.family)
    cells = [
        _cell(c, ta[c], tb[c], judges, sets, replicates, seed) for c in sorted(set(ta) & set(tb))
    ]
    return {
        "unit": "source record",
        "replicates": replicates,
        "generators": {
            "a": {"spec": set_a.generator, "family": set_a.family, "dataset": set_a.dataset},
            "b": {"spec": set_b.generator, "family": set_b.family, "dataset": set_b.dataset},
        },
        "shared_sources": len(shared_sources),
        "sources_a": len(set(set_a.sources.values())),
        "sources_b": len(set(set_b.sources.values())),
        "same_family": sets[0] == sets[1],
        "judges": {j: judge_family(j) for j in judges},
        "cells": cells,
    }


def check_runs(runs: list[Path], *, replicates: int, seed: int) -> dict[str, Any] | None:
    """The check for a report: when it is given exactly two runs on sets from two different
    generators (that share source records); None otherwise, so a report of other runs is
    unchanged."""
    if len(runs) != 2:
        return None
    try:
        sa, sb = read_set(runs[0], "A"), read_set(runs[1], "B")
        if sa.generator == sb.generator:
            return None
        a, b = (list(read_groups(d).rows()) for d in runs)
        return generator_check(a, b, sa, sb, replicates=replicates, seed=seed)
    except (ParauditError, ValueError, KeyError, TypeError):
        # Not two generators' sets (or a dataset the panel cannot read): the report itself
        # does not depend on the panel, so it is left out rather than failing the report.
        return None
