"""The report's sections for pressure from the text (issue 32): the misleading cue's text
dominance, tie items with the abstain answer, and word–tone conflict items.

Each is a registered unit's part (stats/pressure.py, stats/ties.py, stats/conflict.py name
these functions): a collapsed HTML section with a table (also written to tables/*.csv) and a
note stating the rule, or None when the runs hold nothing for it; `pressure_lines` gives
summary.md the same figures. Flagged judges come first, as in the other sections.
"""

from __future__ import annotations

from html import escape

from paraudit.report import tables as T
from paraudit.report.context import Part, ReportContext
from paraudit.stats.conflict import GAP_MIN, SIGN_ALPHA
from paraudit.stats.pressure import MIN_ITEMS as PRESSURE_MIN_ITEMS
from paraudit.stats.pressure import PRESSURE_MIN
from paraudit.stats.summary_model import Summary
from paraudit.stats.ties import ALWAYS_MIN, MIN_ITEMS, NEVER_MAX, TieRecord

DOMINANCE = (
    "Pressure from the text: the misleading cue",
    ["judge", "task", "items", "picks the cued response (item CI)", "without a cue",
     "pressure", "follows the text"],
    f"The misleading cue states the other branch's value. Pressure is the share of answers "
    f"picking the response the cue names, minus the same share without a cue, paired over "
    f"items; a coin, an always-R1 and a deaf judge score 0. Named when its 99 % item interval "
    f"lies above +{PRESSURE_MIN:.0%} on at least {PRESSURE_MIN_ITEMS} items.",
)  # fmt: skip
TIES = (
    "Tie items and the abstain answer",
    ["judge", "task", "protocol", "items", "tie items", "'tie' on tie items", "'tie' elsewhere",
     "calibration", "accuracy when committed", "named"],
    f"Under the ties preset 'tie' is an offered answer. Calibration is 'tie' on tie items minus "
    f"'tie' on items the audio decides: a judge that abstains blindly scores 0. Named 'never "
    f"says there is no difference' when 'tie' on tie items lies below {NEVER_MAX:.0%}, "
    f"'abstains where the audio decides' when 'tie' elsewhere lies above {ALWAYS_MIN:.0%} "
    f"(99 % item intervals, at least {MIN_ITEMS} items of the kind).",
)  # fmt: skip
CONFLICT = (
    "Word–tone conflict: the words against the voice",
    ["judge", "task", "items", "right where words and voice agree (item CI)",
     "right where they conflict", "gap", "follows the words"],
    f"On conflict items the words carry one value and the conflict branch's voice the other; "
    f"the right response follows the voice. Gap is accuracy on conflict branches minus "
    f"congruent ones, paired within items (native pointwise J); a coin, an always-R1 and a "
    f"deaf judge score 0. Named when more items fall below 0 than an exact sign test allows "
    f"by chance (P ≤ {SIGN_ALPHA:g}, so at least 7 items) and its 99 % item interval lies "
    f"below -{GAP_MIN:.0%}.",
)  # fmt: skip


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def dominance_rows(summary: Summary) -> list[list[str]]:
    recs = sorted(summary.text_dominance, key=lambda r: (not r.follows_text, r.judge, r.task))
    return [[r.judge, r.task, str(r.items), T.est(r.dominance), T.est(r.baseline),
             T.est(r.pressure, signed=True), _yes(r.follows_text)] for r in recs]  # fmt: skip


def tie_rows(summary: Summary) -> list[list[str]]:
    def named(r: TieRecord) -> str:
        kinds = [k for k, on in (("never says tie", r.never_abstains),
                                 ("abstains", r.always_abstains)) if on]  # fmt: skip
        return ", ".join(kinds) or "no"

    recs = sorted(summary.ties, key=lambda r: (named(r) == "no", r.judge, r.task))
    return [[r.judge, r.task, r.protocol, str(r.items), str(r.tie_items), T.est(r.tie_accuracy),
             T.est(r.abstain_rate), T.est(r.calibration, signed=True),
             T.est(r.committed_accuracy), named(r)] for r in recs]  # fmt: skip


def conflict_rows(summary: Summary) -> list[list[str]]:
    recs = sorted(summary.conflict, key=lambda r: (not r.follows_words, r.judge, r.task))
    return [[r.judge, r.task, str(r.items), T.est(r.congruent), T.est(r.conflict),
             T.est(r.gap, signed=True), _yes(r.follows_words)] for r in recs]  # fmt: skip


def _part(
    ctx: ReportContext, anchor: str, spec: tuple[str, list[str], str], rows: list[list[str]]
) -> Part | None:
    if not rows:
        return None
    title, cols, note = spec
    T.write_csv(ctx.out / "tables" / f"{anchor.replace('-', '_')}.csv", (cols, rows))
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{escape(v)}</td>" for v in r) + "</tr>" for r in rows)
    named = sum(1 for r in rows if r[-1] != "no")
    html = (
        f"<p class='muted'>{escape(note)}</p><div class='scroll'><table><thead><tr>{head}</tr>"
        f"</thead><tbody>{body}</tbody></table></div>"
    )
    return anchor, title, f"{len(rows)} row{'s' * (len(rows) != 1)}, {named} named", html


def dominance_section(ctx: ReportContext) -> Part | None:
    return _part(ctx, "text-dominance", DOMINANCE, dominance_rows(ctx.summary))


def ties_section(ctx: ReportContext) -> Part | None:
    return _part(ctx, "ties", TIES, tie_rows(ctx.summary))


def conflict_section(ctx: ReportContext) -> Part | None:
    return _part(ctx, "conflict", CONFLICT, conflict_rows(ctx.summary))


def pressure_lines(summary: Summary) -> list[str]:
    """summary.md's sections for whichever of the three the runs hold (none: no lines)."""
    out: list[str] = []
    for (title, cols, note), rows in ((DOMINANCE, dominance_rows(summary)),
                                      (TIES, tie_rows(summary)),
                                      (CONFLICT, conflict_rows(summary))):  # fmt: skip
        if rows:
            out += [f"\n## {title}\n", note + "\n", T.markdown((cols, rows))]
    return out


__all__ = [
    "conflict_section",
    "dominance_section",
    "pressure_lines",
    "ties_section",
]
