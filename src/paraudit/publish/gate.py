"""The CI gate's rule language: parse `--require` rules and check them against a run's verdicts.

Rules (one per `--require`):
- `native>=LEVEL`: the native step of every judge × task reaches LEVEL, in the cascade's order
  below chance < at chance < usable < reliable (`stats/verdicts.py`); `native=LEVEL` asks for
  exactly that level.
- `diagnosis=NAME` / `diagnosis!=NAME`: the verdict's one-name diagnosis (spaces as hyphens:
  `diagnosis!=Potemkin`, `diagnosis=usable,-no-systematic-failure-mode` is spelt
  `diagnosis=usable-no-systematic-failure-mode`).
- `no-behaviour=KIND`: no verdict raises that behaviour (`answers-without-audio`,
  `position-biased`, `ignores-the-audio`, …).
- `regression<=Npp` (with `--baseline RUN0`): on the items both runs answered, per judge and J
  protocol, the item-level order-consistent accuracy may drop by more than N points only
  without evidence: the rule fails when the drop's estimate exceeds N points *and* the exact
  McNemar test on items rejects "no change" (two-sided, α 0.05, Holm over the judge ×
  protocol tests of the rule). A judge that did not change trips it at most α/2 of the time.

A rule that does not parse is refused with the corrected form where one is close.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import get_args

from paraudit.errors import ParauditError
from paraudit.stats.compare import per_probe
from paraudit.stats.model import Behaviour, Diagnosis, Verdict
from paraudit.stats.series import holm
from paraudit.stats.units import Row

LEVELS = ("not run", "below chance", "at chance", "usable", "reliable")
"""The native step's outcomes, worst first."""
BEHAVIOURS = tuple(get_args(Behaviour.model_fields["kind"].annotation))
DIAGNOSES: tuple[str, ...] = get_args(Diagnosis)
ALPHA = 0.05


class RuleError(ParauditError):
    """A rule that does not parse: a usage mistake (exit 2)."""

    exit_code = 2


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclass(frozen=True)
class Rule:
    text: str
    """The rule as written (normalised)."""
    kind: str
    """'native', 'diagnosis', 'behaviour' or 'regression'."""
    op: str
    value: str
    margin: float = 0.0
    """regression: the allowed drop, as a proportion."""


_SHAPE = re.compile(r"^([a-z-]+)\s*(>=|<=|!=|=)\s*(.+)$")
EXAMPLES = "native>=usable, diagnosis!=Potemkin, no-behaviour=answers-without-audio, " \
    "regression<=3pp"  # fmt: skip


def _closest(word: str, names: tuple[str, ...]) -> str | None:
    hit = difflib.get_close_matches(slug(word), [slug(n) for n in names], n=1, cutoff=0.5)
    return hit[0] if hit else None


def _refuse(text: str, fixed: str | None, why: str) -> RuleError:
    hint = f"; did you mean '{fixed}'?" if fixed else f" (rules look like: {EXAMPLES})"
    return RuleError(f"--require '{text}' does not parse: {why}{hint}")


def parse_rule(text: str) -> Rule:
    raw = text.strip()
    # Common near-misses, normalised only to suggest the corrected form.
    loose = raw.lower().replace("=>", ">=").replace("=<", "<=").replace("==", "=")
    loose = loose.replace("behavior", "behaviour").replace("_", "-")
    loose = re.sub(r"^(native|regression)\s*>(?!=)", r"\1>=", loose)
    loose = re.sub(r"^(native|regression)\s*<(?!=)", r"\1<=", loose)
    m = _SHAPE.match(loose)
    if m is None:
        return _rule_or_raise(raw, None)
    name, op, value = m.group(1), m.group(2), m.group(3).strip()
    return _rule_or_raise(raw, (name, op, value))


