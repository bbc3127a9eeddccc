"""The series figure: per checkpoint, J accuracy (pointwise and pairwise, no cue) with its
item-level 95 % interval, and the state-group masses at cue none with theirs."""

from __future__ import annotations

from pathlib import Path

from paraudit.report.figures import _plt, _save
from paraudit.stats.series import Series
from paraudit.stats.states import GROUP_COLOURS
from paraudit.stats.summary_model import Share


def _bars(points: list[tuple[int, Share]]) -> tuple[list[int], list[float], list[list[float]]]:
    """x, y and asymmetric error bars of the points that have a rate."""
    xs, ys, lo, hi = [], [], [], []
    for x, e in points:
        if e.rate is None:
            continue
        xs.append(x)
        ys.append(e.rate)
        lo.append(e.rate - (e.ci_low if e.ci_low is not None else e.rate))
        hi.append((e.ci_high if e.ci_high is not None else e.rate) - e.rate)
    return xs, ys, [lo, hi]


def series_figure(s: Series, out: Path, judge: str, task: str, name: str = "series") -> str:
    """Writes NAME.png / NAME.svg under `out` for one judge × task; returns the SVG text."""
    plt = _plt()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    xs = list(range(len(s.labels)))
    cells = [next((f for f in run if f.judge == judge and f.task == task), None)
             for run in s.figures]  # fmt: skip
    for protocol, marker in (("pointwise", "o"), ("pairwise", "s")):
        got = [(x, getattr(c, f"j_{protocol}")) for x, c in zip(xs, cells, strict=True) if c]
        px, py, err = _bars([(x, e) for x, e in got if e is not None])
        if px:
            ax1.errorbar(px, py, yerr=err, marker=marker, capsize=3, label=f"J {protocol}")
    ax1.axhline(0.5, color="#999", lw=0.8, ls="--", label="deaf guesser (½)")
    ax1.set_ylim(0, 1.02)
    ax1.set_ylabel("accuracy (no cue)")
    ax1.set_title(f"J accuracy, {s.items} shared items")
    ax1.legend(loc="lower left")
    for g, colour in GROUP_COLOURS.items():
        px, py, err = _bars(
            [(x, c.groups[g]) for x, c in zip(xs, cells, strict=True) if c and g in c.groups]
        )
        if px:
            ax2.errorbar(px, py, yerr=err, color=colour, marker="o", capsize=3, label=g)
    ax2.set_ylim(0, 1.02)
    ax2.set_ylabel("state-group mass (cue none)")
    ax2.set_title("(P, O, J) states")
    ax2.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=10)
    for ax in (ax1, ax2):
        ax.set_xticks(xs)
        ax.set_xticklabels(s.labels, rotation=20, ha="right")
    fig.suptitle(f"{judge} · {task}: item-level 95 % intervals")
    fig.tight_layout()
    return _save(fig, out, name)
