"""The subgroup scan: accuracy and (P, O, J) states per stratum of the items, and a test that
decides when the verdict names one ("fails when the user is angry: P recall 0 % [0, 8]",
"misses shifts after 8 s").

**Strata.** Item attributes are not in result rows: they are read from the dataset each run
recorded (run.json's `dataset`, `read_attributes`) and joined to rows by (task, item id).
Item-level: `contrast` (the emotion pair: meta.pair, else the two labels that differ),
`turns` (context turns), `voice`, `generator`, `dimension` (from meta, where recorded).
Unit-level — a pointwise answer is about one (item, branch): `label` (the branch's emotion on
the first human turn whose emotion differs between the branches: its per-label recall is P
accuracy there, and the P confusion matrix is kept beside it), `shift turn` (the human turn at
which the branch's mood first changes, multi-turn items), `shift time` (seconds of the
branch's context audio before that turn) and `duration` (seconds of its context audio).
A categorical attribute's strata are its values; a numeric one is shown in bins at its
quintiles (rounded to 0.5 s) and tested at every whole second between its 10th and 90th
percentiles (half seconds where they span under 4 s; at most `MAX_CUTS`), each cut a "before /
after t s" split; the split named is the attribute's significant split that explains most
(the least-squares changepoint: the largest d² · n_in · n_out / n).

**Statistics.** Per stratum and probe (J, P, O pointwise; every cue and order pooled: a cue
moves every stratum alike, and the scan asks whether skill differs *between* strata):
accuracy per instance with its 95 % interval from resampling whole items, and the order-
consistent (P, O, J) group shares of its units (point shares).

**Test.** For J and P, every split — a categorical value against the rest of its attribute, a
numeric attribute below against above a cut — compares the two sides' accuracy: z = d / SE,
SE the cluster-robust (item-level sandwich, × G/(G−1)) standard error of the difference of
the two ratio estimates, two-sided normal p. Multiplicity: Holm over every split of every
attribute and both probes of one judge × task, family-wise error `ALPHA` = 5 %. A split is
named when its Holm-adjusted p < `ALPHA`, |d| ≥ `MIN_EFFECT` and each side rests on at least
`MIN_ITEMS` items: below ten clusters the sandwich SE is too small and the test's level is
not kept, so smaller strata are shown in the table but never named.

**What an unskilled judge scores.** Random, always-first, deaf (text-preferring) and noisy
skilled judges answer alike in every stratum (a position habit is balanced by the two orders,
a text preference by the seeded branch coin), so their true d is 0 and the scan names nothing
in ≥ 95 % of audits; a label prior (always the calmest option) is not homogeneous — it is a
real per-label failure and is named. Simulated in tests/stats/test_strata.py: false alarms
≤ 5 % on random, skilled, position-biased and noisy judges, power on the specialists.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from paraudit.stats.analysis import Analysis, GroupContext, Record
from paraudit.stats.itemboot import Sheet
from paraudit.stats.model import Behaviour, Estimate
from paraudit.stats.statrow import StatRow
from paraudit.stats.strata_items import (
    Attributes,
    ItemAttributes,
    Value,
    item_attributes,
    read_attributes,
)

ALPHA = 0.05
MIN_ITEMS = 10
"""Items each side of a split needs before it can be named."""
MAX_CUTS = 12
"""At most this many cuts per numeric attribute (each is one more test for Holm)."""
MIN_EFFECT = 0.15
"""A named split differs by at least 15 points: smaller gaps are real but not a subgroup."""
PROBES = ("J", "P", "O")
TESTED = ("J", "P")
NUMERIC = ("shift time", "duration")
ITEM_LEVEL = ("contrast", "turns", "voice", "generator", "dimension")
UNIT_LEVEL = ("label", "shift turn", "shift time", "duration")


# -- the tally ---------------------------------------------------------------------------------


class StrataTally:
    """Per (probe, branch, item): answers, right, parsed-and-wrong; per unit and cue: orders
    answered and right (for the states). Counts only, a few per unit."""

    def __init__(self, judge: str, task: str) -> None:
        self.judge, self.task = judge, task
        self.hits: dict[tuple[str, int, str], list[int]] = defaultdict(lambda: [0, 0, 0])
        self.units: dict[tuple[str, str, int, str], list[int]] = defaultdict(lambda: [0, 0])

    def add(self, row: StatRow) -> None:
        if row.protocol != "pointwise" or row.branch is None or row.probe not in PROBES:
            return
        if row.status == "error":
            return
        h = self.hits[(row.probe, row.branch, row.item_id)]
        h[0] += 1
        h[1] += row.correct
        h[2] += row.status == "ok" and not row.correct
        u = self.units[(row.probe, row.cue, row.branch, row.item_id)]
        u[0] += 1
        u[1] += row.correct

    def records(self, ctx: GroupContext) -> list[Record]:
        attrs = ctx.attributes
        if not attrs or not self.hits:
            return []
        return _records(self, ctx, attrs)


def _unit_values(
    attrs: Mapping[str, Any], units: Iterable[tuple[int, str]]
) -> dict[str, dict[tuple[int, str], Value]]:
    """attribute → (branch, item) → value."""
    out: dict[str, dict[tuple[int, str], Value]] = defaultdict(dict)
    for branch, item in units:
        a = attrs.get(item)
        if not isinstance(a, ItemAttributes):
            continue
        for name, v in a.item.items():
            out[name][(branch, item)] = v
        for name, v in a.branches[branch].items():
            out[name][(branch, item)] = v
    return out


def _bins(values: Iterable[float]) -> list[float]:
    """The table's bin edges: quintiles rounded to 0.5 s."""
    x = np.asarray(sorted(values), float)
    if x.size < 2:
        return []
    cuts = sorted({round(float(q) * 2) / 2 for q in np.quantile(x, [0.2, 0.4, 0.6, 0.8])})
    return [c for c in cuts if x.min() < c <= x.max()]