def _rule_or_raise(raw: str, parts: tuple[str, str, str] | None) -> Rule:
    if parts is None:
        head = re.split(r"[<>=!]", raw, maxsplit=1)[0]
        name = _closest(head, ("native", "diagnosis", "no-behaviour", "regression"))
        example = {"native": "native>=usable", "diagnosis": "diagnosis!=Potemkin",
                   "no-behaviour": "no-behaviour=answers-without-audio",
                   "regression": "regression<=3pp"}  # fmt: skip
        why = "a rule needs an operator and a value" if name else "unknown rule"
        raise _refuse(raw, example.get(name or ""), why)
    name, op, value = parts
    if name == "native":
        level = _closest(value, LEVELS)
        if op not in (">=", "=") or level is None:
            fixed = f"native>={level or 'usable'}"
            raise _refuse(raw, fixed, f"native takes >= or = and one of {', '.join(LEVELS[1:])}")
        fixed = f"native{op}{level}"
        if slug(value) != level or loose_differs(raw, fixed):
            raise _refuse(raw, fixed, "unknown value or operator")
        return Rule(fixed, "native", op, next(v for v in LEVELS if slug(v) == level))
    if name in ("diagnosis",):
        found = _closest(value, DIAGNOSES)
        if op not in ("=", "!=") or found is None:
            raise _refuse(raw, f"diagnosis!={found or 'Potemkin'}", "diagnosis takes = or !=")
        fixed = f"diagnosis{op}{found}"
        if slug(value) != found or loose_differs(raw, fixed):
            raise _refuse(raw, fixed, "unknown value or operator")
        return Rule(fixed, "diagnosis", op, next(d for d in DIAGNOSES if slug(d) == found))
    if name in ("no-behaviour", "nobehaviour", "no-behaviours"):
        found = _closest(value, BEHAVIOURS)
        if op != "=" or found is None:
            names = ", ".join(map(slug, BEHAVIOURS))
            fixed = f"no-behaviour={found or 'answers-without-audio'}"
            raise _refuse(raw, fixed, f"no-behaviour takes = and one of {names}")
        fixed = f"no-behaviour={found}"
        if slug(value) != found or loose_differs(raw, fixed):
            raise _refuse(raw, fixed, "unknown value or operator")
        return Rule(fixed, "behaviour", "=", next(b for b in BEHAVIOURS if slug(b) == found))
    if name == "regression":
        m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(pp|%|points?)?", value)
        if op != "<=" or m is None:
            number = m.group(1) if m else "3"
            raise _refuse(raw, f"regression<={number}pp", "regression takes <= and points (pp)")
        fixed = f"regression<={m.group(1)}pp"
        if loose_differs(raw, fixed):
            raise _refuse(raw, fixed, "regression takes <=")
        if m.group(2) != "pp":
            raise _refuse(raw, fixed, "write the allowed drop in percentage points")
        return Rule(fixed, "regression", "<=", m.group(1), float(m.group(1)) / 100)
    close = _closest(name, ("native", "diagnosis", "no-behaviour", "regression"))
    raise _refuse(raw, f"{close}{op}{value}" if close else None, f"unknown rule {name!r}")


def loose_differs(raw: str, fixed: str) -> bool:
    """The user's rule name or operator is not the canonical one (case and spaces aside;
    values are compared by their slug by the caller)."""
    mine, want = _SHAPE.match(raw.strip().lower()), _SHAPE.match(fixed.lower())
    return mine is None or want is None or mine.group(1, 2) != want.group(1, 2)


@dataclass(frozen=True)
class Check:
    rule: str
    passed: bool
    line: str
    """One line: what was checked and what was found."""


def check_verdicts(rule: Rule, verdicts: list[Verdict]) -> Check:
    """A verdict rule over every judge × task of the run."""
    if not verdicts:
        return Check(rule.text, False, f"{rule.text}: FAIL (the run holds no verdicts)")
    bad: list[str] = []
    for v in verdicts:
        where = f"{v.judge} · {v.task}"
        if rule.kind == "native":
            got = v.native.outcome
            rank = LEVELS.index(got) if got in LEVELS else 0
            want = LEVELS.index(rule.value)
            if (rank < want) if rule.op == ">=" else (rank != want):
                bad.append(f"{where} native {got}")
        elif rule.kind == "diagnosis":
            if (v.diagnosis == rule.value) != (rule.op == "="):
                bad.append(f"{where} is {v.diagnosis}")
        elif rule.kind == "behaviour":
            if any(b.kind == rule.value for b in v.behaviours):
                bad.append(f"{where} {rule.value}")
    n = len(verdicts)
    if bad:
        return Check(rule.text, False, f"{rule.text}: FAIL ({len(bad)} of {n}: {'; '.join(bad)})")
    return Check(rule.text, True, f"{rule.text}: pass ({n} judge × task verdicts)")


def check_regression(
    rule: Rule,
    baseline: list[Row],
    candidate: list[Row],
    pairs: list[tuple[str, str]],
    replicates: int = 2_000,
    seed: int = 0,
) -> Check:
    """regression<=Npp: per judge pair and J protocol, on the items both runs answered."""
    tests = [
        t for ja, jb in pairs for t in per_probe(baseline, candidate, ja, jb, replicates, seed)
        if t["probe"] == "J" and t["items"]
    ]  # fmt: skip
    if not tests:
        return Check(rule.text, False, f"{rule.text}: FAIL (no J items shared with the baseline)")
    adjusted = holm([t["p_value"] for t in tests])
    bad, worst = [], max(tests, key=lambda t: -(t["delta"] or 0.0))
    for t, p in zip(tests, adjusted, strict=True):
        drop = -(t["delta"] or 0.0)
        if drop > rule.margin and p < ALPHA:
            bad.append(
                f"{t['judge_b']} J {t['protocol']} −{drop * 100:.1f} pp on {t['items']} items "
                f"[{-t['ci_high'] * 100:.1f}, {-t['ci_low'] * 100:.1f}], Holm p {p:.2g}"
            )
    if bad:
        return Check(rule.text, False, f"{rule.text}: FAIL ({'; '.join(bad)})")
    drop = -(worst["delta"] or 0.0)
    return Check(
        rule.text,
        True,
        f"{rule.text}: pass (largest drop {drop * 100:+.1f} pp, {worst['judge_b']} J "
        f"{worst['protocol']} on {worst['items']} shared items; {len(tests)} item-level "
        "McNemar tests, Holm)",
    )
