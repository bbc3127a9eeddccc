"""Answer accounting: every question of the plan lands in exactly one outcome.

Per judge × task × probe × protocol × cue (cue "all" pooled, and protocol "all" pooled per
probe), each question (result row) is one of

- `right` / `wrong` — an answer was given (status ok) and matches the gold or not (T has no
  gold: its answers are counted as `answered`, right and wrong are absent);
- `refused` — the provider or the model declined;
- `no_audio` — the reply says it heard nothing;
- `unparsed` — a reply the parser could not read as one of the offered options;
- `error` — the call failed (no reply at all).

The counts add up to `questions`, always (a test pins it). `given_accuracy` is the accuracy of
the answers given, right / (right + wrong), with its item-level 95 % interval and the 99 %
interval the verdict decides by (intervals for pointwise J per cue, what the verdict reads;
the other cells carry the point value). `shapes` are the most frequent unparsed replies' shapes
(`protocols.parsing.reply_shape`).

**The rules the verdict applies** (`behaviours`, and `stats/verdicts.py` for the headline):

1. An outcome that is not an answer (refused, no-audio, unparsed, error) is named when it
   holds at least `NAMED_SHARE` (10 %) of a probe's questions: "refuses 30.0 % of questions
   (J 30.0 %, P 29.6 %); every J answer it gives is right (210 of 210)". 10 % is where a
   strict accuracy stops being read as the accuracy of the answers: a reliable judge refusing
   one in ten loses up to ten points of J by not answering, not by being wrong.
2. No verdict from answers not given: native J is "below chance" only when the J answers that
   were given are below chance too (their 99 % interval's upper end under ½); a judge that
   answers nothing, or refuses, is never called systematically wrong.
3. When most J questions (≥ `MOSTLY_SHARE`, ½) at the native cue got no answer, the headline
   leads with that and with the fix: for unparsed replies the reply shape seen, the lenient
   parse preset where the shape is a bare label (`paraudit run --parse lenient`, recorded in
   run.json) or `--parse-retries`.

What a judge with no skill scores here: the accounting is not skill — an always-R1 judge gives
every answer (0 % not given) and is judged by the cascade; a judge that answers nothing has no
given accuracy at all (None), never a low one.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from paraudit.stats.analysis import Analysis, GroupContext, Record
from paraudit.stats.itemboot import Sheet
from paraudit.stats.model import Behaviour, Estimate
from paraudit.stats.statrow import StatRow

NAMED_SHARE = 0.10
"""A non-answer outcome at or above this share of a probe's questions is named."""
MOSTLY_SHARE = 0.5
"""Native J with at least this share not answered: the headline leads with why and the fix."""
DECISION = 0.99
OUTCOMES = ("right", "wrong", "refused", "no_audio", "unparsed", "error")
NOT_GIVEN = ("refused", "no_audio", "unparsed", "error")
STATUS = {"refused": "refused", "no-audio": "no_audio", "unparsed": "unparsed", "error": "error"}
WORDS = {
    "refused": "refuses",
    "no_audio": "says it heard no audio on",
    "unparsed": "gives unparsed replies to",
    "error": "has failed calls on",
}
PROBE_ORDER = {p: i for i, p in enumerate("JPOST")}
CUE_ORDER = {c: i for i, c in enumerate(("none", "soft", "hard", "transition", "all"))}
BARE = re.compile(r"\W*[A-Za-z]{1,2}\s*\d\W*")
SHAPES = 3


