"""Each cascade step's settled decision, the steps the diagnosis may still read, and which
cells of the plan stay open (the rule is stated in stats/sequential.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from paraudit.stats.sequential import (
    BATCH,
    CHANCE,
    CURTAIL_SLACK,
    FAILED,
    MARGIN,
    MIN_ITEMS,
    RELIABLE_LOW,
    Z95,
    Bounds,
    Cell,
    bounds_at,
    full_bounds,
    item_scores,
    native_cue,
)
from paraudit.stats.sequential_dependence import PREFIX, REPORTED, decide
from paraudit.stats.units import Row

CHANCE_PATH = ("recoverable", "cue", "position", "order", "audio", "jt", "turns")
"""What the diagnosis reads, in its order, once native is at or below chance
(verdicts._diagnosis); the components come last."""
MODELLED = ("J", "P", "O", "T")
"""Probes the rule reads; the others (N, S) are asked while any modelled cell is."""


def level(b: Bounds | None, margin: float = MARGIN) -> str | None:
    """'above' / 'below' chance, 'at' (within chance ± margin), or None (not settled)."""
    if b is None or b.items == 0:
        return None
    if b.low > CHANCE:
        return "above"
    if b.high < CHANCE:
        return "below"
    if b.low95 > CHANCE - margin and b.high95 < CHANCE + margin:
        # Not while the report, reading these items, would call it above or below chance.
        return None if b.claims("above", CHANCE) or b.claims("below", CHANCE) else "at"
    return None


def _above_or_futile(a: Bounds | None, gain: Bounds | None) -> str | None:
    """yes: a above chance and gain above 0; no: either can no longer be MARGIN above."""
    if a is None or gain is None or a.items == 0 or gain.items == 0:
        return "no" if a is None or gain is None else None
    if a.low > CHANCE and gain.low > 0:
        return "yes"
    if a.claims("above", CHANCE) and gain.claims("above", 0.0, Z95):
        return None  # the report would still say yes on these items: keep drawing
    if a.high95 < CHANCE + MARGIN or gain.high95 < MARGIN:
        return "no"
    return None


def _band(b: Bounds | None, yes: bool, no: bool, claimed: bool = False) -> str | None:
    """yes / no by the sequences; never "no" while the report would claim it (`claimed`)."""
    if b is None or b.items == 0:
        return "no" if b is None else None
    return "yes" if yes else "no" if no and not claimed else None


def _claimed_far(b: Bounds | None, centre: float, distance: float) -> bool:
    """The report's reading of a behaviour: the estimate `distance` or more from `centre`
    and its fixed-sample 95 % interval excluding `centre` (verdicts.position_direction). The
    report reads the order gap by its 99 % decision interval (widened on few items): reading
    it at 95 % here claims it more often than the report does, which only keeps a cell asking
    longer, never stops one early."""
    return bool(
        b is not None
        and b.mean is not None
        and abs(b.mean - centre) >= distance
        and (b.claims("above", centre, Z95) or b.claims("below", centre, Z95))
    )


def decisions(
    b: dict[str, Bounds], cue: str, cued: Sequence[str], planned: int | None = None
) -> dict[str, str | None]:
    """Every step's settled outcome (None: not yet), from the statistics' bounds now;
    `planned`: the task's items in the full plan (None: unknown, no curtailment)."""
    d: dict[str, str | None] = {}
    j = b.get(f"J|pointwise|{cue}")
    lv = level(j)
    if j is not None and j.items and j.low95 >= RELIABLE_LOW:
        d["native"] = "reliable"
    elif (
        lv == "above"
        and j is not None
        and (j.high95 < RELIABLE_LOW or _curtailed(j, planned, b.get(FAILED)))
    ):
        d["native"] = "usable"
    else:
        d["native"] = {"below": "below chance", "at": "at chance"}.get(lv or "")
    d["recoverable"] = _above_or_futile(b.get(f"J|pairwise|{cue}"), b.get("gap"))
    per = [_above_or_futile(b.get(f"J|pointwise|{c}"), b.get(f"cue|{c}")) for c in cued]
    if cue != "none" or not per:
        d["cue"] = "no"
    else:
        d["cue"] = "yes" if "yes" in per else "no" if all(p == "no" for p in per) else None
    f = b.get("first")
    # A behaviour is claimed and ruled out at 95 %, as most of the cascade's behaviours are
    # decided (verdicts.position_direction and the others read the 95 % intervals; the order
    # gap and the turns decide "heard" at 99 %, so 95 % here is the conservative side).
    d["position"] = _band(f, bool(f and (f.low95 >= 0.9 or f.high95 <= 0.1)),
                          bool(f and 0.1 < f.low95 and f.high95 < 0.9),
                          _claimed_far(f, CHANCE, 0.4))  # fmt: skip
    o = b.get("order")
    d["order"] = _band(o, bool(o and (o.low95 >= 0.3 or o.high95 <= -0.3)),
                       bool(o and -0.3 < o.low95 and o.high95 < 0.3),
                       _claimed_far(o, 0.0, 0.3))  # fmt: skip
    a = b.get("audio")
    d["audio"] = _band(a, bool(a and a.high95 < 0.1), bool(a and a.low95 >= 0.1),
                       bool(a and a.claims("below", 0.1, Z95)))  # fmt: skip
    jt = b.get("jt")
    d["jt"] = _band(jt, bool(jt and jt.low95 >= 0.75), bool(jt and jt.high95 < 0.75),
                    bool(jt and jt.mean is not None and jt.mean >= 0.75
                         and jt.claims("above", CHANCE, Z95)))  # fmt: skip
    d["turns"] = _turns([b[k] for k in b if k.startswith("turn|")])
    for probe in "PO":
        p = b.get(f"{probe}|pointwise|{cue}")
        d[probe] = "not run" if p is None else level(p)
    # "yes" reads each group's 99 % sequence (the union over the five groups keeps 95 %), "no"
    # each group's 95 % one: only a group at MARGIN or more can make "no" wrong, alone.
    dep = [b[k] for k in b if k.startswith(PREFIX) and b[k].items]
    read = [b[k].mean for k in b if k.startswith(REPORTED) and b[k].items]
    d["dependence"] = decide([x.low for x in dep], [x.high95 for x in dep],
                             read, MARGIN) if dep else None  # fmt: skip
    return d


