"""Figures (matplotlib, Agg): state distributions, heatmaps, accuracy with intervals.

Each figure is returned as SVG text (inlined into report.html, so it needs no network) and
also written as PNG and SVG files.
"""

from __future__ import annotations

import io
import logging
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from paraudit.errors import MissingExtraError
from paraudit.stats.states import GROUP_COLOURS, GROUPS


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

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 9})
    return plt


def _save(fig: Any, out: Path, name: str) -> str:
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / f"{name}.png", dpi=130, bbox_inches="tight")
    fig.savefig(out / f"{name}.svg", bbox_inches="tight")
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    _plt().close(fig)
    svg = buf.getvalue()
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)  # creator/date, not needed
    return svg[svg.index("<svg") :]


def _short(judge: str) -> str:
    # The judge label is the unique name: cutting its options would draw two judges that
    # differ only in e.g. temperature as one.
    return judge


def state_bars(summary: dict[str, Any], out: Path) -> str | None:
    rows = [s for s in summary["states"] if s["cue"] == "all"]
    if not rows:
        return None
    plt = _plt()
    tasks = sorted({s["task"] for s in rows})
    fig, axes = plt.subplots(
        1, len(tasks), figsize=(4.2 * len(tasks), 3.2), squeeze=False, sharey=True
    )
    for ax, task in zip(axes[0], tasks, strict=True):
        rs = [s for s in rows if s["task"] == task]
        names = [_short(s["judge"]) for s in rs]
        left = np.zeros(len(rs))
        for g in GROUPS:
            vals = np.array([s["groups"][g] for s in rs])
            ax.barh(names, vals, left=left, color=GROUP_COLOURS[g], label=g)
            left += vals
        ax.set_xlim(0, 1)
        ax.set_title(f"{task} (pointwise, all cues)")
        ax.set_xlabel("share of instances")
    axes[0][-1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
    return _save(fig, out, "states")


def _heatmap(
    ax: Any,
    matrix: np.ndarray,
    rows: list[str],
    cols: list[str],
    title: str,
    vmin: float,
    vmax: float,
    cmap: str,
) -> None:
    im = ax.imshow(matrix, vmin=vmin, vmax=vmax, cmap=cmap, aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    for i in range(len(rows)):
        for j in range(len(cols)):
            v = matrix[i, j]
            ax.text(
                j,
                i,
                "–" if np.isnan(v) else f"{v:+.2f}" if vmin < 0 else f"{v:.2f}",
                ha="center",
                va="center",
                fontsize=8,
            )
    ax.set_title(title)
    ax.figure.colorbar(im, ax=ax, fraction=0.046)


def heatmaps(summary: dict[str, Any], out: Path) -> str | None:
    judges = summary["judges"]
    if not judges:
        return None
    plt = _plt()
    names = [_short(j) for j in judges]
    tasks = sorted({a["task"] for a in summary["accuracy"]})
    pot = np.full((len(judges), len(tasks)), np.nan)
    for s in summary["states"]:
        if s["cue"] == "all" and s["potemkin_rate"] is not None:
            pot[judges.index(s["judge"]), tasks.index(s["task"])] = s["potemkin_rate"]
    gap_cols = sorted({(g["task"], g["cue"]) for g in summary["protocol_gap"]})
    gap = np.full((len(judges), len(gap_cols)), np.nan)
    for g in summary["protocol_gap"]:
        gap[judges.index(g["judge"]), gap_cols.index((g["task"], g["cue"]))] = g["delta"]
    cue_cols = sorted({(c["task"], c["protocol"], c["cue"]) for c in summary["cue_dependence"]})
    cue = np.full((len(judges), len(cue_cols)), np.nan)
    for c in summary["cue_dependence"]:
        cue[judges.index(c["judge"]), cue_cols.index((c["task"], c["protocol"], c["cue"]))] = c[
            "delta"
        ]
    fig, axes = plt.subplots(1, 3, figsize=(15, 0.5 * len(judges) + 2.4))
    _heatmap(axes[0], pot, names, tasks, "conditional Potemkin rate π110/(π110+π111)", 0, 1, "Reds")
    _heatmap(
        axes[1],
        gap,
        names,
        [f"{t[:6]} {c}" for t, c in gap_cols],
        "protocol gap: pairwise − pointwise",
        -1,
        1,
        "RdBu_r",
    )
    _heatmap(
        axes[2],
        cue,
        names,
        [f"{t[:6]} {p[:5]} {c}" for t, p, c in cue_cols],
        "cue dependence: cue − no cue",
        -1,
        1,
        "RdBu_r",
    )
    fig.tight_layout()
    return _save(fig, out, "heatmaps")


def accuracy_bars(summary: dict[str, Any], out: Path) -> str | None:
    rows = [a for a in summary["accuracy"] if a["probe"] == "J" and a["cue"] != "all"]
    if not rows:
        return None
    plt = _plt()
    tasks = sorted({a["task"] for a in rows})
    cue_order = {c: i for i, c in enumerate(("none", "soft", "hard", "transition"))}
    conds = sorted(
        {(a["protocol"], a["cue"]) for a in rows},
        key=lambda pc: (pc[0] != "pointwise", cue_order.get(pc[1], 9), pc[1]),
    )
    judges = summary["judges"]
    fig, axes = plt.subplots(
        len(tasks),
        1,
        figsize=(max(6, 1.3 * len(judges) * len(conds) / 3), 2.8 * len(tasks)),
        squeeze=False,
    )
    width = 0.8 / max(1, len(conds))
    colours = plt.cm.tab10(np.linspace(0, 1, 10))
    for ax, task in zip(axes[:, 0], tasks, strict=True):
        for k, (proto, cue) in enumerate(conds):
            xs, ys, lo, hi = [], [], [], []
            for i, j in enumerate(judges):
                a = next(
                    (
                        a
                        for a in rows
                        if a["task"] == task
                        and a["judge"] == j
                        and a["protocol"] == proto
                        and a["cue"] == cue
                    ),
                    None,
                )
                if a:
                    xs.append(i + (k - (len(conds) - 1) / 2) * width)
                    ys.append(a["accuracy"])
                    lo.append(a["accuracy"] - a["ci_low"])
                    hi.append(a["ci_high"] - a["accuracy"])
            ax.bar(
                xs,
                ys,
                width,
                yerr=[lo, hi],
                capsize=2,
                color=colours[k % 10],
                label=f"{proto} · {cue}",
                hatch="//" if proto == "pairwise" else None,
            )
        ax.axhline(0.5, color="black", lw=0.8, ls="--")
        ax.set_xticks(range(len(judges)), [_short(j) for j in judges])
        ax.set_ylim(0, 1)
        ax.set_ylabel("J accuracy")
        ax.set_title(f"{task}: native judgment with 95 % Wilson intervals (dashed: chance)")
    axes[0][0].legend(ncol=4, fontsize=7, loc="lower left", bbox_to_anchor=(0, 1.12), frameon=False)
    fig.tight_layout()
    return _save(fig, out, "accuracy")
