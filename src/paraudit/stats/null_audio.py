"""The null-audio probe N from the stored rows: does the judge answer when it hears nothing?

Per judge × task × asked probe (P, J) × null kind (silence, noise), over the N rows that did
not fail:

- `confident`: share of answers that name a valid label (status ok) — what a judge says with
  nothing to hear, said with the same confidence as on real audio;
- `no_audio`: share of `no-audio` outcomes (the reply says it heard nothing:
  `protocols/no_audio.py`), counted apart from answers and from unparsed replies;
- `agreement`: share of N answers equal to the same judge's real-audio answer to the matching
  real instance (same item, asked probe, cue, response order, branch; pointwise). Its
  denominator is every N row whose real twin was answered; a no-audio, unparsed or refused N
  reply is not agreement. A 'turns' answer (multi-turn P) agrees turn by turn (the share of
  its human turns labelled as on real audio).

Every share has a 95 % interval from resampling whole items (`stats/itemboot.py`).

**The flag "answers without audio"** fires for a cell when agreement's item-level 95 % lower
bound exceeds `AGREEMENT_BAR` = ¾. Why ¾: the branches of an item have opposite right answers
in every response order, and null audio is the same for both branches (silence exactly; noise
carries no emotion), so a judge that answers from the audio gives the two branches different
real answers and its one null answer can agree with at most one of them: agreement is ½
whatever its skill. In general agreement = ½ + ½·c, where c is the share of branch pairs whose
real answers are identical *and* equal to the null answer — pairs answered without using the
audio. A judge that never got the audio (a dropped clip, a blind endpoint) or never uses it has
c ≈ 1 and agreement ≈ 1. The bar ¾ is c > ½: most of the judge's real answers are what it says
to silence. A position habit alone raises agreement too (a hearing judge picking R1 with
probability p, on null audio too, agrees p² + (1 − p)²), and stays under the bar up to
p ≈ 0.85, where accuracy can be no higher than 65 %. Tested against simulated judges over
skill, noise, position habit and deaf share (`tests/stats/test_null_audio.py`).
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from paraudit.stats.bootstrap import DEFAULT_B
from paraudit.stats.itemboot import Sheet
from paraudit.stats.model import Behaviour, Estimate
from paraudit.stats.units import Row
from paraudit.stats.verdict_text import null_audio_text

AGREEMENT_BAR = 0.75
"""Agreement's 95 % lower bound above which a cell flags "answers without audio"."""
ASKS = ("P", "J")
KINDS = ("silence", "noise")

Key = tuple[str, str, str, str, int | None]
"""(item, asked probe, cue, order, branch): an N row's real twin."""


def _twin(r: Row, probe: str) -> Key:
    return (r.item_id, probe, r.cue, r.order, r.branch)


def _agree(null_pred: Any, real_pred: Any) -> float:
    """1/0 for a choice; for a 'turns' dict, the share of turns labelled alike."""
    if isinstance(real_pred, dict) and isinstance(null_pred, dict):
        keys = list(real_pred)
        return sum(null_pred.get(k) == real_pred[k] for k in keys) / len(keys) if keys else 0.0
    return float(null_pred == real_pred)