def _cuts(values: Iterable[float]) -> list[float]:
    """The tested cuts: a round grid (whole seconds where the values span 4 s or more, so the
    verdict says "after 8 s", not "after 7.83 s") between their 10th and 90th percentiles."""
    x = np.asarray(sorted(values), float)
    if x.size < 2 * MIN_ITEMS:
        return []
    lo, hi = np.quantile(x, [0.1, 0.9])
    span = hi - lo
    step = 1.0 if span >= 4 else 0.5 if span >= 1 else 0.1
    grid = np.arange(math.ceil(lo / step) * step, hi + 1e-9, step)
    if grid.size > MAX_CUTS:  # a wide range: coarser, so the tests stay few
        grid = grid[:: math.ceil(grid.size / MAX_CUTS)]
    return [round(float(c), 1) for c in grid]


@dataclass(frozen=True)
class _Side:
    name: str
    """How the text names it ('angry', '< 8 s', 'the other labels')."""
    members: frozenset[tuple[int, str]]


@dataclass(frozen=True)
class _Split:
    attribute: str
    inside: _Side
    outside: _Side
    numeric: bool = False
    cut: float | None = None


def _splits(name: str, values: Mapping[tuple[int, str], Value]) -> tuple[list[_Side], list[_Split]]:
    """(the table's strata, the tested splits) of one attribute."""
    if name in NUMERIC:
        nums = {k: float(v) for k, v in values.items()}
        cuts = _cuts(nums.values())
        if not cuts:
            return [], []
        edges = [-math.inf, *_bins(nums.values()), math.inf]
        bins = []
        for lo, hi in zip(edges, edges[1:], strict=False):
            label = f"< {hi:g} s" if lo == -math.inf else f"≥ {lo:g} s" if hi == math.inf else (
                f"{lo:g}–{hi:g} s")  # fmt: skip
            bins.append(_Side(label, frozenset(k for k, v in nums.items() if lo <= v < hi)))
        splits = [
            _Split(
                name,
                _Side(f"≥ {c:g} s", frozenset(k for k, v in nums.items() if v >= c)),
                _Side(f"< {c:g} s", frozenset(k for k, v in nums.items() if v < c)),
                True,
                c,
            )
            for c in cuts
        ]
        return bins, splits
    groups: dict[str, set[tuple[int, str]]] = defaultdict(set)
    for k, v in values.items():
        groups[str(v)].add(k)
    if len(groups) < 2:
        return [], []
    strata = [_Side(v, frozenset(m)) for v, m in sorted(groups.items())]
    everything = frozenset(values)
    tested = strata if len(strata) > 2 else strata[:1]  # two values: one split says it all
    return strata, [_Split(name, s, _Side("rest", everything - s.members)) for s in tested]


def _per_item(
    hits: Mapping[tuple[str, int, str], list[int]], probe: str, members: Iterable[tuple[int, str]]
) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for branch, item in members:
        h = hits.get((probe, branch, item))
        if h is None:
            continue
        cell = out.setdefault(item, [0.0, 0.0])
        cell[0] += h[1]
        cell[1] += h[0]
    return out


