"""The report's invariance section (runs on a `build invariance` set; stats/invariance.py):
the flip rate per change with its item interval beside the judge's sensitivity, as a figure,
and the per-voice accuracy table (fairness)."""

from __future__ import annotations

from html import escape
from pathlib import Path

import numpy as np

from paraudit.report.context import ReportContext
from paraudit.report.figures import _plt, _save
from paraudit.stats.summary_model import InvarianceFlip, Share, Summary, VoiceAccuracy

TITLE = "Invariance: flips on irrelevant changes, and accuracy per voice"
CHANGE_ORDER = ("voice", "loudness", "rate", "noise", "samplerate")


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f} %"


def _ci(e: Share) -> str:
    return (
        "" if e.ci_low is None or e.ci_high is None else f" [{_pct(e.ci_low)}, {_pct(e.ci_high)}]"
    )


def _key(r: InvarianceFlip) -> tuple[int, str]:
    return (CHANGE_ORDER.index(r.change) if r.change in CHANGE_ORDER else 9, r.change)


def flip_figure(records: list[InvarianceFlip], out: Path) -> str:
    """Bars: flip rate per pooled change and judge (95 % item intervals); a line per judge at
    its sensitivity (how often its choice follows the emotion). Bars reaching the line mark a
    judge that flips as often without a reason as with one."""
    plt = _plt()
    groups = sorted({(r.judge, r.task) for r in records})
    changes = sorted({r.change for r in records}, key=lambda c: _key(next(
        r for r in records if r.change == c)))  # fmt: skip
    fig, axes = plt.subplots(
        len(groups), 1, figsize=(max(6.0, 1.1 * len(changes) + 2), 2.6 * len(groups)),
        squeeze=False,
    )  # fmt: skip
    for ax, (judge, task) in zip(axes[:, 0], groups, strict=True):
        mine = {r.change: r for r in records if (r.judge, r.task) == (judge, task)}
        xs = np.arange(len(changes))
        ys, lo, hi, colours = [], [], [], []
        for c in changes:
            r = mine.get(c)
            v = r.flip_rate.rate if r and r.flip_rate.rate is not None else 0.0
            low = r.flip_rate.ci_low if r and r.flip_rate.ci_low is not None else v
            high = r.flip_rate.ci_high if r and r.flip_rate.ci_high is not None else v
            ys.append(v)
            lo.append(max(0.0, v - low))
            hi.append(max(0.0, high - v))
            flagged = r is not None and (r.flips or r.not_discriminating)
            colours.append("#e15759" if flagged else "#4e79a7")
        ax.bar(xs, ys, 0.6, yerr=[lo, hi], capsize=3, color=colours)
        sens = next(iter(mine.values())).sensitivity.rate
        if sens is not None:
            ax.axhline(sens, color="black", lw=1.0, ls="--", label=f"sensitivity {_pct(sens)}")
            ax.legend(loc="upper right", frameon=False)
        ax.set_xticks(xs, changes)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("flip rate")
        ax.set_title(f"{judge} · {task}", loc="left")
    fig.tight_layout()
    return _save(fig, out, "invariance")


def voice_table(rows: list[VoiceAccuracy]) -> str:
    body = "".join(
        f"<tr><td>{escape(r.judge)}</td><td>{escape(r.task)}</td><td>{escape(r.voice)}</td>"
        f"<td>{r.n}</td><td>{_pct(r.accuracy.rate)}{_ci(r.accuracy)}</td>"
        f"<td>{r.accuracy.items}</td></tr>"
        for r in rows
    )
    return (
        "<div class='scroll'><table><thead><tr><th>judge</th><th>task</th><th>voice</th>"
        "<th>answers</th><th>J pointwise accuracy [95 %]</th><th>items</th></tr></thead>"
        f"<tbody>{body}</tbody></table></div>"
    )


def flip_table(records: list[InvarianceFlip]) -> str:
    body = "".join(
        f"<tr><td>{escape(r.judge)}</td><td>{escape(r.task)}</td><td>{escape(r.change)}</td>"
        f"<td>{r.flipped} / {r.pairs}</td><td>{_pct(r.flip_rate.rate)}{_ci(r.flip_rate)}</td>"
        f"<td>{_pct(r.sensitivity.rate)}{_ci(r.sensitivity)}</td>"
        f"<td>{'flips' if r.flips else ''}{' · not discriminating' * r.not_discriminating}</td>"
        "</tr>"
        for r in sorted(records, key=lambda r: (r.judge, r.task, _key(r)))
    )
    return (
        "<div class='scroll'><table><thead><tr><th>judge</th><th>task</th><th>change</th>"
        "<th>flipped</th><th>flip rate [95 %]</th><th>sensitivity [95 %]</th><th>flag</th>"
        f"</tr></thead><tbody>{body}</tbody></table></div>"
    )


def invariance_part(summary: Summary, figdir: Path) -> tuple[str, str, str, str] | None:
    """The section as html.render's `extra` takes it, or None for runs without twins."""
    if not summary.invariance:
        return None
    pooled = [r for r in summary.invariance if r.pooled]
    svg = flip_figure(pooled, figdir)
    note = f"{len({r.judge for r in pooled})} judge(s), {len({r.change for r in pooled})} changes"
    body = (
        "<p class='muted'>Each twin repeats an item with one irrelevant change of its context "
        "audio (another voice, ±6 dB, ±8 % rate, noise at 30 dB SNR, 16 kHz). Flip rate: the "
        "share of pointwise J answers that differ from the same judge's answer on the original "
        "(same cue, order and branch); sensitivity (dashed): the share of originals whose "
        "answer differs between the branches, where the emotion changes. Red: 'flips on' (the "
        "interval above 10 %) or 'not discriminating' (flips, and no more often with the "
        "emotion than without it). Intervals: 95 % over whole items.</p>"
        f'<div class="fig" id="fig-invariance">{svg}</div>'
        f"{flip_table(summary.invariance)}"
        "<h3>Accuracy per voice</h3><p class='muted'>Pointwise J accuracy on the original "
        "voice and on each voice twin (same words and emotions, another speaker): a judge "
        "that is fair across speakers scores alike.</p>"
        f"{voice_table(summary.invariance_voices)}"
    )
    return ("invariance", TITLE, note, body)


def registered_part(ctx: ReportContext) -> tuple[str, str, str, str] | None:
    """invariance_part as the registry calls it (stats/paired_units.py)."""
    return invariance_part(ctx.summary, ctx.figdir)


__all__ = ["TITLE", "flip_figure", "invariance_part", "registered_part", "voice_table"]
