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
after t s" split. The verdict names, per probe, the significant split that explains most (the
least-squares rule, the largest d² · n_in · n_out / n, which puts a step in skill at its true
cut); the other significant splits are marked named in the table.

**Statistics.** Per stratum and probe (J, P, O pointwise; every cue and order pooled: a cue
moves every stratum alike, and the scan asks whether skill differs *between* strata):
accuracy per instance with its 95 % interval from resampling whole items (at most
`REPLICATES` replicates; O as a point share), and the order-
consistent (P, O, J) group shares of its units (point shares).

**Test.** For J and P, every split — a categorical value against the rest of its attribute, a
numeric attribute below against above a cut — compares the two sides' accuracy: z = d / SE,
two-sided normal p, SE the larger of the cluster-robust (item-level sandwich, × G/(G−1))
standard error of the difference of the two ratio estimates and the null's pooled one (per-item
accuracy spread around the pooled accuracy, the same for both sides: the sandwich collapses on a
side whose items happen to be nearly all right, and named a subgroup for a judge failing 20 %
of whole items at random in 10 of 100 audits at 189 items; 0 of 30 with the pooled floor).
Multiplicity: Holm over every split of every attribute and both probes of one judge × task,
family-wise error `ALPHA` = 5 %. A split is named when its Holm-adjusted p < `ALPHA`, |d| ≥
`MIN_EFFECT` and each side rests on at least `MIN_ITEMS` items. The sandwich SE is too small on
few clusters: for a coin judge (4 answers an item) one split rejects at nominal 5 % in 17 % of
audits with 3 items a side, 10 % with 5, 8 % with 10 and 5.4 % with 20 (measured, 4,000 draws
each); Holm over the family and the 15-point floor bring the family-wise rate at ≥ 10 items a
side to the ≤ 5 % the simulation checks, so smaller strata are shown in the table but never
named.

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
from itertools import chain
from operator import attrgetter
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
from paraudit.stats.verdict_text import value_phrase

ALPHA = 0.05
MIN_ITEMS = 10
"""Items each side of a split needs before it can be named."""
MAX_CUTS = 12
"""At most this many cuts per numeric attribute (each is one more test for Holm)."""
MIN_EFFECT = 0.15
"""A named split differs by at least 15 points: smaller gaps are real but not a subgroup."""
REPLICATES = 2000
"""The strata table's intervals use at most this many replicates of whole items: the test
needs none, and dozens of strata per group at 10,000 would double the summary's cost."""
PROBES = ("J", "P", "O")
TESTED = ("J", "P")
NUMERIC = ("shift time", "duration")
ITEM_LEVEL = ("contrast", "turns", "voice", "generator", "dimension")
UNIT_LEVEL = ("label", "shift turn", "shift time", "duration")


_COUNTED = frozenset(PROBES)
_PROBE_CODE = {p: i for i, p in enumerate(PROBES)}
_STRATA_FIELDS = attrgetter("probe", "protocol", "cue", "branch", "item_id", "status", "correct")

# -- the tally ---------------------------------------------------------------------------------


class StrataTally:
    """Per (probe, cue, branch, item): answers, right, parsed-and-wrong — a few counts per unit
    (one dict update per row: the scan must cost little beside the summary's own pass)."""

    def __init__(self, judge: str, task: str) -> None:
        self.judge, self.task = judge, task
        self.cells: dict[tuple[str, str, int, str], list[int]] = {}
        # Units with a failed call: whether they are right in every order is unknown, so they
        # are left out of the states (as the summary's states leave them out).
        self.failed: set[tuple[str, str, int, str]] = set()

    def wants(self, probe: str, protocol: str, cue: str) -> bool:
        return protocol == "pointwise" and probe in _COUNTED

    def add(self, row: StatRow) -> None:
        self.add_rows((row,))

    def add_rows(self, rows: Sequence[StatRow]) -> None:
        cells, failed = self.cells, self.failed
        for probe, protocol, cue, branch, item_id, status, correct in map(_STRATA_FIELDS, rows):
            if branch is None or protocol != "pointwise" or probe not in _COUNTED:
                continue
            key = (probe, cue, branch, item_id)
            if status == "error":
                failed.add(key)
                continue
            c = cells.get(key)
            if c is None:
                c = cells[key] = [0, 0, 0]
            c[0] += 1
            if correct:
                c[1] += 1
            elif status == "ok":
                c[2] += 1

    def records(self, ctx: GroupContext) -> list[Record]:
        attrs = ctx.attributes
        if not attrs or not self.cells:
            return []
        return _records(self, ctx, attrs)


