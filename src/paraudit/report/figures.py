"""Figures (matplotlib, Agg): state distributions, heatmaps, accuracy with intervals.

Each figure is returned as SVG text (inlined into report.html, so it needs no network) and
also written as PNG and SVG files.
"""

from __future__ import annotations

import io
import logging
import re
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from paraudit.errors import MissingExtraError
from paraudit.report.labels import short_labels
from paraudit.stats.states import GROUP_COLOURS, GROUPS
from paraudit.stats.summary_model import Difference, Summary

MIN_FONT = 10


def _plt() -> Any:
    # Matplotlib's notices (an unwritable config/cache folder, missing fonts, layout and NaN
    # warnings) would leak onto stderr past the CLI's own lines; none is the user's to act on.
    logging.getLogger("matplotlib").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", module=r"(matplotlib|paraudit\.report\.figures)(\.|$)")
    try:
        import matplotlib
    except ImportError:
        raise MissingExtraError("the report's figures", "report", "matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # 10 units is the smallest text any figure has: report.html never draws a figure below one
    # SVG unit per pixel, so no text is under 10 px on any screen (a browser test reads it).
    plt.rcParams.update({"svg.fonttype": "none", "font.size": MIN_FONT})
    return plt


def _svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    return buf.getvalue()


def _tidy(svg: str) -> str:
    """An SVG file's text as report.html inlines it."""
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)  # creator/date, not needed
    return svg[svg.index("<svg") :]


def _inline(fig: Any) -> str:
    """The figure as SVG text for report.html."""
    return _tidy(_svg(fig))


def _files(fig: Any, out: Path, name: str) -> str:
    """The figure's PNG and SVG files; returns the SVG's text."""
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / f"{name}.png", dpi=130, bbox_inches="tight")
    svg = _svg(fig)
    (out / f"{name}.svg").write_text(svg, encoding="utf-8")
    return svg


def _save(fig: Any, out: Path, name: str) -> str:
    # The inlined SVG is the SVG file's text: drawing it once more cost a third of a figure.
    svg = _tidy(_files(fig, out, name))
    _plt().close(fig)
    return svg


def _labels(summary: Summary) -> dict[str, str]:
    """Judge → its short label (report/labels.py: unique, so two judges that differ only in
    e.g. temperature are never drawn as one; the page's legend gives the full spec)."""
    return short_labels(summary.judges or sorted({v.judge for v in summary.verdicts}))


def _at_chance(summary: Summary) -> set[tuple[str, str]]:
    return {(v.judge, v.task) for v in summary.verdicts if v.kind == "at chance"}


def state_bars(summary: Summary, out: Path) -> str | None:
    """Stacked bars of the state groups per judge, one panel per task, two panels a row. The
    judges' short labels leave each bar most of its panel (a browser test holds it ≥ 120 px
    at 1280 px); the legend is drawn by the page in HTML (it wraps on a phone), and into the
    PNG and SVG files under the panels."""
    rows = [s for s in summary.states if s.cue == "all"]
    if not rows:
        return None
    plt = _plt()
    chance = _at_chance(summary)
    short = _labels(summary)
    tasks = sorted({s.task for s in rows})
    ncols = min(2, len(tasks))
    nrows = -(-len(tasks) // ncols)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(6.8 * ncols, (0.45 * len(summary.judges) + 2.4) * nrows),
        squeeze=False,
    )  # fmt: skip
    for k, (ax, task) in enumerate(zip(axes.flat, tasks, strict=False)):
        rs = [s for s in rows if s.task == task]
        names = [
            f"{short.get(s.judge, s.judge)} (n={s.items})"
            + (" · at chance" if (s.judge, task) in chance else "")
            for s in rs
        ]
        ax.patch.set_gid(f"states-axes-{k}")
        left = np.zeros(len(rs))
        for gi, g in enumerate(GROUPS):
            vals = np.array([(s.groups[g].rate if g in s.groups else None) or 0.0 for s in rs])
            bars = ax.barh(names, vals, left=left, color=GROUP_COLOURS[g], label=g)
            for i, bar in enumerate(bars):
                bar.set_gid(f"states-bar-{k}-{i}-{gi}")
            left += vals
        ax.set_xlim(0, 1)
        # Two lines: on one, the titles of neighbouring panels ran into each other.
        ax.set_title(f"{task}\nPointwise, all cues, order-consistent", fontsize=10)
        ax.set_xlabel("Share of (item, branch, cue) units · n = items")
    for ax in list(axes.flat)[len(tasks) :]:
        ax.set_visible(False)
    fig.tight_layout()
    svg = _inline(fig)
    handles, names = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, names, loc="upper left", bbox_to_anchor=(0, 0), ncol=3, frameon=False)
    _files(fig, out, "states")
    plt.close(fig)
    return svg


