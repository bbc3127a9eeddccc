"""Invariance audit statistics, from the stored rows of a run on an invariance set
(builders/invariance.py): does the judge keep its J choice when only an irrelevant property of
the audio changes, and does it change it when the relevant cue (the emotion) changes?

Per judge × task, from pointwise J answers only (all a twin is asked), pairing answers of the
same cue, response order and branch:

- **flip rate** of change C: the share of (original, twin) answer pairs whose choice differs,
  both answers parsed. A judge that re-reads the same emotion keeps its choice: 0.
- **sensitivity**: on the originals, the share of (item, cue, order) whose J answer differs
  between the two branches — how often the choice follows the relevant change. A judge that
  hears the emotion: near 1 (pointwise gold differs between branches).
- Intervals: 95 % from resampling whole original items (an item's twins and branches stay
  together; stats/itemboot.py); the difference sensitivity − flip rate is paired on the items
  having both.

Rules (tested by simulation over a family of judges in tests/stats/test_invariance.py):

- "flips on C changes" when the flip rate's 95 % interval lies above FLIP_FLOOR (10 %): the judge
  flips on that change in a share of answers no rounding of a near-invariant judge explains.
- "not discriminating" when it flips on C (the interval's lower end above 0) and its
  sensitivity is not above that flip rate (the paired difference's interval reaches 0): it
  changes its choice as often when nothing relevant changes as when the emotion does. A judge
  that never flips (always the first option, deaf) is not flagged here — it is invariant; its
  deafness is the audio-sensitivity verdict's business. A random judge flips half the time on
  every change and is flagged, as it should be.
- Neither flag below MIN_ITEMS (10) original items with twins of that change.
- Re-ask noise: where the judge was sampled (`?samples=N`), the share of pairs of its draws
  on one identical question that differ (`StatRow.reask`, stats/reask.py) is the flip rate
  pure noise gives, and either flag then also needs the paired difference flip rate − re-ask
  rate (on the items having both) to have its 95 % interval above 0: a judge whose answers
  are fresh draws at 80 % "flips" 32 % on every change and on none. Without draws there is no
  baseline (`reask` None) and the record says so; `?samples=2` gives one at twice the calls.
- per-voice accuracy (fairness): pointwise J accuracy on each voice twin and, on the same
  items, on the original voice; speaker twins (another voice rendered by `build starter
  --voices`) and recording conditions (telephone, reverb) get a row each too, so "does it still
  hear the contrast in another voice, or on a phone line?" reads off one table.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from paraudit.items.twins import MARK, change_of, split_twin
from paraudit.stats.analysis import GroupContext
from paraudit.stats.bootstrap import DEFAULT_B
from paraudit.stats.itemboot import Estimate, Sheet
from paraudit.stats.units import Row, branch_of

FLIP_FLOOR = 0.10
MIN_ITEMS = 10
"""Neither flag is raised on fewer original items: a bootstrap over a handful of items gives
intervals of a few distinct values (one item: a point), which would flag by accident."""
ORIGINAL_VOICE = "original"
ACCURACY_CHANGES = ("voice", "speaker", "telephone", "reverb")
"""Changes whose twins get an accuracy row beside the original's (the others: flips only)."""

Key = tuple[str, str, int]
"""(cue, order, branch) of a pointwise J answer."""


def is_twin_row(row: Row) -> bool:
    return MARK in row.item_id


def _j_pointwise(row: Row) -> bool:
    return row.probe == "J" and row.protocol == "pointwise" and row.branch is not None


