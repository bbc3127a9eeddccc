"""Re-ask noise: how often the judge disagrees with itself on identical audio, the baseline every
flip statistic is read against, and how far one draw falls short of the majority it reports.

A judge asked N times per question (`?samples=N`, runner/samples.py) keeps every draw in its
row; `StatRow.reask` is (pairs of answered draws that disagree, pairs of answered draws) and
`StatRow.draw_hits` (draws right, draws replied to). `?samples=2` is the cheapest baseline: the
row's answer is then its first draw (ties go to the answer drawn first), so every other
statistic still reads single draws, and the re-ask rate is the chance two draws differ.

Per judge × task × probe × cue (pointwise, sampled rows only; intervals resample whole items):

- `reask`: disagreeing / all pairs of draws of one question — what "flips" a judge shows when
  *nothing* changes. A fixed judge (right or wrong, always the same answer): 0; fresh draws at
  accuracy a on a two-way choice: 2a(1 − a) (80 %: 32 %); a coin: 50 %.
- `single` (one draw's accuracy) beside `majority` (the row's answer, what every accuracy
  reports) and their paired difference majority − single.
- J only: `sensitivity` (how often the choice differs between the two branches, the audio
  sensitivity of the behaviour section, on majorities) and `sensitivity_minus_reask`: a choice
  that differs between branches no more than two asks of one branch do follows the draw, not
  the audio.

Rule (`one draw less accurate`): at the native cue (none, else the least cued that ran) the
paired difference's 95 % interval lies above 0 and the gap is at least `GAP` (5 points): the
verdict then says "one draw is right 80 % [..] of the time (majority of 5: 94 %)". Invariance
flip rates are read against the same `reask` (stats/invariance.py); the joined-clips comparison
is a sign test on discordant units, which re-ask noise alone leaves symmetric (its level holds:
tests/stats/test_reask.py).
Rule (`ignores the audio`, sampled judges whose two asks differ ≥ 10 %): the 95 % interval of
J's sensitivity − re-ask lies below `AUDIO_BEYOND_NOISE` (10 points): its choice moves between
the branches no more than noise explains, which the plain audio sensitivity misses (a coin's
is 50 %).

What an unskilled judge scores: a coin re-asked differs from itself half the time and its one
draw is as accurate as its majority (both ½); an always-R1 judge never differs (0), so a low
re-ask rate is not skill — it only says flips beyond it are not noise.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from operator import attrgetter
from typing import Any

from paraudit.stats.analysis import Analysis, GroupContext, Record
from paraudit.stats.itemboot import Sheet
from paraudit.stats.model import Behaviour, Estimate
from paraudit.stats.statrow import StatRow

GAP = 0.05
AUDIO_BEYOND_NOISE = 0.10
"""'ignores the audio beyond its own noise' when sensitivity − re-ask is shown below this."""
CUE_RANK = {"none": 0, "soft": 1, "transition": 2, "hard": 3}

_Cell = dict[str, list[float]]
"""item → [draws right, draws, majority right, rows, disagreeing pairs, pairs]"""


_HITS, _PAIRS = attrgetter("draw_hits"), attrgetter("reask")


class ReaskTally:
    """Per (probe, cue): per-item sums of one draw's and the majority's hits and of re-ask
    pairs; for J, each (cue, order, branch, item)'s majority choice (for the sensitivity)."""

    def __init__(self, judge: str, task: str) -> None:
        self.cells: dict[tuple[str, str], _Cell] = defaultdict(dict)
        self.choice: dict[tuple[str, str, int, str], str] = {}
        self.draws = 0

    def wants(self, probe: str, protocol: str, cue: str) -> bool:
        return protocol == "pointwise"

    def add(self, row: StatRow) -> None:
        self.add_rows((row,))

    def add_rows(self, rows: Sequence[StatRow]) -> None:
        # Unsampled rows (most runs) have neither: such a step is skipped in C.
        if not any(map(_HITS, rows)) and not any(map(_PAIRS, rows)):
            return
        for row in rows:
            hits, pairs = row.draw_hits, row.reask
            # Most rows were not sampled: they leave first (this runs on every row of a report).
            if hits is None and pairs is None:
                continue
            if row.protocol != "pointwise" or row.branch is None or row.status == "error":
                continue
            c = self.cells[(row.probe, row.cue)].setdefault(row.item_id, [0.0] * 6)
            if hits is not None:
                c[0] += hits[0]
                c[1] += hits[1]
                c[2] += row.correct
                c[3] += 1
                self.draws = max(self.draws, hits[1])
            if pairs is not None:
                c[4] += pairs[0]
                c[5] += pairs[1]
            if row.probe == "J" and row.status == "ok" and isinstance(row.pred, str):
                self.choice[(row.cue, row.order, row.branch, row.item_id)] = row.pred

    def records(self, ctx: GroupContext) -> list[Record]:
        if not self.cells:
            return []
        sheet = Sheet(i for cell in self.cells.values() for i in cell)
        asks: list[tuple[Record, str, int]] = []
        out: list[Record] = []
        moved: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        units: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        for (cue, order, branch, item), pred in self.choice.items():
            other = self.choice.get((cue, order, 1 - branch, item))
            if branch == 0 and other is not None:
                units[cue][item] += 1
                moved[cue][item] += pred != other
        for (probe, cue), cell in sorted(self.cells.items()):

            def col(k: int, cell: _Cell = cell) -> int:
                return sheet.column({i: v[k] for i, v in cell.items() if v[k]})

            single, majority = (col(0), col(1)), (col(2), col(3))
            reask = (col(4), col(5))
            rec: Record = {"judge": ctx.judge, "task": ctx.task, "probe": probe, "cue": cue,
                           "items": len(cell), "draws": self.draws,
                           "pairs": int(sum(v[5] for v in cell.values()))}  # fmt: skip
            asks += [
                (rec, "single", sheet.ratio(*single)),
                (rec, "majority", sheet.ratio(*majority)),
                (rec, "majority_minus_single",
                 sheet.difference(majority, single, len(cell))),
                (rec, "reask", sheet.ratio(*reask)),
            ]  # fmt: skip
            if probe == "J" and units.get(cue):
                s = (sheet.column(dict(moved[cue])), sheet.column(dict(units[cue])))
                asks += [
                    (rec, "sensitivity", sheet.ratio(*s)),
                    (rec, "sensitivity_minus_reask", sheet.difference(*sheet.paired(s, reask))),
                ]
            out.append(rec)
        est = sheet.evaluate(ctx.replicates, ctx.seed)
        for target, key, handle in asks:
            target[key] = dict(est[handle].as_dict())
        return out