def null_audio_cells(
    judge: str,
    task: str,
    null_rows: list[Row],
    rows: Iterable[Row],
    *,
    replicates: int = DEFAULT_B,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """The section's records for one judge × task: `null_rows` are its N rows, `rows` all of
    its rows (read once more, for the real twins' answers)."""
    if not null_rows:
        return []
    wanted = {_twin(r, str(r.asks)) for r in null_rows}
    real: dict[Key, Any] = {}
    for r in rows:
        key = real_key(r)
        if key is not None and key in wanted:
            real[key] = r.pred
    return null_cells_of(judge, task, null_rows, real, replicates=replicates, seed=seed)


def real_key(r: Row) -> Key | None:
    """The twin key of a real-audio answer an N row may be compared with, else None."""
    if r.probe in ASKS and r.protocol == "pointwise" and r.status == "ok":
        return _twin(r, r.probe)
    return None


_STATUSES = {"no-audio": "no_audio_replies", "unparsed": "unparsed", "refused": "refused"}
_UNPARSED = object()
"""An N row's answer when it gave none (not ok): agrees with nothing."""


class NullTally:
    """Probe N counted row by row: per cell (asked probe, null kind) its outcome counts and
    per item [confident, no-audio, answered] as the N rows come. Agreement needs the real twin's
    answer, which may come before or after the N row: each answered N row leaves only its cell
    (a small int), its twin key (one tuple per question, shared by its null kinds and its real
    answer) and its answer when parsed — no row is kept — paired with the real answers in
    `records`, in the N rows' order (the sums are those of a pass over the rows).
    `real` is the real answers gathered (twin key → pred; `real_key`)."""

    def __init__(self, real: dict[Key, Any] | None = None) -> None:
        self.real: dict[Key, Any] = {} if real is None else real
        self.items: set[str] = set()
        self.tallies: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(dict)
        """cell → item → [confident, no-audio, answered, agree, pairs]"""
        self.counts: dict[tuple[str, str], dict[str, int]] = defaultdict(
            lambda: {"answers": 0, "no_audio_replies": 0, "unparsed": 0, "refused": 0, "errors": 0}
        )
        self._cells: dict[tuple[str, str], int] = {}
        self._keys: dict[Key, Key] = {}
        """Each twin key once (N rows of both null kinds and the real answer share it)."""
        self.asked_cell = array("I")
        self.asked_key: list[Key] = []
        self.asked_pred: list[Any] = []
        """Per answered N row, in order: its cell's index, twin key, answer (`_UNPARSED` when
        it gave none)."""

    def add_null(self, r: Row) -> None:
        """Count one N row."""
        self.items.add(r.item_id)
        cell = (str(r.asks), str(r.null))
        c = self.counts[cell]
        status = r.status
        if status == "error":
            c["errors"] += 1
            return
        c["answers"] += 1
        named = _STATUSES.get(status)
        if named is not None:
            c[named] += 1
        t = self.tallies[cell].setdefault(r.item_id, [0.0] * 5)
        t[0] += status == "ok"
        t[1] += status == "no-audio"
        t[2] += 1
        key = _twin(r, cell[0])
        self.asked_cell.append(self._cells.setdefault(cell, len(self._cells)))
        self.asked_key.append(self._keys.setdefault(key, key))
        self.asked_pred.append(r.pred if status == "ok" else _UNPARSED)

    def add_real(self, r: Row) -> None:
        """Keep a real-audio answer an N row may be compared with."""
        key = real_key(r)
        if key is not None:
            self.real[self._keys.setdefault(key, key)] = r.pred

    def records(
        self, judge: str, task: str, *, replicates: int = DEFAULT_B, seed: int = 0
    ) -> list[dict[str, Any]]:
        """The section's records (none without N rows)."""
        if not self.items:
            return []
        real, tallies = self.real, self.tallies
        cells = list(self._cells)
        for at, key, pred in zip(self.asked_cell, self.asked_key, self.asked_pred, strict=True):
            if key in real:
                t = tallies[cells[at]][key[0]]
                t[4] += 1
                t[3] += _agree(pred, real[key]) if pred is not _UNPARSED else 0.0
        sheet = Sheet(self.items)
        asked: list[tuple[dict[str, Any], str, int]] = []
        out: list[dict[str, Any]] = []
        order = {k: i for i, k in enumerate(ASKS + KINDS)}
        counts = self.counts
        for cell in sorted(counts, key=lambda c: (order.get(c[0], 9), order.get(c[1], 9), c)):
            per_item = tallies.get(cell, {})
            col = [sheet.column({i: v[j] for i, v in per_item.items()}) for j in range(5)]
            rec: dict[str, Any] = {"judge": judge, "task": task, "asks": cell[0], "null": cell[1]}
            rec.update(counts[cell])
            rec["pairs"] = int(sum(v[4] for v in per_item.values()))
            asked += [(rec, "confident", sheet.ratio(col[0], col[2]))]
            asked += [(rec, "no_audio", sheet.ratio(col[1], col[2]))]
            asked += [(rec, "agreement", sheet.ratio(col[3], col[4]))]
            out.append(rec)
        estimates = sheet.evaluate(replicates, seed)
        for rec, name, handle in asked:
            rec[name] = estimates[handle].as_dict()
        for rec in out:
            low = rec["agreement"]["ci_low"]
            rec["answers_without_audio"] = low is not None and low > AGREEMENT_BAR
        return out


def null_cells_of(
    judge: str,
    task: str,
    null_rows: list[Row],
    real: dict[Key, Any],
    *,
    replicates: int = DEFAULT_B,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """null_audio_cells from the real answers already gathered (twin key → pred; keys no N row
    asks about are ignored)."""
    tally = NullTally(real)
    for r in null_rows:
        tally.add_null(r)
    return tally.records(judge, task, replicates=replicates, seed=seed)


def _est(d: dict[str, Any]) -> Estimate:
    return Estimate(rate=d.get("rate"), ci_low=d.get("ci_low"), ci_high=d.get("ci_high"),
                    items=int(d.get("items") or 0))  # fmt: skip


def null_behaviour(cells: list[dict[str, Any]]) -> Behaviour | None:
    """The verdict's "answers without audio" behaviour when any cell is flagged (its evidence:
    the flagged cell with the highest agreement)."""
    flagged = [c for c in cells if c.get("answers_without_audio")]
    if not flagged:
        return None
    top = max(flagged, key=lambda c: c["agreement"]["rate"] or 0.0)
    return Behaviour(kind="answers without audio", text=null_audio_text(flagged),
                     evidence=_est(top["agreement"]),
                     probes=sorted({c["asks"] for c in flagged}))  # fmt: skip


__all__ = [
    "AGREEMENT_BAR",
    "NullTally",
    "null_audio_cells",
    "null_behaviour",
    "null_cells_of",
    "real_key",
]
