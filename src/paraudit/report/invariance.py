"""The report's invariance section (runs on a `build invariance` set; stats/invariance.py):
the flip rate per change with its item interval beside the judge's sensitivity, as a figure,
and the per-voice accuracy table (fairness)."""

from __future__ import annotations

from html import escape
from pathlib import Path

import numpy as np

from paraudit.report.context import ReportContext
from paraudit.report.figures import _plt, _save
from paraudit.report.labels import short_labels
from paraudit.stats.summary_model import InvarianceFlip, Share, Summary, VoiceAccuracy
from paraudit.stats.verdict_text import words_for

TITLE = "Invariance: flips on irrelevant changes, and accuracy per voice and condition"
CHANGE_ORDER = (
    "speaker",
    "voice",
    "telephone",
    "reverb",
    "loudness",
    "rate",
    "noise",
    "samplerate",
)


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
    short = short_labels(sorted({r.judge for r in records}))  # a long spec widened the figure
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
        ax.set_title(f"{short[judge]} · {task}", loc="left")
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
        "<div class='scroll'><table><thead><tr><th>judge</th><th>task</th>"
        "<th>voice or condition</th>"
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
    noun = words_for(pooled[0].task).noun if pooled else "emotion"
    body = (
        "<p class='muted'>Each twin repeats an item with one irrelevant change of its context "
        "audio (another voice, ±6 dB, ±8 % rate, noise at 30 dB SNR, 16 kHz; where the set has "
        "them, the user rendered by another speaker, a G.711 phone line, a reverberant room). "
        "Flip rate: the "
        "share of pointwise J answers that differ from the same judge's answer on the original "
        "(same cue, order and branch); sensitivity (dashed): the share of originals whose "
        f"answer differs between the branches, where the {noun} changes. Red: 'flips on' (the "
        "interval above 10 %) or 'not discriminating' (flips, and no more often with the "
        f"{noun} than without it). Intervals: 95 % over whole items.</p>"
        f'<div class="fig" id="fig-invariance">{svg}</div>'
        f"{flip_table(summary.invariance)}"
        "<h3>Accuracy per voice and recording condition</h3><p class='muted'>Pointwise J "
        "accuracy on the original voice and on each voice, speaker or condition twin (same "
        f"words and {noun}; another speaker, a phone line or a room), on the same items: a "
        "judge that still hears the contrast there scores alike.</p>"
        f"{voice_table(summary.invariance_voices)}"
    )
    return ("invariance", TITLE, note, body)


def invariance_line(summary: Summary) -> str | None:
    """The terminal's line for a run over an invariance set, before its verdicts: per judge ×
    task, the changes it flips on (or that it holds steady), from the pooled flip rates."""
    pooled = [r for r in summary.invariance if r.pooled]
    if not pooled:
        return None
    said = []
    for judge, task in sorted({(r.judge, r.task) for r in pooled}):
        mine = sorted((r for r in pooled if (r.judge, r.task) == (judge, task)), key=_key)
        blind = " (not discriminating)"
        flags = [
            f"{r.change} {_pct(r.flip_rate.rate)}{blind * r.not_discriminating}"
            for r in mine
            if r.flips or r.not_discriminating
        ]
        most = max((r.flip_rate.rate or 0.0 for r in mine), default=0.0)
        said.append(
            f"{judge} · {task}: "
            + (f"flips on {', '.join(flags)}" if flags else f"steady (at most {_pct(most)} flips)")
        )
    changes = len({r.change for r in pooled})
    pairs = max(r.pairs for r in pooled)
    return (
        f"invariance ({changes} irrelevant change{'s' * (changes != 1)}, up to {pairs} answer "
        f"pairs each; the report's first section): " + "; ".join(said)
    )


def registered_part(ctx: ReportContext) -> tuple[str, str, str, str] | None:
    """invariance_part as the registry calls it (stats/paired_units.py)."""
    return invariance_part(ctx.summary, ctx.figdir)


__all__ = [
    "TITLE",
    "flip_figure",
    "invariance_line",
    "invariance_part",
    "registered_part",
    "voice_table",
]
