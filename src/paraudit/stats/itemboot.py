"""Item-level intervals for many statistics at once: one resampling of whole items per sheet.

A sheet holds, for one judge × task, per-item sums of many quantities (correct answers,
answers, units in each (P, O, J) state, first-option picks, …). Every statistic is a function
of the column sums — a proportion is a ratio of two sums, a difference is a difference of two
ratios, an excess over independence is a polynomial in ratios. Resampling items with
replacement (the paired bootstrap's draws, `bootstrap._weights`) turns the per-item table into
B replicate column sums with ONE matrix product; every statistic is then evaluated on the
whole-sample sums (its estimate) and on the B replicates (its percentile interval). Instances
of one item (branches, orders, cues) stay together in every replicate, so the intervals reflect
that they are not independent trials.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from operator import itemgetter
from statistics import NormalDist
from typing import Any

import numpy as np

from paraudit.stats.bootstrap import DEFAULT_B, _weights

Sums = np.ndarray
"""Column sums: shape (m,) for the whole sample, (B, m) for the replicates."""
StatFn = Callable[[Sums], np.ndarray]


@dataclass(frozen=True)
class Estimate:
    """A statistic with its 95 % item-bootstrap interval (None when it is undefined)."""

    value: float | None
    low: float | None
    high: float | None
    items: int
    """Items the statistic rests on."""

    def covers(self, x: float) -> bool:
        return self.low is not None and self.high is not None and self.low <= x <= self.high

    def as_dict(self) -> dict[str, float | int | None]:
        return {"rate": self.value, "ci_low": self.low, "ci_high": self.high, "items": self.items}


class Sheet:
    """Per-item sums for one judge × task, and the statistics asked of them."""

    def __init__(self, items: Iterable[str]) -> None:
        self.items = sorted(set(items))
        self.index = {item: i for i, item in enumerate(self.items)}
        self._cols: list[np.ndarray] = []
        self._stats: list[tuple[StatFn, int, float]] = []
        self._forms: list[tuple[int, ...]] = []
        """Per statistic, its columns when it is a ratio (2) or a difference of ratios (4):
        `evaluate` computes all of those in a few array operations instead of one call each
        (the same float operations, so the same bits); () for any other function."""

    def column(self, values: Mapping[str, float]) -> int:
        """Add one quantity (item → sum over that item's instances); returns its column."""
        col = np.zeros(len(self.items))
        if values:
            col[self._rows(values)] = np.fromiter(values.values(), float, len(values))
        self._cols.append(col)
        return len(self._cols) - 1

    def _rows(self, items: Mapping[str, Any]) -> np.ndarray:
        """The sheet's row of each item (a non-empty mapping's keys), in the mapping's order."""
        # itemgetter looks every item up in C (a report builds thousands of columns).
        # (itemgetter of one key returns the value itself, not a 1-tuple.)
        where = (
            itemgetter(*items)(self.index) if len(items) > 1 else (self.index[next(iter(items))],)
        )
        return np.asarray(where, dtype=np.intp)

    def pair(self, tally: Mapping[str, Sequence[float]]) -> tuple[int, int]:
        """Add the two quantities of a tally (item → [numerator, denominator]); returns their
        columns (one look-up of the items for both)."""
        num, den = np.zeros(len(self.items)), np.zeros(len(self.items))
        if tally:
            where = self._rows(tally)
            both = np.fromiter(chain.from_iterable(tally.values()), float, 2 * len(tally))
            num[where], den[where] = both[0::2], both[1::2]
        self._cols += (num, den)
        return len(self._cols) - 2, len(self._cols) - 1

    def array(self, values: np.ndarray) -> int:
        """Add one quantity given per item in the sheet's item order; returns its column."""
        if values.shape != (len(self.items),):
            raise ValueError(f"a column needs {len(self.items)} values, got {values.shape}")
        self._cols.append(np.array(values, dtype=float))
        return len(self._cols) - 1

    def present(self, col: int) -> np.ndarray:
        """Mask of the items where a column is non-zero (e.g. items that have a cell)."""
        return np.asarray(self._cols[col] != 0)

    def restricted(self, col: int, mask: np.ndarray) -> int:
        """A copy of a column zeroed outside `mask` (to pair two cells on shared items); the
        column itself when the mask keeps every item it has."""
        if not np.any(self._cols[col][~mask]):
            return col
        self._cols.append(np.where(mask, self._cols[col], 0.0))
        return len(self._cols) - 1

    def paired(
        self, a: tuple[int, int], b: tuple[int, int]
    ) -> tuple[tuple[int, int], tuple[int, int], int]:
        """Two cells' (numerator, denominator) columns restricted to the items where both
        denominators are non-zero, and how many those are: what a paired `difference` reads."""
        shared = self.present(a[1]) & self.present(b[1])
        ra = (self.restricted(a[0], shared), self.restricted(a[1], shared))
        rb = (self.restricted(b[0], shared), self.restricted(b[1], shared))
        return ra, rb, int(shared.sum())

    def stat(self, fn: StatFn, items: int, confidence: float | None = None) -> int:
        """Ask for a statistic of the column sums; returns its handle for `evaluate`.
        `confidence` overrides the sheet's level for this statistic: a decision interval
        (a verdict step's, 99 %), widened on few items (`expanded_level`)."""
        return self._add(fn, items, confidence, ())

    def _add(self, fn: StatFn, items: int, confidence: float | None, form: tuple[int, ...]) -> int:
        self._stats.append((fn, items, -1.0 if confidence is None else confidence))
        self._forms.append(form)
        return len(self._stats) - 1

    def ratio(self, num: int, den: int, confidence: float | None = None) -> int:
        """sum(num) / sum(den) over items (a proportion pooled over instances)."""
        items = int(np.count_nonzero(self._cols[den])) if self._cols else 0
        return self._add(lambda s: s[..., num] / s[..., den], items, confidence, (num, den))

    def difference(
        self, a: tuple[int, int], b: tuple[int, int], items: int, confidence: float | None = None
    ) -> int:
        """ratio(a) − ratio(b): paired, since both are resampled with the same items."""
        return self._add(
            lambda s: s[..., a[0]] / s[..., a[1]] - s[..., b[0]] / s[..., b[1]],
            items,
            confidence,
            (*a, *b),
        )

    def evaluate(
        self, replicates: int = DEFAULT_B, seed: int = 0, confidence: float = 0.95
    ) -> list[Estimate]:
        """Every statistic asked, in the order asked, with its percentile interval."""
        if not self._stats:
            return []
        x = np.stack(self._cols, axis=1) if self._cols else np.zeros((len(self.items), 0))
        totals = x.sum(axis=0)
        # One row per column, one entry per replicate (rows, not columns: every statistic and
        # every quantile below reads a column's replicates, contiguous this way).
        reps = _replicate_sums(_weights(len(self.items), replicates, seed), x)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = [float(fn(totals)) for fn, _, _ in self._stats]
            matrix = self._replicates(reps)
        levels = np.array(
            [confidence if c < 0 else expanded_level(c, n) for _, n, c in self._stats]
        )
        lows, highs = np.empty(len(levels)), np.empty(len(levels))
        for level in np.unique(levels):
            rows = levels == level
            lows[rows], highs[rows] = row_percentiles(matrix[rows], (1 - level) / 2)
        out = []
        for (_, items, _), v, lo, hi in zip(self._stats, values, lows, highs, strict=True):
            if not np.isfinite(v):
                out.append(Estimate(None, None, None, items))
            else:
                out.append(Estimate(v, _finite(lo), _finite(hi), items))
        return out

    def _replicates(self, reps: np.ndarray) -> np.ndarray:
        """Every statistic on every replicate, shape (statistics, B): ratios and differences
        in one array operation per kind (elementwise, the same operations as their `fn`),
        any other statistic through its function."""
        matrix = np.empty((len(self._stats), reps.shape[1]))
        for size in (2, 4):
            at = [i for i, f in enumerate(self._forms) if len(f) == size]
            if not at:
                continue
            c = np.array([self._forms[i] for i in at], dtype=np.intp).T
            if size == 2:
                matrix[at] = reps[c[0]] / reps[c[1]]
            else:
                matrix[at] = reps[c[0]] / reps[c[1]] - reps[c[2]] / reps[c[3]]
        by_replicate = reps.T  # what a StatFn reads: s[..., column]
        for i, form in enumerate(self._forms):
            if not form:
                matrix[i] = np.asarray(self._stats[i][0](by_replicate), float)
        return matrix


_NORMAL = NormalDist()


@lru_cache(maxsize=1024)
def expanded_level(level: float, items: int) -> float:
    """The percentile level that gives a decision interval at `level` its nominal coverage on
    `items` items: Hesterberg's expanded percentile interval (What Teachers Should Know about
    the Bootstrap, 2015, section 5.3). The percentile bootstrap is too narrow on few items (its
    spread is the plug-in one, with n, not n − 1, and a normal, not a t, tail): simulated coins
    on 12-16 items were named "usable", "below chance" or "order-dependent" in 6-10 audits in
    100 at 99 %. The level is raised until the normal quantile equals t(n − 1) · √(n / (n − 1))
    at the asked level: 99 % → 99.88 % on 12 items, 99.77 % on 16, 99.09 % on 189, → 99 % as
    items grow. On fewer than 3 items no width is enough: the whole bootstrap range is used."""
    if items < 3:
        return 1.0
    t = t_quantile(1.0 - (1.0 - level) / 2.0, items - 1) * math.sqrt(items / (items - 1))
    return 1.0 - 2.0 * _NORMAL.cdf(-t)


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile by its expansion in the normal one (Abramowitz & Stegun 26.7.5):
    within 0.25 % of the exact value from 4 degrees of freedom up at p = 0.995 (tested against
    scipy). A summary imports no scipy.stats (its import is a tenth of benchmarks/stats.py)."""
    z = _NORMAL.inv_cdf(p)
    v = float(df)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4)
    )


_BLAS: Any = None


def _one_blas_thread() -> Any:
    """A context in which BLAS runs on one thread (threadpoolctl; the controller is made once).

    The bootstrap's products are small and many: OpenBLAS's helper threads gained no wall time
    on two cores but spun for a third of `benchmarks/stats.py`'s CPU (7.3 s against 5.1-5.8
    s with one thread), and one thread also makes the float sums independent of the core count
    of the machine that writes the report."""
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


def _replicate_sums(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    with _one_blas_thread():
        return _products(w, x)


def _products(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The replicates' column sums, shape (columns, B), as float64.

    Counts drawn per item per replicate (`w`) times the per-item table, as one float32 matrix
    product (fast; estimates use float64 totals). When every entry is a whole number and no
    sum can reach 2**24, float32 holds every partial sum exactly, so the product does not
    depend on how it is blocked: then each distinct column is multiplied once (a group's sheet
    repeats many — an answer count is the denominator of several statistics). Otherwise the
    product is the plain one over every column, as it always was.
    """
    bound = float(np.abs(x).max(initial=0.0)) * x.shape[0]
    if bound < 2**24 and np.array_equal(x, np.round(x)):
        first: dict[bytes, int] = {}
        keep: list[int] = []
        where = np.empty(x.shape[1], dtype=np.intp)
        for j in range(x.shape[1]):
            u = first.setdefault(x[:, j].tobytes(), len(keep))
            if u == len(keep):
                keep.append(j)
            where[j] = u
        # Columns × replicates straight from the product (BLAS reads w transposed in place),
        # each repeat copied once, then widened.
        sums = x[:, keep].astype(np.float32).T @ w.T
        return np.asarray(sums[where], dtype=np.float64)
    return np.ascontiguousarray((w @ x.astype(np.float32)).astype(np.float64).T)


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def percentiles(matrix: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The alpha and 1 − alpha quantiles of every column, ignoring NaN (a replicate that drew
    no item of a cell), with numpy's default linear interpolation; vectorised over columns."""
    return row_percentiles(np.ascontiguousarray(matrix.T), alpha)


def row_percentiles(matrix: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """`percentiles` of every row (one statistic's replicates per row).

    Rows without NaN (nearly all) need only two adjacent order statistics per tail: each tail
    takes one partial sort at one position (the low tail on the values, the high tail on their
    negatives), the neighbour below that position being the largest of the part before it. One
    position per sort: a partition at four positions at once cost twice as much. The other
    rows are sorted.
    """
    m, b = matrix.shape
    low, high = np.full(m, np.nan), np.full(m, np.nan)
    finite = np.isfinite(matrix)
    full = finite.all(axis=1)
    if full.any() and b:
        rows = matrix[full]  # a copy: partitioned in place below
        pos = np.array([alpha, 1 - alpha]) * (b - 1)
        low[full] = _quantile_at(rows, float(pos[0]))
        # The high tail on the negatives, where it is a low tail (negation is exact: the same
        # order statistics, the same interpolation, the same bits).
        np.negative(rows, out=rows)
        high[full] = _quantile_at(rows, float(pos[1]), negated=True)
    for r in np.flatnonzero(~full):
        vals = matrix[r, finite[r]]
        if vals.size:
            low[r], high[r] = np.quantile(vals, [alpha, 1 - alpha])
    return low, high


def _quantile_at(rows: np.ndarray, pos: float, negated: bool = False) -> np.ndarray:
    """Per row, numpy's linear-interpolation quantile at sorted position `pos`, partitioning
    `rows` in place; `negated`: the rows hold the negatives of the values (the quantile of the
    values is returned). Both order statistics around `pos` come from one partition: the one
    at the partition's position, and its neighbour as the largest value before it."""
    b = rows.shape[1]
    lo = math.floor(pos)
    hi = min(lo + 1, b - 1)
    frac = pos - lo
    # Negated, the order reverses: the values' order statistic s sits at b - 1 - s, so the
    # partition is at lo's place and hi's is the one before it.
    at = b - 1 - lo if negated else hi
    rows.partition(at, axis=1)
    at_value = rows[:, at]
    before = rows[:, :at].max(axis=1) if hi > lo else at_value
    v_lo, v_hi = (at_value, before) if negated else (before, at_value)
    q = v_lo * (1 - frac) + v_hi * frac
    return np.asarray(-q if negated else q)
