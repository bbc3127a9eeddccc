"""StatRow: what the statistics read of one result row, typed, immutable and built in one place.

Every statistic reads rows by attribute (`r.probe`, `r.correct`), so mypy checks the field
names; nothing in stats/ or report/ reads a row as an untyped dict. A StatRow is a NamedTuple:
a plain tuple underneath (no per-row `__dict__`, immutable), so `stats/rowgroups.py` can keep a
million rows as compact tuples of shared values and hand each out as a StatRow only while a
statistic reads it.

Adding a field (a new probe's asked question, an invariance twin's change kind) is one line at
the end of `StatRow` below: `name: type | None = None` (rowgroups does not store a row's
trailing None fields, so a field costs memory only in the rows that set it). If `ResultRow` has
an attribute of that name it is read from there (the default stands in for rows of older run
folders that lack it, e.g. an `extra` key they never wrote); a field that is computed from a
row rather than read (like `agreement`) also gets one entry in `_DERIVED`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import Any, NamedTuple

from paraudit.protocols.parsing import reply_shape
from paraudit.runfolder.rows import Pred, ResultRow


class StatRow(NamedTuple):
    """One result row as the statistics see it (the fields of `ResultRow` they read)."""

    judge: str
    task: str
    item_id: str
    branch: int | None
    probe: str
    protocol: str
    cue: str
    order: str
    pred: Pred | None
    gold: Pred
    status: str
    correct: bool
    context_order: str | None = None
    """Pairwise context order (None for pointwise rows and in older runs)."""
    agreement: tuple[int, int] | None = None
    """`?samples=N`: (draws agreeing with the majority answer, answered draws); None when the
    row was not sampled or no draw answered (`draw_agreement`). The pair, not the draws: a
    sampled row's `samples` list is not kept."""
    asks: str | None = None
    """Probe N only: the probe an N row asks (P or J; protocols/null_probe.py)."""
    null: str | None = None
    """Probe N only: the null audio it got ('silence' or 'noise')."""
    shape: str | None = None
    """Unparsed rows only: the reply's shape, its first characters with whitespace collapsed
    (`protocols.parsing.reply_shape`), so the verdict can name what the judge replied."""
    draw_hits: tuple[int, int] | None = None
    """`?samples=N`: (draws right, draws replied to) — one draw's accuracy (`draw_accuracy`)."""
    reask: tuple[int, int] | None = None
    """`?samples=N`: (pairs of answered draws that disagree, pairs of answered draws) — the
    judge's own re-ask disagreement on identical audio (`reask_pairs`), the noise baseline
    of every flip statistic (stats/reask.py)."""
    served_call: tuple[str | None, str | None, int | None] | None = None
    """(model the reply says answered, its fingerprint / model version / revision, the minute
    the call finished) for stats/served.py; None in older runs. One shared tuple, not three
    fields: few distinct values in a run, so a row holds one reference (the report keeps
    300,000+ rows); minutes order the calls well enough (ties: results order)."""


GROUP_FIELDS = ("judge", "task")
"""Held once per judge × task group by stats/rowgroups.py, not per row."""
FIELDS: tuple[str, ...] = StatRow._fields[len(GROUP_FIELDS) :]
"""What a group keeps per row, in StatRow order."""


def draw_agreement(samples: Sequence[Mapping[str, Any]] | None) -> tuple[int, int] | None:
    """(draws agreeing with the most common answer, answered draws) of a sampled row's draws
    (ResultRow's `samples`, runner/samples.py), or None when it has none or no draw answered
    (unparsed, refused and failed draws are not answers to agree with)."""
    if not samples:
        return None
    preds = [json.dumps(s["pred"], sort_keys=True) for s in samples if s["status"] == "ok"]
    if not preds:
        return None
    return max(preds.count(p) for p in set(preds)), len(preds)


def draw_accuracy(samples: Sequence[Mapping[str, Any]] | None) -> tuple[int, int] | None:
    """(draws right, draws replied to) of a sampled row; failed calls are no reply, unparsed
    and refused replies are wrong (strict, as every accuracy); None without draws."""
    if not samples:
        return None
    replied = [s for s in samples if s["status"] != "error"]
    if not replied:
        return None
    return sum(bool(s.get("correct")) for s in replied), len(replied)


def reask_pairs(samples: Sequence[Mapping[str, Any]] | None) -> tuple[int, int] | None:
    """(disagreeing pairs, pairs) among a sampled row's answered draws: the chance that two
    asks of the identical prompt differ is disagreeing / pairs. None with under two answers."""
    if not samples:
        return None
    preds = [json.dumps(s["pred"], sort_keys=True) for s in samples if s["status"] == "ok"]
    n = len(preds)
    if n < 2:
        return None
    agree = sum(c * (c - 1) // 2 for c in (preds.count(p) for p in set(preds)))
    return n * (n - 1) // 2 - agree, n * (n - 1) // 2


def _extra(row: ResultRow, name: str) -> Any:
    return (row.model_extra or {}).get(name)


VERSION_FIELDS = ("system_fingerprint", "model_version", "revision")
"""Served-model fields that name a version of the model (the first present is kept)."""


def _served_call(row: ResultRow) -> tuple[str | None, str | None, int | None] | None:
    served = row.served or {}
    if not served and row.finished_at is None:
        return None
    version = next((served[k] for k in VERSION_FIELDS if served.get(k)), None)
    minute = None if row.finished_at is None else int(row.finished_at // 60)
    return served.get("model"), version, minute


_DERIVED: dict[str, Callable[[ResultRow], Any]] = {
    "agreement": lambda row: draw_agreement(_extra(row, "samples")),
    "shape": lambda row: reply_shape(row.raw) if row.status == "unparsed" else None,
    "draw_hits": lambda row: draw_accuracy(_extra(row, "samples")),
    "reask": lambda row: reask_pairs(_extra(row, "samples")),
    "served_call": _served_call,
}
"""Fields computed from a row rather than read from it."""


def _reader(name: str) -> Callable[[ResultRow], Any]:
    if name in _DERIVED:
        return _DERIVED[name]
    if name in ResultRow.model_fields:
        return attrgetter(name)
    default = StatRow._field_defaults.get(name)
    # Not (yet) a declared field: an extra key of the row, or the default in older runs.
    return lambda row: (row.model_extra or {}).get(name, default)


_READERS = tuple(_reader(name) for name in FIELDS)


def row_values(row: ResultRow, share: Callable[[Any], Any] = lambda v: v) -> tuple[Any, ...]:
    """FIELDS of `row`, each passed through `share` (rowgroups: one object per distinct
    value)."""
    return tuple([share(read(row)) for read in _READERS])


def stat_row(row: ResultRow, judge: str | None = None) -> StatRow:
    """The StatRow of one ResultRow (`judge` overrides its judge label)."""
    return StatRow(judge or row.judge, row.task, *row_values(row))


__all__ = [
    "FIELDS",
    "GROUP_FIELDS",
    "StatRow",
    "draw_accuracy",
    "draw_agreement",
    "reask_pairs",
    "row_values",
    "stat_row",
]
