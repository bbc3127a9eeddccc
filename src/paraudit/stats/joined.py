"""The same judge audited with its clips separate and joined (`?clips=joined`), side by side.

Joining is a harness option (judges.joining): the model gets one clip with spoken markers instead
of several. Whether that matters is a comparison of two audits of one judge on the same items,
so it uses `paraudit compare`'s shared-item statistics (stats.compare): per task and protocol,
each (item, branch, cue) unit is scored order-consistently under both, and the difference in J
accuracy gets a paired bootstrap interval over whole items and an exact sign test on the items
that differ.

The rule (`changes`): joining changes a cell's J when the sign test's p is below
`ALPHA` / the number of cells compared (Bonferroni over the cells one comparison shows). A 95 %
interval excluding 0 in any of four cells would name a change for about one guessing judge in
five (its coins re-drawn by the new prompt), so the interval is shown and the corrected test
decides. The (P, O, J) state masses are compared on the items both audits hold states for
(compare.state_shift), as a point estimate: the largest shift is named, never decided on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from paraudit.stats.units import Row

JOINED = "clips=joined"
ALPHA = 0.05
"""Family-wise error of one separate-vs-joined comparison (split over its cells)."""


def separate_label(label: str) -> str | None:
    """The label of the same judge with its clips separate (None: `label` is not joined).
    Options in a label are sorted, so removing `clips=joined` leaves the other judge's label."""
    head, _, opts = label.partition("?")
    parts = opts.split("&") if opts else []
    if JOINED not in parts:
        return None
    rest = [p for p in parts if p != JOINED]
    return head + ("?" + "&".join(rest) if rest else "")


def joined_pairs(judges: Iterable[str]) -> list[tuple[str, str]]:
    """(separate, joined) for every joined judge whose separate twin is also in the runs (as
    written, or with `clips=separate` spelled out)."""
    names = set(judges)
    out = []
    for j in sorted(names):
        base = separate_label(j)
        if base is None:
            continue
        # The one key "clips" sorts the same whatever its value.
        spelled = j.replace(JOINED, "clips=separate")
        twin = next((b for b in (base, spelled) if b in names), None)
        if twin is not None:
            out.append((twin, j))
    return out


def _largest_shift(shift: dict[str, Any]) -> dict[str, Any]:
    moved = shift.get("shift") or {}
    if not moved:
        return {"state": None, "shift": None, "shared_items": shift.get("shared_items", 0),
                "refused": shift.get("refused")}  # fmt: skip
    state = max(moved, key=lambda s: abs(moved[s]))
    return {"state": state, "shift": moved[state], "shared_items": shift["shared_items"]}


def side_by_side(
    rows: Iterable[Row], *, replicates: int = 10_000, seed: int = 0
) -> list[dict[str, Any]]:
    """One record per (judge pair, task): J per protocol both ways (order-consistent units on
    shared items, Δ joined − separate with its 95 % interval, sign-test p, `changes`), and
    the largest (P, O, J) state-mass shift."""
    # Imported here: stats.compare needs all of scipy.stats, which a summary whose runs hold
    # no joined pair (the registry asks joined_pairs first) should not pay for.
    from paraudit.stats.compare import consistent_units, item_test, state_shift

    by_task: dict[str, list[Row]] = defaultdict(list)
    judges: set[str] = set()
    for r in rows:
        by_task[r.task].append(r)
        judges.add(r.judge)
    pairs = joined_pairs(judges)
    out: list[dict[str, Any]] = []
    for sep, joined in pairs:
        cells: list[dict[str, Any]] = []
        for task in sorted(by_task):
            task_rows = [r for r in by_task[task] if r.judge in (sep, joined)]
            ua, ub = consistent_units(task_rows, sep), consistent_units(task_rows, joined)
            j = []
            for protocol in ("pointwise", "pairwise"):
                key = ("J", protocol)
                if key in ua and key in ub:
                    test = item_test(ua[key], ub[key], replicates, seed)
                    j.append({"protocol": protocol, **test})
            if j:
                shift = _largest_shift(state_shift(task_rows, task_rows, sep, joined))
                cells.append({"task": task, "j": j, "states": shift})
        m = sum(len(c["j"]) for c in cells)
        for c in cells:
            for t in c["j"]:
                t["changes"] = bool(t["items"]) and t["p_value"] < ALPHA / max(m, 1)
            out.append({"separate": sep, "joined": joined, **c})
    return out


def _pp(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "–"
    return f"{100 * x:+.1f}" if signed else f"{100 * x:.1f}%"


def _short(task: str) -> str:
    """'single-turn-emotions' → 'single-turn', 'positional-emotion' → 'positional'."""
    return task.rsplit("-", 1)[0] if "-" in task else task


def summary_lines(records: list[dict[str, Any]]) -> list[str]:
    """The comparison in a few lines of at most 80 columns (the demo prints them)."""
    lines: list[str] = []
    for sep in dict.fromkeys(r["separate"] for r in records):
        mine = [r for r in records if r["separate"] == sep]
        lines.append(f"clips separate → joined, {sep} (order-consistent J, Δ, 95 % CI):")
        for r in mine:
            for t in r["j"]:
                lines.append(
                    f"  {_short(r['task']):<12}{t['protocol']:<10}{_pp(t['accuracy_a']):>6} → "
                    f"{_pp(t['accuracy_b']):>6}  Δ {_pp(t['delta'], True)} pp "
                    f"[{_pp(t['ci_low'], True)}, {_pp(t['ci_high'], True)}], {t['items']} items"
                )
        changed = [f"{_short(r['task'])} {t['protocol']}" for r in mine for t in r["j"]
                   if t["changes"]]  # fmt: skip
        shifts = [r["states"] for r in mine if r["states"]["shift"] is not None]
        big = max(shifts, key=lambda s: abs(s["shift"]), default=None)
        if big is None:
            moved = "states not compared"
        elif abs(big["shift"]) < 5e-4:
            moved = "(P, O, J) states unchanged"
        else:
            moved = f"largest state shift {big['state']} {_pp(big['shift'], True)} pp"
        verdict = "joining changes J (" + ", ".join(changed) + ")" if changed else "no change in J"
        lines.append(f"  {verdict} (sign test, Bonferroni); {moved}")
    return lines


__all__ = ["ALPHA", "joined_pairs", "separate_label", "side_by_side", "summary_lines"]