def _estimate(e: dict[str, Any]) -> Estimate:
    return Estimate(**{k: e.get(k) for k in ("rate", "ci_low", "ci_high")},
                    items=int(e.get("items") or 0))  # fmt: skip


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}"


def native(records: Sequence[Record], probe: str = "J") -> Record | None:
    """The record of `probe` at the native cue (none, else the least cued that ran)."""
    mine = [r for r in records if r["probe"] == probe and r["cue"] in CUE_RANK]
    return min(mine, key=lambda r: CUE_RANK[r["cue"]], default=None)


def single_draw_text(r: Record) -> str:
    s, m = r["single"], r["majority"]
    return (f"one draw is right {_pct(s['rate'])} % [{_pct(s['ci_low'])}, {_pct(s['ci_high'])}] "
            f"of the time (majority of {r['draws']}: {_pct(m['rate'])} %; two draws of one "
            f"question differ {_pct(r['reask']['rate'])} %)")  # fmt: skip


def reask_behaviours(records: Sequence[Record], ctx: GroupContext) -> list[Behaviour]:
    r = native(records)
    if r is None:
        return []
    out = []
    d = r["majority_minus_single"]
    if d.get("ci_low") is not None and d["ci_low"] > 0 and (d.get("rate") or 0.0) >= GAP:
        out.append(Behaviour(kind="one draw less accurate", text=single_draw_text(r),
                             evidence=_estimate(r["single"]), probes=["J"]))  # fmt: skip
    beyond, noise = r.get("sensitivity_minus_reask"), r["reask"]
    high = beyond.get("ci_high") if beyond else None
    if beyond and high is not None and high < AUDIO_BEYOND_NOISE and (noise["rate"] or 0) >= 0.1:
        # A choice that moves between the branches no more than between two asks of one
        # branch follows the draw: a noisy deaf judge, which the plain audio sensitivity
        # (high because of the noise) would not call deaf.
        sens = r["sensitivity"]
        out.append(Behaviour(kind="ignores the audio", evidence=_estimate(beyond), probes=["J"],
                             text=f"ignores the audio beyond its own noise (its choice differs "
                                  f"between branches {_pct(sens['rate'])} % of the time, two "
                                  f"asks of one branch {_pct(noise['rate'])} %)"))  # fmt: skip
    return out


REASK = Analysis(
    name="reask",
    title="Re-ask noise",
    start=ReaskTally,
    behaviours=reask_behaviours,
    report="paraudit.report.samples:registered_reask_part",
)

__all__ = ["GAP", "REASK", "ReaskTally", "native", "reask_behaviours", "single_draw_text"]