def _heatmap(
    ax: Any,
    matrix: np.ndarray,
    items: np.ndarray,
    rows: list[str],
    cols: list[str],
    title: str,
    vmin: float,
    vmax: float,
    cmap: str,
    muted: np.ndarray | None = None,
) -> None:
    if matrix.size == 0:
        ax.set_title(title)
        ax.text(0.5, 0.5, "not measured in these runs", ha="center", va="center")
        ax.axis("off")
        return
    # Cells that are not evidence (P, O or J not above chance) are hatched grey, never on
    # the colour scale: the most striking colour on the page must mean something.
    shown = matrix if muted is None else np.where(muted, np.nan, matrix)
    colours = _plt().get_cmap(cmap).copy()
    colours.set_bad("#eeeeee")
    im = ax.imshow(np.ma.masked_invalid(shown), vmin=vmin, vmax=vmax, cmap=colours,
                   aspect="auto")  # fmt: skip
    if muted is not None:
        for i, j in zip(*np.nonzero(muted), strict=True):
            ax.add_patch(_plt().Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///",
                                          edgecolor="#bbbbbb", linewidth=0))  # fmt: skip
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    for i in range(len(rows)):
        for j in range(len(cols)):
            v = matrix[i, j]
            text = "–" if np.isnan(v) else f"{v:+.2f}" if vmin < 0 else f"{v:.2f}"
            if not np.isnan(v):
                text += f"\nn={int(items[i, j])}"
            grey = muted is not None and bool(muted[i, j])
            ax.text(j, i, text + ("\nn.s." if grey else ""), ha="center", va="center",
                    fontsize=MIN_FONT, color="#666666" if grey else "black")  # fmt: skip
    ax.set_title(title)
    ax.figure.colorbar(im, ax=ax, fraction=0.046)


def heatmaps(summary: Summary, out: Path) -> str | None:
    judges = summary.judges
    if not judges:
        return None
    plt = _plt()
    short = _labels(summary)
    names = [short.get(j, j) for j in judges]
    tasks = sorted({a.task for a in summary.accuracy})
    shape = (len(judges), len(tasks))
    pot, pot_n, muted = np.full(shape, np.nan), np.zeros(shape), np.zeros(shape, bool)
    for s in summary.states:
        if s.cue == "all" and s.potemkin.rate is not None:
            at = (judges.index(s.judge), tasks.index(s.task))
            pot[at], pot_n[at], muted[at] = s.potemkin.rate, s.items, not s.interpretable

    def grid(
        records: Sequence[Difference], key: Callable[[Any], tuple[str, ...]]
    ) -> tuple[list[Any], np.ndarray, np.ndarray]:
        cols = sorted({key(r) for r in records})
        m, n = np.full((len(judges), len(cols)), np.nan), np.zeros((len(judges), len(cols)))
        for r in records:
            at = (judges.index(r.judge), cols.index(key(r)))
            m[at] = np.nan if r.delta is None else r.delta
            n[at] = r.items
        return cols, m, n

    gap_cols, gap, gap_n = grid(summary.protocol_gap, lambda g: (g.task, g.cue))
    cue_cols, cue, cue_n = grid(summary.cue_dependence, lambda c: (c.task, c.protocol, c.cue))
    # One panel per row, each as wide as its columns need: side by side, three panels of up
    # to a dozen columns each only fitted a page by shrinking the cell numbers to ~6 px.
    widest = max(len(tasks), len(gap_cols), len(cue_cols), 1)
    panel = 0.75 * len(judges) + 2.8
    fig, axes = plt.subplots(
        3, 1, figsize=(min(15.0, 3.8 + 0.95 * widest), 3 * panel),
        gridspec_kw={"height_ratios": [1, 1, 1]},
    )  # fmt: skip
    _heatmap(axes[0], pot, pot_n, names, tasks,
             "Conditional Potemkin π110/(π110+π111), all cues pooled\n"
             "(hatched grey: P, O or J not above chance — not evidence)",
             0, 1, "Reds", muted)  # fmt: skip
    _heatmap(axes[1], gap, gap_n, names, [f"{t} · {c}" for t, c in gap_cols],
             "Protocol gap: Pairwise − Pointwise J", -1, 1, "RdBu_r")  # fmt: skip
    _heatmap(axes[2], cue, cue_n, names, [f"{t} · {p} · {c}" for t, p, c in cue_cols],
             "Cue dependence: J under a cue − no cue", -1, 1, "RdBu_r")  # fmt: skip
    fig.text(0.01, 0.005, "n = items per cell", fontsize=MIN_FONT)
    fig.tight_layout()
    return _save(fig, out, "heatmaps")