class _Units:
    """The group's (branch, item) units as arrays: each unit's item, and per probe its answers,
    right answers and parsed wrong answers (every cue); per unit, its (P, O, J) group counts
    over cues."""

    def __init__(self, tally: StrataTally) -> None:
        cells = tally.cells
        probes, cues, branches, item_ids = zip(*cells, strict=True) if cells else ((), (), (), ())
        self.keys = sorted(set(zip(branches, item_ids, strict=True)))
        index = {k: j for j, k in enumerate(self.keys)}
        self.items = sorted({i for _, i in self.keys})
        at = {i: j for j, i in enumerate(self.items)}
        self.item = np.array([at[i] for _, i in self.keys], dtype=np.intp)
        size, m = len(self.keys), len(cells)
        # Column-wise over the cells (one Python step per cell cost more than the rest of the
        # scan): each cell's unit, probe and counts as arrays. bincount adds the weights in
        # the cells' order, as the loop it replaces did (whole numbers: exact either way).
        unit = np.fromiter(map(index.__getitem__, zip(branches, item_ids, strict=True)), np.intp, m)
        probe = np.fromiter(map(_PROBE_CODE.__getitem__, probes), np.intp, m)
        counts = np.fromiter(chain.from_iterable(cells.values()), float, 3 * m).reshape(m, 3)
        self.n, self.k, self.wrong = {}, {}, {}
        at_probe = {}
        for code, p in enumerate(PROBES):
            mine = probe == code
            at_probe[p] = mine
            self.n[p], self.k[p], self.wrong[p] = (
                np.bincount(unit[mine], weights=counts[mine, c], minlength=size) for c in range(3)
            )
        # Each unit's (P, O, J) state per cue: a probe is right when right in every order
        # that ran; a cell with a failed call has no state (as the summary's states).
        failed = tally.failed
        kept = np.fromiter((key not in failed for key in cells), bool, m) if failed else None
        right = counts[:, 0] == counts[:, 1]
        slot_of = dict.fromkeys(
            zip(cues, branches, item_ids, strict=True), 0
        )  # (cue, branch, item)
        for j, k in enumerate(slot_of):
            slot_of[k] = j
        slot = np.fromiter(
            map(slot_of.__getitem__, zip(cues, branches, item_ids, strict=True)), np.intp, m
        )
        per: dict[str, np.ndarray] = {}
        for p in PROBES:
            r = np.full(len(slot_of), -1, dtype=np.intp)  # -1: no (unfailed) cell
            mine = at_probe[p] if kept is None else at_probe[p] & kept
            r[slot[mine]] = right[mine]
            per[p] = r
        column = np.array(
            [GROUP_NAMES.index(_GROUP_OF.get(s, SHORTCUT)) for s in STATE_CODES], dtype=np.intp
        )
        j_cells = at_probe["J"] if kept is None else at_probe["J"] & kept
        pr, orc = per["P"][slot[j_cells]], per["O"][slot[j_cells]]
        both = (pr >= 0) & (orc >= 0)
        code = pr[both] * 4 + orc[both] * 2 + right[j_cells][both].astype(np.intp)
        self.states = np.zeros((size, len(GROUP_NAMES)))
        np.add.at(self.states, (unit[j_cells][both], column[code]), 1.0)

    def sums(self, probe: str, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per item: (right, answers) of `probe` on the units in `mask`."""
        g = len(self.items)
        k = np.bincount(self.item[mask], weights=self.k[probe][mask], minlength=g)
        n = np.bincount(self.item[mask], weights=self.n[probe][mask], minlength=g)
        return k, n

    def values(self, attrs: Mapping[str, Any]) -> dict[str, list[Value | None]]:
        """attribute → its value on every unit (None where the dataset has none)."""
        found = [attrs.get(i) for i in self.items]
        names = {n for a in found if isinstance(a, ItemAttributes) for n in a.item}
        out: dict[str, list[Value | None]] = {}
        unit_item = self.item.tolist()  # Python ints: indexing by numpy scalars is slow
        for name in names:  # item-level: one look-up per item, spread over its units
            per_item = [a.item.get(name) if isinstance(a, ItemAttributes) else None for a in found]
            out[name] = [per_item[j] for j in unit_item]
        size = len(self.keys)
        for j, (b, _) in enumerate(self.keys):
            a = found[unit_item[j]]
            if isinstance(a, ItemAttributes):
                for name, v in a.branches[b].items():
                    # Not setdefault: its default (a list per unit) would be built on every
                    # call, used or not (that was a third of the scan's records).
                    column = out.get(name)
                    if column is None:
                        column = out[name] = [None] * size
                    column[j] = v
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


Side = tuple[str, np.ndarray]
"""(how the text names it — 'angry', '≥ 8 s', 'rest' —, the mask of its units)"""


def _splits(
    name: str, values: Sequence[Value | None]
) -> tuple[list[Side], list[tuple[Side, Side, float | None]]]:
    """(the table's strata, the tested splits: inside, outside, cut) of one attribute."""
    have = np.array([v is not None for v in values])
    if name in NUMERIC:
        x = np.array([float(v) if v is not None else np.nan for v in values])
        cuts = _cuts(x[have])
        if not cuts:
            return [], []
        edges = [-math.inf, *_bins(x[have]), math.inf]
        bins: list[Side] = []
        for lo, hi in zip(edges, edges[1:], strict=False):
            label = f"< {hi:g} s" if lo == -math.inf else f"≥ {lo:g} s" if hi == math.inf else (
                f"{lo:g}–{hi:g} s")  # fmt: skip
            bins.append((label, have & (x >= lo) & (x < hi)))
        splits: list[tuple[Side, Side, float | None]] = [
            ((f"≥ {c:g} s", have & (x >= c)), (f"< {c:g} s", have & (x < c)), c) for c in cuts
        ]
        return bins, splits
    labels = np.array([str(v) if v is not None else "" for v in values], dtype=object)
    names = sorted({str(v) for v in values if v is not None})
    if len(names) < 2:
        return [], []
    strata = [(v, labels == v) for v in names]
    tested = strata if len(strata) > 2 else strata[:1]  # two values: one split says it all
    return strata, [((v, m), ("rest", have & ~m), None) for v, m in tested]


def split_test(
    ka: np.ndarray, na: np.ndarray, kb: np.ndarray, nb: np.ndarray
) -> tuple[float, float, float]:
    """(d, |z|, two-sided p) for accuracy on side a − side b: the cluster-robust z test of the
    module docstring. Arguments: per item, right answers and answers on each side."""
    keep = (na > 0) | (nb > 0)
    ka, na, kb, nb = ka[keep], na[keep], kb[keep], nb[keep]
    sa, sb = na.sum(), nb.sum()
    d = float(ka.sum() / sa - kb.sum() / sb)
    # Two standard errors, the larger used. The sandwich (each item's residuals from its own
    # side's accuracy, summed per item) keeps the dependence between an item's two branches
    # when they fall on different sides (a text-preferring deaf judge is right on exactly one
    # branch of each item). But on a side whose items happen to be nearly all right it has
    # almost no spread, and a chance shortfall of failed items looks certain: a judge failing
    # 20 % of whole items at random had a subgroup named in 10 of 100 audits at 189 items
    # (benchmarks/verdicts.py). The null's own spread — per-item accuracy around the pooled
    # accuracy, one spread for both sides, as items are exchangeable when there is no
    # subgroup — does not collapse there.
    g = int(keep.sum())
    pa, pb = ka.sum() / sa, kb.sum() / sb
    resid = (ka - pa * na) / sa - (kb - pb * nb) / sb
    var = float((resid**2).sum()) * g / max(g - 1, 1)
    p0 = (ka.sum() + kb.sum()) / (sa + sb)
    ea, eb = ka - p0 * na, kb - p0 * nb
    cells = int((na > 0).sum() + (nb > 0).sum())
    spread = float((ea**2).sum() + (eb**2).sum()) / float((na**2).sum() + (nb**2).sum())
    pooled = (
        spread * cells / max(cells - 1, 1) * float((na**2).sum() / sa**2 + (nb**2).sum() / sb**2)
    )
    var = max(var, pooled)
    if var <= 1e-18:  # no spread at all: every item alike on both sides
        return (d, math.inf, 0.0) if abs(d) > 1e-12 else (d, 0.0, 1.0)
    z = abs(d) / math.sqrt(var)
    return d, z, math.erfc(z / math.sqrt(2))


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


SHORTCUT = "shortcut-like success"
_GROUP_OF = {"111": "reliable", "110": "Potemkin", "010": "perception bottleneck",
             "100": "response-mapping bottleneck", "000": "full-stack failure"}  # fmt: skip
GROUP_NAMES = (*_GROUP_OF.values(), SHORTCUT)
STATE_CODES = tuple(f"{p}{o}{j}" for p in "01" for o in "01" for j in "01")


def _confusion(u: _Units, labels: Sequence[Value | None]) -> dict[str, dict[str, int]]:
    """P's gold label × the label it answered (single-choice P: a wrong parsed answer is the
    other branch's label), 'unanswered' for unparsed and refused."""
    at = {key: j for j, key in enumerate(u.keys)}
    out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for j, (b, i) in enumerate(u.keys):
        o = at.get((1 - b, i))
        mine, other = labels[j], labels[o] if o is not None else None
        n, k, wrong = (int(a[j]) for a in (u.n["P"], u.k["P"], u.wrong["P"]))
        if mine is None or other is None or not n:
            continue
        row = out[str(mine)]
        row[str(mine)] += k
        row[str(other)] += wrong
        if n - k - wrong:
            row["unanswered"] += n - k - wrong
    return {g: dict(r) for g, r in sorted(out.items())}


def _records(tally: StrataTally, ctx: GroupContext, attrs: Mapping[str, Any]) -> list[Record]:
    u = _Units(tally)
    values = u.values(attrs)
    sheet = Sheet(u.items)
    asks: list[tuple[dict[str, Any], int]] = []

    def ask(target: Record, key: str, probe: str, mask: np.ndarray) -> None:
        k, n = u.sums(probe, mask)
        if not n.any():
            return
        num, den = sheet.array(k), sheet.array(n)  # the sheet's items are the units' items
        target[key] = {"n": int(n.sum()), "correct": int(k.sum())}
        asks.append((target[key], sheet.ratio(num, den)))

    base = {"judge": ctx.judge, "task": ctx.task}
    out: list[Record] = []
    tests: list[tuple[Record, float, np.ndarray, np.ndarray]] = []
    for name in [*ITEM_LEVEL, *UNIT_LEVEL]:
        if name not in values:
            continue
        strata, splits = _splits(name, values[name])
        for label, mask in strata:
            units = int(u.states[mask].sum())
            shares = u.states[mask].sum(axis=0) / units if units else None
            rec: Record = {
                **base,
                "kind": "stratum",
                "attribute": name,
                "stratum": label,
                "items": int(np.unique(u.item[mask]).size),
                "states": {"units": units, "shares": {} if shares is None else
                           {g: float(v) for g, v in zip(GROUP_NAMES, shares, strict=True) if v}},
            }  # fmt: skip
            for probe in TESTED:
                ask(rec, probe, probe, mask)
            # O is the mapping from words: shown as a point share (one interval fewer per
            # stratum keeps the scan cheap beside the summary).
            k, n = u.sums("O", mask)
            if n.any():
                o = {"n": int(n.sum()), "correct": int(k.sum()), "rate": float(k.sum() / n.sum())}
                rec["O"] = {**o, "items": int((n > 0).sum())}
            out.append(rec)
        if name == "label":
            out.append({**base, "kind": "confusion", "attribute": name, "items": len(u.items),
                        "confusion": _confusion(u, values[name])})  # fmt: skip
        for (inside, m_in), (outside, m_out), cut in splits:
            for probe in TESTED:
                ka, na = u.sums(probe, m_in)
                kb, nb = u.sums(probe, m_out)
                if not na.any() or not nb.any():
                    continue
                d, z, p = split_test(ka, na, kb, nb)
                items_in, items_out = int((na > 0).sum()), int((nb > 0).sum())
                enough = items_in >= MIN_ITEMS and items_out >= MIN_ITEMS
                rec = {**base, "kind": "split", "attribute": name, "probe": probe,
                       "stratum": inside, "versus": outside, "cut": cut,
                       "items": int(((na > 0) | (nb > 0)).sum()), "items_in": items_in,
                       "items_out": items_out, "delta": d, "z": z, "p_value": p,
                       "testable": enough,
                       "inside": {"rate": float(ka.sum() / na.sum()), "n": int(na.sum())},
                       "outside": {"rate": float(kb.sum() / nb.sum()),
                                   "n": int(nb.sum())}}  # fmt: skip
                tests.append((rec, p if enough else 1.0, m_in, m_out))
                out.append(rec)
    adjusted = holm([p for _, p, _, _ in tests])
    for (rec, _, m_in, m_out), q in zip(tests, adjusted, strict=True):
        rec["p_holm"] = q
        rec["tests"] = len(tests)
        rec["named"] = bool(rec["testable"] and q < ALPHA and abs(rec["delta"]) >= MIN_EFFECT)
        if rec["named"]:  # the verdict's words need both sides' intervals
            ask(rec, "inside", rec["probe"], m_in)
            ask(rec, "outside", rec["probe"], m_out)
    estimates = sheet.evaluate(min(ctx.replicates, REPLICATES), ctx.seed)
    for target, handle in asks:
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
        where = value_phrase(str(r.get("task", "")), value)
        rest = "on the other labels"
    elif attr == "contrast":
        where, rest = f"on the {value} contrast", "on the other contrasts"
    elif attr == "shift turn":
        where, rest = f"when the mood shifts at {value}", "at the other turns"
    else:
        where, rest = f"on {attr} {value}", f"on the other {attr} values"
    if worse_inside:
        return f"fails {where}: {probe} {_est(worse)} vs {_pct(better.get('rate'))} % {rest}"
    return f"succeeds only {where}: {probe} {_est(better)} vs {_est(worse)} {rest}"


def _explained(r: Mapping[str, Any]) -> float:
    n_in, n_out = float(r["inside"]["n"]), float(r["outside"]["n"])
    return float(r["delta"]) ** 2 * n_in * n_out / max(n_in + n_out, 1.0)


def strata_behaviours(records: Sequence[Record], ctx: GroupContext) -> list[Behaviour]:
    """The named splits the verdict says: per probe, the one that explains most (the
    least-squares rule, across attributes). Attributes go together — in a positional set the
    early-shift branch is also the angry one — so the others are consequences of the same gap
    and stay in the report's table, marked named."""
    best: dict[str, Record] = {}
    for r in records:
        if r.get("kind") == "split" and r.get("named"):
            key = r["probe"]
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
    report="paraudit.report.strata:registered_strata_part",
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