class AccountingTally:
    """Per (probe, protocol, cue): outcome counts; per item (right, given) only where an
    interval is computed (pointwise J per cue: `_interval`); and the unparsed replies' shapes
    (a few distinct strings, counted)."""

    def __init__(self, judge: str, task: str) -> None:
        self.counts: dict[tuple[str, str, str], list[int]] = {}
        self.items: dict[tuple[str, str, str], dict[str, list[int]]] = defaultdict(dict)
        self.shapes: dict[str, Counter[str]] = defaultdict(Counter)
        self.bare: Counter[tuple[str, str, str]] = Counter()
        """Unparsed choice questions whose reply is a bare label, per cell."""

    def wants(self, probe: str, protocol: str, cue: str) -> bool:
        return probe != "N"  # probe N accounts for its own outcomes (stats/null_audio.py)

    def add(self, row: StatRow) -> None:
        self.add_rows((row,))

    def add_rows(self, rows: Sequence[StatRow]) -> None:
        counts, items = self.counts, self.items
        for row in rows:
            probe = row.probe
            if probe == "N":  # probe N accounts for its own outcomes (stats/null_audio.py)
                continue
            key = (probe, row.protocol, row.cue)
            c = counts.get(key)
            if c is None:
                c = counts[key] = [0] * 6
            status = row.status
            if status == "ok":
                right = row.correct
                c[0 if right else 1] += 1
                if probe == "J" and key[1] == "pointwise":
                    per = items[key]
                    t = per.get(row.item_id)
                    if t is None:
                        t = per[row.item_id] = [0, 0]
                    t[0] += right
                    t[1] += 1
                continue
            c[OUTCOMES.index(STATUS.get(status, "unparsed"))] += 1
            if status == "unparsed" and row.shape is not None:
                self.shapes[probe][row.shape] += 1
                if type(row.gold) is str and BARE.fullmatch(row.shape):
                    self.bare[key] += 1

    def records(self, ctx: GroupContext) -> list[Record]:
        pooled: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0] * 6)
        bare: Counter[tuple[str, str, str]] = Counter()
        for (probe, proto, cue), c in self.counts.items():
            for key in ((probe, proto, cue), (probe, proto, "all"), (probe, "all", "all")):
                pooled[key] = [a + b for a, b in zip(pooled[key], c, strict=True)]
                bare[key] += self.bare[(probe, proto, cue)]
        sheet = Sheet(i for per in self.items.values() for i in per)
        asked: list[tuple[Record, int, int]] = []
        out: list[Record] = []
        for key in sorted(pooled, key=_order):
            probe, proto, cue = key
            c = pooled[key]
            rec: Record = {"judge": ctx.judge, "task": ctx.task, "probe": probe,
                           "protocol": proto, "cue": cue, "questions": sum(c)}  # fmt: skip
            if probe == "T":  # no right answer: answers are counted, not scored
                rec["answered"] = c[0] + c[1]
            else:
                rec.update(right=c[0], wrong=c[1], answered=c[0] + c[1])
            rec.update(zip(NOT_GIVEN, c[2:], strict=True))
            shapes = self.shapes.get(probe)
            rec["shapes"] = [s for s, _ in shapes.most_common(SHAPES)] if shapes else []
            rec["bare_choice"] = bare[key]
            if probe != "T" and _interval(key):
                per = self.items.get(key, {})
                num, den = sheet.pair(per)
                asked.append((rec, sheet.ratio(num, den), sheet.ratio(num, den, DECISION)))
            elif probe != "T":  # a figure of the table: the point value is enough
                n = c[0] + c[1]
                rec["given_accuracy"] = {"rate": c[0] / n if n else None, "ci_low": None,
                                         "ci_high": None, "items": 0}  # fmt: skip
            out.append(rec)
        estimates = sheet.evaluate(ctx.replicates, ctx.seed) if asked else []
        for rec, shown, decide in asked:
            e, d = estimates[shown], estimates[decide]
            rec["given_accuracy"] = {**e.as_dict(), "decision_low": d.low,
                                     "decision_high": d.high}  # fmt: skip
        return out


def _interval(key: tuple[str, str, str]) -> bool:
    """Cells whose given accuracy gets an item interval: what the verdict decides by
    (pointwise J per real cue). Every other cell keeps its point value, so the unit adds a
    few intervals per group and touches per-item counts on J pointwise rows only: it costs
    one dict update on most rows (benchmarks/stats.py)."""
    probe, proto, cue = key
    return (probe, proto) == ("J", "pointwise") and cue != "all"


def _order(key: tuple[str, str, str]) -> tuple[int, int, int, str]:
    probe, proto, cue = key
    proto_rank = {"pointwise": 0, "pairwise": 1, "all": 2}.get(proto, 3)
    return (PROBE_ORDER.get(probe, 9), proto_rank, CUE_ORDER.get(cue, 9), probe + proto + cue)


def intervals(records: Sequence[Record]) -> int:
    return sum(1 for r in records if (r.get("given_accuracy") or {}).get("ci_low") is not None)


def find(records: Sequence[Record], probe: str, protocol: str, cue: str) -> Record | None:
    return next(
        (r for r in records if (r["probe"], r["protocol"], r["cue"]) == (probe, protocol, cue)),
        None,
    )


def given(records: Sequence[Record], probe: str, protocol: str, cue: str) -> Estimate | None:
    """The accuracy of the answers given in one cell (None when the cell holds none)."""
    rec = find(records, probe, protocol, cue)
    if rec is None or "given_accuracy" not in rec:
        return None
    return Estimate(**rec["given_accuracy"])


def share(rec: Record, outcome: str) -> float:
    return rec[outcome] / rec["questions"] if rec["questions"] else 0.0


def pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.1%}"