def accuracy_bars(summary: Summary, out: Path) -> str | None:
    rows = [a for a in summary.accuracy if a.probe == "J" and a.cue != "all"]
    if not rows:
        return None
    plt = _plt()
    tasks = sorted({a.task for a in rows})
    cue_order = {c: i for i, c in enumerate(("none", "soft", "hard", "transition"))}
    conds = sorted(
        {(a.protocol, a.cue) for a in rows},
        key=lambda pc: (pc[0] != "pointwise", cue_order.get(pc[1], 9), pc[1]),
    )
    judges = summary.judges
    short = _labels(summary)
    fig, axes = plt.subplots(
        len(tasks),
        1,
        figsize=(min(15.0, max(6, 1.3 * len(judges) * len(conds) / 3)), 3.6 * len(tasks)),
        squeeze=False,
    )
    width = 0.8 / max(1, len(conds))
    colours = plt.cm.tab10(np.linspace(0, 1, 10))
    for ax, task in zip(axes[:, 0], tasks, strict=True):
        items: dict[str, int] = {}
        for k, (proto, cue) in enumerate(conds):
            xs, ys, lo, hi = [], [], [], []
            for i, j in enumerate(judges):
                a = next(
                    (a for a in rows if a.task == task and a.judge == j
                     and a.protocol == proto and a.cue == cue),
                    None,
                )  # fmt: skip
                if a and a.accuracy is not None:
                    items[j] = max(items.get(j, 0), a.items)
                    xs.append(i + (k - (len(conds) - 1) / 2) * width)
                    ys.append(a.accuracy)
                    # Clipped at 0: a 0 % or 100 % cell has a degenerate interval, and
                    # matplotlib refuses negative error bars.
                    low = a.ci_low if a.ci_low is not None else a.accuracy
                    high = a.ci_high if a.ci_high is not None else a.accuracy
                    lo.append(max(0.0, a.accuracy - low))
                    hi.append(max(0.0, high - a.accuracy))
            ax.bar(
                xs,
                ys,
                width,
                yerr=[lo, hi],
                capsize=2,
                color=colours[k % 10],
                label=f"{proto.capitalize()} · {cue}",
                hatch="//" if proto == "pairwise" else None,
            )
        ax.axhline(0.5, color="black", lw=0.8, ls="--")
        ax.set_xticks(
            range(len(judges)), [f"{short.get(j, j)}\nn={items.get(j, 0)} items" for j in judges]
        )
        ax.set_ylim(0, 1)
        ax.set_ylabel("J accuracy")
        ax.set_title(f"{task}: native judgment J, 95 % item-bootstrap intervals (dashed: chance)")
    axes[0][0].legend(ncol=4, fontsize=MIN_FONT, loc="lower left", bbox_to_anchor=(0, 1.12),
                      frameon=False)  # fmt: skip
    fig.tight_layout()
    return _save(fig, out, "accuracy")