def _curtailed(j: Bounds, planned: int | None, failed: Bounds | None = None) -> bool:
    """The full plan can no longer call native J reliable: even with every item not yet
    answered scoring 1, its 95 % lower bound stays CURTAIL_SLACK below the bar. Never while an
    item has a failed native J call (`failed`: FAILED's running count): the report pools J
    over answers, and only where every item has all its answers is that the mean of item
    means the bound is computed on (measured: with half the calls of hard items failed, the
    report said "reliable" where the rule had curtailed)."""
    if planned is None or (failed is not None and failed.mean):
        return False
    best = j.best_low(planned - j.items)
    return best is not None and best < RELIABLE_LOW - CURTAIL_SLACK


def _turns(turns: list[Bounds]) -> str | None:
    if not turns:
        return "no"
    heard = [t.low > CHANCE for t in turns]
    unheard = [t.high95 < CHANCE + MARGIN and not t.claims("above", CHANCE) for t in turns]
    if any(heard) and any(unheard):
        return "yes"
    if all(h or u for h, u in zip(heard, unheard, strict=True)):
        return "no"
    return None


def open_steps(d: dict[str, str | None]) -> set[str]:
    """The steps not yet settled whose outcome may still change the diagnosis."""
    need: set[str] = set()
    native = d["native"]
    if native is None:
        need.add("native")
    for branch in [native] if native else ["reliable", "usable", "at chance"]:
        if branch == "usable":
            need |= _usable(d)
        elif branch != "reliable":
            need |= _chance_path(d)
    return need


def _usable(d: dict[str, str | None]) -> set[str]:
    p, o = d["P"], d["O"]
    if any(v is not None and v != "above" for v in (p, o)):
        return set()  # a component does not work: no dependence test, nothing more to read
    if p == "above" and o == "above":
        return set() if d.get("dependence") else {"dependence"}
    return {"components"}


def _chance_path(d: dict[str, str | None]) -> set[str]:
    need: set[str] = set()
    for step in CHANCE_PATH:
        v = d[step]
        if v is None:
            need.add(step)
        elif v == "yes":
            return need  # the diagnosis is this step's (or an unsettled one's before it)
    if d["P"] is None or d["O"] is None:
        need.add("components")
    return need


def step_cells(step: str, cue: str, cells: Iterable[Cell]) -> set[Cell]:
    """The plan's cells a step reads."""
    cells = set(cells)
    jn = ("J", "pointwise", cue)
    want: set[Cell] = {
        "native": {jn},
        "recoverable": {jn, ("J", "pairwise", cue)},
        "cue": {jn} | {c for c in cells if c[:2] == ("J", "pointwise") and c[2] != "misleading"},
        "position": {jn},
        "order": {jn},
        "audio": {jn},
        "jt": {jn} | {c for c in cells if c[0] == "T"},
        "turns": {("P", "pointwise", cue)},
        # The pattern reads J beside P and O, and the dependence step that may follow needs
        # all three on the same items: J closing first left P and O without units.
        "components": {jn, ("P", "pointwise", cue), ("O", "pointwise", cue)},
        "dependence": {jn, ("P", "pointwise", cue), ("O", "pointwise", cue)},
    }[step]
    return want & cells


