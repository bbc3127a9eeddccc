"""The summary's first stage: one pass over a judge × task's rows.

`GroupTally.tally` reads every row once: it counts the core cascade's cells (per probe ×
protocol × cue: answers, right answers per item, outcomes, first-option picks), its units (a
question in every order it was asked), per-turn perception, and it feeds each registered
analysis's tally (`stats/analysis.py`) the rows of the keys it wants. The second stage
(`sections.py`) turns these counts into the core sections; the third (`assemble.py`) runs both
per group and adds the registered units and the verdict.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from itertools import chain, islice
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np

from paraudit.stats import behaviour as bh
from paraudit.stats.analysis import Analysis, TakesRows, Tally
from paraudit.stats.dependence import PERMUTATIONS
from paraudit.stats.itemboot import Sheet
from paraudit.stats.units import (
    FIRST_LABELS,
    Row,
    branch_of,
    chance_level,
    first_picks,
    turn_hits,
)

CUE_ORDER = {c: i for i, c in enumerate(("none", "soft", "hard", "transition", "all"))}
_ITEM = itemgetter(1)
"""A unit key's item: (branch, item)."""
CHUNK = 4096
"""Rows read per step of the pass: a tally with `add_rows` gets its rows of each step in one
call; a step's rows are all that is held at once (stats/rowgroups.py rebuilds rows lazily)."""


def wants(tally: Tally, key: tuple[str, str, str]) -> bool:
    """Whether a tally reads the rows of a (probe, protocol, cue) (its optional `wants`)."""
    check = getattr(tally, "wants", None)
    return check is None or bool(check(*key))


def _chunks(rows: Iterable[Row]) -> Iterable[list[Row]]:
    it = iter(rows)
    while chunk := list(islice(it, CHUNK)):
        yield chunk


def cue_key(c: str) -> tuple[int, str]:
    return (CUE_ORDER.get(c, 9), c)


class Cell:
    """Tallies of one judge × task × probe × protocol × cue."""

    def __init__(self, size: int) -> None:
        self.units: dict[tuple[int | None, str], list[int]] = {}
        """(branch, item) → [answers, right answers]: a unit is a question in every order it
        was asked; in first-seen order (a small key per row, looked up in the cell already
        found, costs less than one group-wide key of five fields)."""
        # Per item of the group's sheet (`finish`): answers, right answers, units, units right
        # in every order.
        zeros: np.ndarray = np.zeros(size)
        self.n, self.k, self.cn, self.ck = zeros, zeros.copy(), zeros.copy(), zeros.copy()
        self.parsed = self.unparsed = self.refused = self.errors = 0
        self.chance = 0.0
        self.orders = 0
        """The most presentations (response × context orders) any unit was answered in."""
        self.position: bh.Tally = bh.new_tally()

    def finish(self, index: Mapping[str, int], failed: set[tuple[int | None, str]]) -> None:
        """Per item counts from the units, column-wise (a Python step per unit and per count
        was a tenth of the tally). Units with a failed call (`failed`) count in the answers
        but not in the order-consistent figures, and leave `units` (the states read it).
        Whole numbers: the sums are exact in any order."""
        units, size = self.units, len(self.n)
        if not units:
            return
        m = len(units)
        where = np.fromiter(map(index.__getitem__, map(_ITEM, units)), np.intp, m)
        counts = np.fromiter(chain.from_iterable(units.values()), float, 2 * m).reshape(m, 2)
        n, k = counts[:, 0], counts[:, 1]
        self.n = np.bincount(where, weights=n, minlength=size)
        self.k = np.bincount(where, weights=k, minlength=size)
        if failed:
            kept = np.fromiter((u not in failed for u in units), bool, m)
            where, n, k = where[kept], n[kept], k[kept]
        self.cn = np.bincount(where, minlength=size).astype(float)
        self.ck = np.bincount(where, weights=(n == k).astype(float), minlength=size)
        self.orders = int(n.max()) if n.size else 0
        for unit in failed:
            units.pop(unit, None)

    def add(self, other: Cell) -> None:
        """Pool another cue's tallies into this one (the "all" cue)."""
        self.n = self.n + other.n
        self.k = self.k + other.k
        self.cn = self.cn + other.cn
        self.ck = self.ck + other.ck
        self.parsed += other.parsed
        self.unparsed += other.unparsed
        self.refused += other.refused
        self.errors += other.errors
        self.chance += other.chance
        self.orders = max(self.orders, other.orders)