def given_text(rec: Record | None) -> str:
    """'every J answer it gives is right (100.0 % of 210)' / '… right 62.0 % [55–69 %] …'."""
    if rec is None or not rec.get("answered"):
        return "it gives no J answer at all"
    e = Estimate(**rec["given_accuracy"])
    n = rec["answered"]
    if rec["wrong"] == 0:
        return f"every J answer it gives is right ({n:,} of {n:,})"
    return (
        f"the J answers it gives are right {pct(e.rate)} of the time "
        f"[{pct(e.ci_low)}–{pct(e.ci_high)}] ({rec['right']:,} of {n:,})"
    )


def fix_text(shapes: list[str], bare_choice: int = 0) -> str:
    """What to do about unparsed replies, from the shape seen: the lenient preset only where
    it would read them (bare labels to choice questions; under that preset those are already
    answers, so it is never advised twice)."""
    seen = f"replies look like `{shapes[0]}`" if shapes else "replies hold no 'pred'"
    if bare_choice:
        return (
            f"{seen} (a bare label, not the JSON the prompt asks for): rerun with "
            "`--parse lenient` (accepts an unambiguous bare label; recorded in run.json) or "
            "`--parse-retries 2`"
        )
    if shapes and BARE.fullmatch(shapes[0]):
        return (
            f"{seen}, and a bare label cannot answer a matching or per-turn question: check the "
            "prompt the server gets, or rerun with `--parse-retries 2`"
        )
    return f"{seen}: check what the server returns, or rerun with `--parse-retries 2`"


def behaviours(records: Sequence[Record], ctx: GroupContext) -> list[Behaviour]:
    """Rule 1 of the module docstring: one behaviour per non-answer outcome that holds at
    least NAMED_SHARE of some probe's questions (probes pooled over protocols and cues)."""
    per_probe = [r for r in records if r["protocol"] == "all" and r["cue"] == "all"]
    per_probe.sort(key=lambda r: PROBE_ORDER.get(r["probe"], 9))
    j = find(records, "J", "pointwise", ctx.native_cue or "all") or find(records, "J", "all", "all")
    out = []
    for outcome in NOT_GIVEN:
        hit = [r for r in per_probe if r["questions"] and share(r, outcome) >= NAMED_SHARE]
        if not hit:
            continue
        total = sum(r[outcome] for r in per_probe)
        questions = sum(r["questions"] for r in per_probe)
        where = ", ".join(f"{r['probe']} {pct(share(r, outcome))}" for r in hit)
        text = f"{WORDS[outcome]} {pct(total / questions)} of questions ({where})"
        if outcome == "unparsed":
            shapes: list[str] = next((r["shapes"] for r in hit if r["shapes"]), [])
            text += "; " + fix_text(shapes, sum(r["bare_choice"] for r in hit))
        elif outcome == "error":
            text += "; resume the run to ask them again"
        text += "; " + given_text(j)
        top = max(hit, key=lambda r: share(r, outcome))
        out.append(Behaviour(kind="answers not given", text=text,
                             evidence=Estimate(rate=share(top, outcome)),
                             probes=[r["probe"] for r in hit]))  # fmt: skip
    return out


def not_given_j(records: Sequence[Record], cue: str | None) -> tuple[str, float, Record] | None:
    """The largest non-answer outcome of native J when it holds ≥ MOSTLY_SHARE (rule 3)."""
    rec = find(records, "J", "pointwise", cue or "all")
    if rec is None or not rec["questions"]:
        return None
    outcome = max(NOT_GIVEN, key=lambda o: rec[o])
    missing = sum(rec[o] for o in NOT_GIVEN) / rec["questions"]
    return (outcome, missing, rec) if missing >= MOSTLY_SHARE else None


def mostly_not_given_headline(outcome: str, missing: float, rec: Record) -> str:
    """Rule 3's headline: why nothing can be judged, and the fix."""
    words = {
        "unparsed": "replies are not parsed",
        "refused": "it refuses",
        "no_audio": "it says it hears no audio",
        "error": "the calls failed",
    }[outcome]
    head = (
        f"No verdict from answers not given: {pct(missing)} of J questions got no answer ({words})"
    )
    if outcome == "unparsed":
        return f"{head}; {fix_text(rec.get('shapes') or [], rec.get('bare_choice', 0))}."
    if outcome == "error":
        return f"{head}; resume the run to ask them again."
    return f"{head}; {given_text(rec)}."


ACCOUNTING = Analysis(
    name="accounting",
    title="Answer accounting",
    start=AccountingTally,
    behaviours=behaviours,
    report="paraudit.report.accounting:part",
    intervals=intervals,
)

__all__ = ["ACCOUNTING", "MOSTLY_SHARE", "NAMED_SHARE", "given", "not_given_j"]