@dataclass
class CellStop:
    """When and why a cell stopped drawing questions."""

    items: int
    """Items of the task asked when it stopped (its last question is on the items-th)."""
    look: int
    why: str

    def as_dict(self) -> dict[str, object]:
        return {"items": self.items, "look": self.look, "why": self.why}


@dataclass
class Look:
    """One look's outcome for one judge × task."""

    decisions: dict[str, str | None]
    needed: set[str]
    open_cells: set[Cell]
    closed: dict[Cell, str] = field(default_factory=dict)
    """Cells closed at this look → why."""


def look(
    b: dict[str, Bounds],
    cue: str,
    cells: Sequence[Cell],
    items: int,
    still_open: set[Cell],
    min_items: int = MIN_ITEMS,
    planned: int | None = None,
) -> Look:
    """The decisions after `items` items and which of the still-open cells stay open;
    `planned`: the task's items in the full plan."""
    cued = sorted({c[2] for c in cells if c[:2] == ("J", "pointwise")} - {cue, "misleading"})
    d = decisions(b, cue, cued, planned)
    need = open_steps(d)
    needed = set().union(*(step_cells(s, cue, cells) for s in need)) if need else set()
    modelled = {c for c in cells if c[0] in MODELLED and c[2] != "misleading"}
    keep = {c for c in still_open & modelled if c in needed or items < min_items}
    if keep:  # the probes the rule does not model follow the modelled ones
        keep |= still_open - modelled
    closed = {c: _why(c, d, need, cue, cells) for c in still_open - keep}
    return Look(d, need, keep, closed)


def _why(
    cell: Cell, d: dict[str, str | None], need: set[str], cue: str, cells: Sequence[Cell]
) -> str:
    if not need:
        return f"every step the diagnosis reads is settled (native: {d['native']})"
    readers = [s for s in ("native", *CHANCE_PATH, "components", "dependence")
               if cell in step_cells(s, cue, cells)]  # fmt: skip
    if cell[0] not in MODELLED or cell[2] == "misleading":
        return "no modelled cell is open"
    if not readers:
        return "no step of the diagnosis reads it (asked on the minimum sample)"
    parts = {"components": ("P", "O"), "dependence": ("P", "O", "dependence")}
    shown = [p for s in readers for p in parts.get(s, (s,))]
    settled = ", ".join(f"{s}: {d.get(s) or 'not read'}" for s in dict.fromkeys(shown))
    return f"the steps that read it are settled or no longer read ({settled})"


@dataclass
class Replay:
    """A sequential audit replayed over a full audit's rows (the benchmark's and the dry
    run's estimate): which rows it would have asked and when each cell stopped."""

    rows: list[Row]
    stops: dict[Cell, CellStop]
    last: Look | None
    items: int
    """Items of the task the run asked before it stopped."""
    settled: dict[str, int] = field(default_factory=dict)
    """step → items at the look that settled it (steps never settled are absent)."""


def replay(
    rows: Sequence[Row], order: Sequence[str], batch: int = BATCH, min_items: int = MIN_ITEMS
) -> Replay:
    """Look after every `batch` items of `order` (one judge × task's asking order) at the
    statistics of the cells still open, as `paraudit run --sequential` does, and keep the rows
    each cell would have asked before it stopped."""
    cells = sorted({(r.probe, r.protocol, r.cue) for r in rows})
    cue = native_cue([c for p, proto, c in cells if p == "J" and proto == "pointwise"])
    if cue is None:
        return Replay(list(rows), {}, None, len(order))
    full = full_bounds(item_scores(rows, cue, order))
    still, stops, last, t, k = set(cells), {}, None, 0, 0
    settled: dict[str, int] = {}
    while still and t < len(order):
        t, k = min(t + batch, len(order)), k + 1
        last = look(bounds_at(full, t), cue, cells, t, still, min_items, len(order))
        stops.update({c: CellStop(t, k, why) for c, why in last.closed.items()})
        settled.update({s: t for s, v in last.decisions.items() if v and s not in settled})
        still = last.open_cells
    stops.update({c: CellStop(t, k, "plan exhausted") for c in still})
    pos = {item: i for i, item in enumerate(order)}
    kept = [r for r in rows if pos[r.item_id] < stops[(r.probe, r.protocol, r.cue)].items]
    return Replay(kept, stops, last, max(s.items for s in stops.values()), settled)