def split_test(
    a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]]
) -> tuple[float, float]:
    """(d, two-sided p) for accuracy on side a − side b: the cluster-robust z test of the
    module docstring. Each side: item → (right, answered)."""
    items = sorted(set(a) | set(b))
    ka = np.array([a[i][0] if i in a else 0.0 for i in items])
    na = np.array([a[i][1] if i in a else 0.0 for i in items])
    kb = np.array([b[i][0] if i in b else 0.0 for i in items])
    nb = np.array([b[i][1] if i in b else 0.0 for i in items])
    pa, pb = ka.sum() / na.sum(), kb.sum() / nb.sum()
    d = float(pa - pb)
    g = len(items)
    resid = (ka - pa * na) / na.sum() - (kb - pb * nb) / nb.sum()
    var = float((resid**2).sum()) * g / max(g - 1, 1)
    if var <= 1e-18:
        return d, 0.0 if abs(d) > 1e-12 else 1.0
    z = abs(d) / math.sqrt(var)
    return d, math.erfc(z / math.sqrt(2))


def _z(p: float, d: float) -> float:
    """|z| of a two-sided p (inf for a certain difference; 0 for none)."""
    if p <= 0.0:
        return math.inf if abs(d) > 1e-12 else 0.0
    from scipy.special import erfcinv

    return float(erfcinv(p) * math.sqrt(2))