class _Tally:
    """The J pointwise answers of one judge × task: originals and twins, keyed for pairing."""

    def __init__(self) -> None:
        self.orig: dict[str, dict[Key, str | None]] = defaultdict(dict)
        self.twins: dict[str, dict[str, dict[Key, str | None]]] = defaultdict(
            lambda: defaultdict(dict)
        )
        # (voice, item) → [correct, answered] for the per-voice table
        self.voice: dict[str, dict[str, list[int]]] = defaultdict(
            lambda: defaultdict(lambda: [0, 0])
        )
        # original item → [disagreeing draw pairs, draw pairs] of sampled answers (re-asks)
        self.reask: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])

    def add(self, r: Row) -> None:
        if not _j_pointwise(r) or r.status == "error":
            return
        pred = r.pred if r.status == "ok" and isinstance(r.pred, str) else None
        key: Key = (r.cue, r.order, branch_of(r))
        twin = split_twin(r.item_id)
        if r.reask is not None:
            noise = self.reask[twin[0] if twin else r.item_id]
            noise[0] += r.reask[0]
            noise[1] += r.reask[1]
        if twin is None:
            item, voice = r.item_id, ORIGINAL_VOICE
            self.orig[item][key] = pred
        else:
            item, variant = twin
            self.twins[variant][item][key] = pred
            voice = variant if change_of(variant) in ACCURACY_CHANGES else ""
        if voice:
            cell = self.voice[voice][item]
            cell[0] += bool(r.correct)
            cell[1] += 1


def _flips(tally: _Tally, variants: list[str]) -> tuple[dict[str, float], dict[str, float]]:
    flips: dict[str, float] = defaultdict(float)
    pairs: dict[str, float] = defaultdict(float)
    for v in variants:
        for item, answers in tally.twins[v].items():
            base = tally.orig.get(item, {})
            for key, pred in answers.items():
                other = base.get(key)
                if pred is None or other is None:
                    continue
                pairs[item] += 1
                flips[item] += pred != other
    return dict(flips), dict(pairs)


def _sensitivity(tally: _Tally) -> tuple[dict[str, float], dict[str, float]]:
    moved: dict[str, float] = defaultdict(float)
    units: dict[str, float] = defaultdict(float)
    for item, answers in tally.orig.items():
        for (cue, order, branch), pred in answers.items():
            other = answers.get((cue, order, 1 - branch))
            if branch != 0 or pred is None or other is None:
                continue
            units[item] += 1
            moved[item] += pred != other
    return dict(moved), dict(units)


def _est(e: Estimate) -> dict[str, Any]:
    return dict(e.as_dict())