class GroupTally:
    """The tallies of one judge × task, from one pass over its rows (`tally`)."""

    def __init__(
        self, judge: str, task: str, rows: Iterable[Row], seed: int = 0,
        permutations: int = PERMUTATIONS,
    ) -> None:  # fmt: skip
        self.judge, self.task, self.rows = judge, task, rows
        self.seed, self.permutations = seed, permutations
        # The items, and the probes present (a unit may start only where its probes are), in
        # one pass that runs in C (a Python loop here cost a tenth of the whole tally).
        pairs = set(map(attrgetter("item_id", "probe"), rows))
        self.probes: set[str] = {p for _, p in pairs}
        self.sheet = Sheet(i for i, _ in pairs)
        self.pending: list[tuple[dict[str, Any], str, int]] = []
        self.t_answers: dict[str, int] = {"answers": 0, "unparsed": 0, "refused": 0, "errors": 0}
        size = len(self.sheet.items)
        self.cells: dict[tuple[str, str, str], Cell] = defaultdict(lambda: Cell(size))

    def start(self, analyses: Iterable[Analysis], inputs: Mapping[str, Any]) -> dict[str, Tally]:
        """A fresh tally per registered analysis that applies to this group."""
        return {
            a.name: a.start(self.judge, self.task)
            for a in analyses
            if not a.across
            and (a.probes is None or a.probes & self.probes)
            and (a.input is None or inputs.get(a.input) is not None)
        }

    # -- asking for statistics -------------------------------------------------------------
    def ask(self, target: dict[str, Any], key: str, handle: int) -> None:
        self.pending.append((target, key, handle))

    def ratio(self, target: dict[str, Any], key: str, tally: bh.Tally) -> None:
        self.ask(target, key, self.sheet.ratio(*self.sheet.pair(tally)))

    def _cols(self, k: np.ndarray, n: np.ndarray) -> tuple[int, int]:
        return self.sheet.array(k), self.sheet.array(n)

    # -- tallies -----------------------------------------------------------------------------
    def tally(self, units_fed: Iterable[Tally] = ()) -> None:
        """One pass over the rows: cells per real cue, units, first picks, per-turn P; every
        row is also fed to each registered analysis's tally (`units_fed`)."""
        units_fed = list(units_fed)
        fed = [t for t in units_fed if getattr(t, "reads_rows", True)]
        # Which tallies read a (probe, protocol, cue): decided once per key, not per row (a
        # tally that reads one cue of one probe is then not called on the other rows at all).
        # A tally with `add_rows` is fed through a list (one C-level append per row), handed
        # over once per step of CHUNK rows.
        route: dict[tuple[str, str, str], tuple[list[Callable[[Row], None]], Cell]] = {}
        takes_rows = [t for t in fed if isinstance(t, TakesRows)]
        batches: dict[int, list[Row]] = {id(t): [] for t in takes_rows}
        feeds = [(t.add_rows, batches[id(t)]) for t in takes_rows]

        def feeder(t: Tally) -> Callable[[Row], None]:
            return batches[id(t)].append if id(t) in batches else t.add

        # A tie item (the ties preset: the right answer is "tie") is read only by the units
        # that say so (stats/ties.py); every other figure is about items the audio decides.
        tie_feed: list[Callable[[Row], None]] = [
            feeder(t) for t in units_fed if getattr(t, "reads_ties", False)
        ]
        cells = self.cells
        self.position: dict[tuple[str, str, str], bh.Tally] = defaultdict(bh.new_tally)
        self.turns: dict[str, bh.Tally] = defaultdict(bh.new_tally)
        # J pointwise accuracy per response order (order dependence), per (cue, order).
        self.order_cells: dict[tuple[str, str], bh.Tally] = defaultdict(bh.new_tally)
        # Positional P per human-turn position, and each turn's labels across branches (a turn
        # whose emotion is the same in both branches is one a deaf guesser can get right).
        self.positions: dict[tuple[str, str], bh.Tally] = defaultdict(bh.new_tally)
        self.turn_labels: dict[tuple[str, str, str, str], dict[int, str]] = {}
        self.j_point: list[Row] = []
        self.t_rows: list[Row] = []
        # Units with a failed call: whether they are right "in every order" is unknown, so they
        # are left out of order-consistent figures (and states) rather than judged on the
        # orders that happened to answer.
        incomplete: set[tuple[str, str, str, int | None, str]] = set()
        rows_seen = failed = 0
        turns, order_cells = self.turns, self.order_cells
        j_point, t_rows = self.j_point, self.t_rows
        for chunk in _chunks(self.rows):
            for r in chunk:
                # The fields by position, once (a StatRow is a tuple; see statrow.FIELDS): this
                # loop runs once per row of the group; attribute look-ups were a large share.
                _, _, item, branch, probe, proto, cue, order, pred, gold, status, correct = r[:12]
                if gold == "tie":
                    for tie_add in tie_feed:
                        tie_add(r)
                    continue
                key = (probe, proto, cue)
                # The key's feed and cell in one look-up (a tuple key is hashed on every use).
                hit = route.get(key)
                if hit is None:
                    # No cell for N: null audio is its own unit's, not the core's.
                    hit = route[key] = (
                        [feeder(t) for t in fed if wants(t, key)],
                        cells[key] if probe != "N" else Cell(0),
                    )
                feed, c = hit
                for add in feed:
                    add(r)
                if probe == "N":  # null audio: only its own unit reads N rows
                    continue
                rows_seen += 1
                if status == "error":
                    failed += 1
                    c.errors += 1
                    incomplete.add((probe, proto, cue, branch, item))
                    continue
                right = bool(correct)
                # Per item answers and right answers of the cell are the units' sums (below):
                # counted once per row here, not three times.
                u = c.units.get((branch, item))
                if u is None:
                    u = c.units[(branch, item)] = [0, 0]
                u[0] += 1
                u[1] += right
                if isinstance(gold, dict) and "CA" not in gold:
                    c.chance += chance_level(r)
                    hits = turn_hits(r)
                    if hits is not None:
                        t = turns[cue][item]
                        t[0] += hits[0]
                        t[1] += hits[1]
                        self._turn_positions(r, cue, item)
                else:
                    c.chance += 0.5
                if status == "ok":
                    c.parsed += 1
                    # The common case inline (a choice), the rest through first_picks.
                    fp = (float(pred in FIRST_LABELS), 1.0) if type(pred) is str else first_picks(r)
                    if fp is not None:
                        t = c.position[item]
                        t[0] += fp[0]
                        t[1] += fp[1]
                elif status == "unparsed":
                    c.unparsed += 1
                elif status == "refused":
                    c.refused += 1
                if proto == "pointwise" and branch is not None:
                    if probe == "J":
                        j_point.append(r)
                        t = order_cells[(cue, order)][item]
                        t[0] += right
                        t[1] += 1
                    elif probe == "T":
                        t_rows.append(r)
            for add_rows, batch in feeds:
                if batch:
                    add_rows(batch)
                    batch.clear()
        self.rows_seen, self.failed = rows_seen, failed
        failed_units: dict[tuple[str, str, str], set[tuple[int | None, str]]] = defaultdict(set)
        for probe, proto, cue, branch, item in incomplete:
            failed_units[(probe, proto, cue)].add((branch, item))
        for key, c in cells.items():
            c.finish(self.sheet.index, failed_units.get(key, set()))
        for (probe, proto, cue), c in cells.items():
            if c.position:
                self.position[(probe, proto, cue)] = c.position
        for (probe, proto, cue), c in list(cells.items()):
            # The misleading cue pulls against the audio: pooled into "all" it would read as
            # lost skill; it has its own section (stats/pressure.py).
            if cue not in ("all", "misleading"):
                cells[(probe, proto, "all")].add(c)
        for per_cue in list(self.turns.values()):
            bh.merge(self.turns["all"], per_cue)

    def _turn_positions(self, r: Row, cue: str, item: str) -> None:
        """Per human-turn position (first / middle / last) hits of one trajectory answer."""
        gold = r.gold
        if not isinstance(gold, dict):  # the caller passes trajectory rows only
            return
        pred = r.pred if r.status == "ok" and isinstance(r.pred, dict) else {}
        keys = sorted(gold, key=lambda k: int(str(k)[1:]) if str(k)[1:].isdigit() else 0)
        for i, k in enumerate(keys):
            pos = "first" if i == 0 else "last" if i == len(keys) - 1 else "middle"
            for where in (pos, f"human turn {i + 1}"):
                t = self.positions[(cue, where)][item]
                t[0] += pred.get(k) == gold[k]
                t[1] += 1
                labels = self.turn_labels.setdefault((item, cue, r.order, where + ":" + k), {})
                labels[branch_of(r)] = gold[k]

    def position_chance(self) -> dict[tuple[str, str], bh.Tally]:
        """Per (cue, position), per item: what a deaf guesser scores (1 on a turn whose
        emotion both branches share, ½ where they differ or only one branch ran)."""
        out: dict[tuple[str, str], bh.Tally] = defaultdict(bh.new_tally)
        for (item, cue, _, key), labels in self.turn_labels.items():
            same = len(labels) == 2 and len(set(labels.values())) == 1
            t = out[(cue, key.split(":", 1)[0])][item]
            t[0] += 1.0 if same else 0.5
            t[1] += 1
        return out

    # -- sections ------------------------------------------------------------------------------