def holm(p: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values (step-down, monotone), in the input order."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


_GROUP_OF = {"111": "reliable", "110": "Potemkin", "010": "perception bottleneck",
             "100": "response-mapping bottleneck", "000": "full-stack failure"}  # fmt: skip


def _states(tally: StrataTally, members: frozenset[tuple[int, str]]) -> dict[str, Any]:
    """Order-consistent (P, O, J) group shares of a stratum's units (every cue)."""
    counts: dict[str, int] = defaultdict(int)
    total = 0
    cues = {c for (_, c, _, _) in tally.units}
    for cue in cues:
        for branch, item in members:
            got = [tally.units.get((p, cue, branch, item)) for p in "POJ"]
            if any(g is None for g in got):
                continue
            state = "".join(str(int(g[0] == g[1])) for g in got if g is not None)
            counts[_GROUP_OF.get(state, "shortcut-like success")] += 1
            total += 1
    return {
        "units": total,
        "shares": {k: v / total for k, v in sorted(counts.items())} if total else {},
    }


def _confusion(
    tally: StrataTally, labels: Mapping[tuple[int, str], Value]
) -> dict[str, dict[str, int]]:
    """P's gold label × the label it answered (single-choice P: a wrong parsed answer is the
    other branch's label), 'unanswered' for unparsed and refused."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for (probe, branch, item), (n, k, wrong) in tally.hits.items():
        mine, other = labels.get((branch, item)), labels.get((1 - branch, item))
        if probe != "P" or mine is None or other is None:
            continue
        row = out[str(mine)]
        row[str(mine)] += k
        row[str(other)] += wrong
        if n - k - wrong:
            row["unanswered"] += n - k - wrong
    return {g: dict(r) for g, r in sorted(out.items())}


def _records(tally: StrataTally, ctx: GroupContext, attrs: Mapping[str, Any]) -> list[Record]:
    units = {(b, i) for (_, b, i) in tally.hits}
    values = _unit_values(attrs, units)
    sheet = Sheet(i for _, i in units)
    asks: list[tuple[dict[str, Any], str, int]] = []

    def ask_ratio(
        target: dict[str, Any], key: str, probe: str, members: Iterable[tuple[int, str]]
    ) -> None:
        cells = _per_item(tally.hits, probe, members)
        if not cells:
            return
        num = sheet.column({i: c[0] for i, c in cells.items() if c[0]})
        den = sheet.column({i: c[1] for i, c in cells.items()})
        target[key] = {"n": int(sum(c[1] for c in cells.values())),
                       "correct": int(sum(c[0] for c in cells.values()))}  # fmt: skip
        asks.append((target[key], key, sheet.ratio(num, den)))

    base = {"judge": ctx.judge, "task": ctx.task}
    out: list[Record] = []
    tests: list[tuple[Record, float]] = []
    for name in [*ITEM_LEVEL, *UNIT_LEVEL]:
        if name not in values:
            continue
        strata, splits = _splits(name, values[name])
        for s in strata:
            rec: Record = {
                **base,
                "kind": "stratum",
                "attribute": name,
                "stratum": s.name,
                "items": len({i for _, i in s.members}),
                "states": _states(tally, s.members),
            }
            for probe in PROBES:
                ask_ratio(rec, probe, probe, s.members)
            out.append(rec)
        if name == "label":
            out.append({**base, "kind": "confusion", "attribute": name, "items": len(units),
                        "confusion": _confusion(tally, values[name])})  # fmt: skip
        for sp in splits:
            for probe in TESTED:
                a = _per_item(tally.hits, probe, sp.inside.members)
                b = _per_item(tally.hits, probe, sp.outside.members)
                if (
                    not a
                    or not b
                    or not sum(c[1] for c in a.values())
                    or not sum(c[1] for c in b.values())
                ):
                    continue
                d, p = split_test(a, b)
                z = _z(p, d)
                rec = {**base, "kind": "split", "attribute": name, "probe": probe,
                       "stratum": sp.inside.name, "versus": sp.outside.name, "cut": sp.cut,
                       "items": len(set(a) | set(b)), "items_in": len(a), "items_out": len(b),
                       "delta": d, "z": z, "p_value": p}  # fmt: skip
                enough = len(a) >= MIN_ITEMS and len(b) >= MIN_ITEMS
                tests.append((rec, p if enough else 1.0))
                rec["testable"] = enough
                out.append(rec)
                # Both sides' intervals, for the verdict's words.
                ask_ratio(rec, "inside", probe, sp.inside.members)
                ask_ratio(rec, "outside", probe, sp.outside.members)
    adjusted = holm([p for _, p in tests])
    for (rec, _), q in zip(tests, adjusted, strict=True):
        rec["p_holm"] = q
        rec["tests"] = len(tests)
        rec["named"] = bool(rec["testable"] and q < ALPHA and abs(rec["delta"]) >= MIN_EFFECT)
    estimates = sheet.evaluate(ctx.replicates, ctx.seed)
    for target, _, handle in asks:
        target.update(estimates[handle].as_dict())
    return out


# -- the verdict's words -------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}"


def _est(e: Mapping[str, Any]) -> str:
    return f"{_pct(e.get('rate'))} % [{_pct(e.get('ci_low'))}, {_pct(e.get('ci_high'))}]"


def finding_text(r: Mapping[str, Any]) -> str:
    """One named split in words, the worse side first."""
    inside, outside = r["inside"], r["outside"]
    worse_inside = r["delta"] < 0
    worse, better = (inside, outside) if worse_inside else (outside, inside)
    probe = "P recall" if r["attribute"] == "label" and r["probe"] == "P" else r["probe"]
    attr = r["attribute"]
    if attr in NUMERIC:
        if attr == "shift time":
            head = f"misses shifts {'after' if worse_inside else 'before'} {r['cut']:g} s"
            other = "before" if worse_inside else "after"
        else:
            head = f"fails on clips {'of' if worse_inside else 'under'} {r['cut']:g} s"
            head += " or more" if worse_inside else ""
            other = "on shorter ones" if worse_inside else "on longer ones"
        return f"{head}: {probe} {_est(worse)} vs {_pct(better.get('rate'))} % {other}"
    value = r["stratum"]
    if attr == "label":
        where = f"when the user is {value}"
        rest = "on the other labels"
    elif attr == "contrast":
        where, rest = f"on the {value} contrast", "on the other contrasts"
    else:
        where, rest = f"on {attr} {value}", f"on the other {attr} values"
    if worse_inside:
        return f"fails {where}: {probe} {_est(worse)} vs {_pct(better.get('rate'))} % {rest}"
    return f"succeeds only {where}: {probe} {_est(better)} vs {_est(worse)} {rest}"


def _explained(r: Mapping[str, Any]) -> float:
    n_in, n_out = float(r["inside"]["n"]), float(r["outside"]["n"])
    return float(r["delta"]) ** 2 * n_in * n_out / max(n_in + n_out, 1.0)


def strata_behaviours(records: Sequence[Record], ctx: GroupContext) -> list[Behaviour]:
    """The named splits, one behaviour per attribute and probe (its largest gap)."""
    best: dict[tuple[str, str], Record] = {}
    for r in records:
        if r.get("kind") == "split" and r.get("named"):
            key = (r["attribute"], r["probe"])
            # The cut (or value) that explains most: the least-squares changepoint (the
            # largest d² · n_in · n_out / n, CART's split rule), so a step in skill at 8 s is
            # named at 8 s, not at the neighbouring cut whose few coins came out worse.
            if key not in best or _explained(r) > _explained(best[key]):
                best[key] = r
    out = []
    for r in sorted(best.values(), key=lambda r: -abs(r["delta"])):
        worse = r["inside"] if r["delta"] < 0 else r["outside"]
        ev = Estimate(rate=worse.get("rate"), ci_low=worse.get("ci_low"),
                      ci_high=worse.get("ci_high"), items=int(worse.get("items") or 0))  # fmt: skip
        out.append(Behaviour(kind="fails in a subgroup", text=finding_text(r), evidence=ev,
                             probes=[r["probe"]]))  # fmt: skip
    return out


STRATA = Analysis(
    name="strata",
    title="Subgroups",
    start=StrataTally,
    behaviours=strata_behaviours,
    report="paraudit.report.strata:strata_part",
)

__all__ = [
    "ALPHA",
    "MIN_EFFECT",
    "MIN_ITEMS",
    "STRATA",
    "Attributes",
    "ItemAttributes",
    "StrataTally",
    "finding_text",
    "holm",
    "item_attributes",
    "read_attributes",
    "split_test",
    "strata_behaviours",
]