def _group(
    judge: str, task: str, tally: _Tally, replicates: int, seed: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    items = set(tally.orig) | {i for v in tally.twins.values() for i in v}
    sheet = Sheet(items)
    moved, units = _sensitivity(tally)
    s_num, s_den = sheet.column(moved), sheet.column(units)
    sens = sheet.ratio(s_num, s_den)
    by_change: dict[str, list[str]] = defaultdict(list)
    for v in sorted(tally.twins):
        by_change[change_of(v)].append(v)
    r_num = sheet.column({i: c[0] for i, c in tally.reask.items() if c[0]})
    r_den = sheet.column({i: c[1] for i, c in tally.reask.items()})
    reask = sheet.ratio(r_num, r_den) if tally.reask else None
    asked: list[tuple[str, tuple[str, ...], int, int, int, int, int | None]] = []
    for change, variants in sorted(by_change.items()):
        for name, vs in [(change, variants)] + [(v, [v]) for v in variants if len(variants) > 1]:
            flips, pairs = _flips(tally, vs)
            f_num, f_den = sheet.column(flips), sheet.column(pairs)
            diff = sheet.difference(*sheet.paired((s_num, s_den), (f_num, f_den)))
            n_pairs = int(sum(pairs.values()))
            n_flips = int(sum(flips.values()))
            beyond = None
            if reask is not None:
                beyond = sheet.difference(*sheet.paired((f_num, f_den), (r_num, r_den)))
            asked.append(
                (name, tuple(vs), sheet.ratio(f_num, f_den), diff, n_pairs, n_flips, beyond)
            )
    voice_stats: list[tuple[str, int, int, int]] = []
    # The original voice on the items that have a voice twin only: QC drops some twins, and
    # accuracy on all originals against accuracy on the survivors would compare item sets.
    twinned = {i for v, cells in tally.voice.items() if v != ORIGINAL_VOICE for i in cells}
    for voice in sorted(tally.voice, key=lambda v: (v != ORIGINAL_VOICE, v)):
        cells = tally.voice[voice]
        if voice == ORIGINAL_VOICE:
            cells = {i: c for i, c in cells.items() if i in twinned}
            if not cells:
                continue
        correct = {i: float(c[0]) for i, c in cells.items() if c[0]}
        answered = {i: float(c[1]) for i, c in cells.items()}
        h = sheet.ratio(sheet.column(correct), sheet.column(answered))
        voice_stats.append(
            (voice, h, sum(c[1] for c in cells.values()), sum(c[0] for c in cells.values()))
        )
    est = sheet.evaluate(replicates, seed)
    sensitivity = est[sens]
    flips_out: list[dict[str, Any]] = []
    noise = est[reask] if reask is not None else None
    for name, names, h_flip, h_diff, n_pairs, n_flips, h_beyond in asked:
        f, d = est[h_flip], est[h_diff]
        b = est[h_beyond] if h_beyond is not None else None
        # Beyond the judge's own re-ask noise where it was measured (no baseline: as before).
        above_noise = b is None or (b.low is not None and b.low > 0)
        enough = f.items >= MIN_ITEMS and above_noise
        flips_on = enough and f.low is not None and f.low > FLIP_FLOOR
        # No sensitivity to compare with (no original answered in both branches) is no
        # evidence of discrimination either.
        not_disc = enough and f.low is not None and f.low > 0 and (d.low is None or d.low <= 0)
        flips_out.append(
            {
                "judge": judge,
                "task": task,
                "change": name,
                "variants": list(names),
                "pooled": name == change_of(names[0]),
                "pairs": n_pairs,
                "flipped": n_flips,
                "flip_rate": _est(f),
                "sensitivity": _est(sensitivity),
                "sensitivity_minus_flip": _est(d),
                "reask": _est(noise) if noise is not None else None,
                "flip_minus_reask": _est(b) if b is not None else None,
                "flips": bool(flips_on),
                "not_discriminating": bool(not_disc),
            }
        )
    voices_out = [
        {
            "judge": judge,
            "task": task,
            "voice": voice,
            "n": n,
            "correct": c,
            "accuracy": _est(est[h]),
        }
        for voice, h, n, c in voice_stats
    ]
    return flips_out, voices_out


class InvarianceTally:
    """The invariance unit's tally (stats/paired_units.py): the group's rows in its one pass,
    then its twins' rows (`GroupContext.inputs['invariance']`) when the records are asked."""

    reads_ties = True
    """The audit read every row of its judge × task, tie items too, before it was a unit."""

    def __init__(self, judge: str, task: str) -> None:
        self.tally = _Tally()
        self.voices: list[dict[str, Any]] = []

    def add(self, row: Row) -> None:
        self.tally.add(row)

    def records(self, ctx: GroupContext) -> list[dict[str, Any]]:
        """The flip records (none when the group has no twins); the per-voice accuracy
        becomes `companions()`."""
        for r in ctx.inputs.get("invariance") or ():
            self.tally.add(r)
        if not self.tally.twins:
            return []
        flips, self.voices = _group(ctx.judge, ctx.task, self.tally, ctx.replicates, ctx.seed)
        return flips

    def companions(self) -> dict[str, list[dict[str, Any]]]:
        return {"invariance_voices": self.voices}


def invariance_sections(
    groups: Iterable[tuple[str, str, Iterable[Row]]],
    *,
    replicates: int = DEFAULT_B,
    seed: int = 0,
) -> dict[str, list[dict[str, Any]]]:
    """{'invariance': flip records, 'invariance_voices': per-voice accuracy} over the groups
    (each: judge, task, every row of that judge × task, originals and twins); groups without
    twins add nothing. (The summary runs the same tally as a registered unit.)"""
    out: dict[str, list[dict[str, Any]]] = {"invariance": [], "invariance_voices": []}
    for judge, task, rows in groups:
        tally = InvarianceTally(judge, task)
        for r in rows:
            tally.add(r)
        ctx = GroupContext(judge=judge, task=task, items=0, replicates=replicates, seed=seed)
        out["invariance"] += tally.records(ctx)
        out["invariance_voices"] += tally.voices
    return out
