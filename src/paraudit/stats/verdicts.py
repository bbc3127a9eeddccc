"""One verdict per judge × task, following the paper's diagnostic cascade (§1, §3.2–3.3).

Every step reads one cue's evidence, never figures pooled over cues. "Above chance" means the
item-level interval's lower end is above what the best *deaf* guesser scores given the options
the prompt offers (`units.chance_level`: ½ for every whole answer, since the two branches'
prompts are the same words with different right answers).

1. Native — pointwise J at the least cued cue that ran (none < soft < hard < transition):
   *reliable* when the 95 % lower bound is at least `RELIABLE_LOW` (80 %), *usable* when above
   chance, *below chance* when the upper bound is below it, else *at chance*.
2. Recoverable — pairwise J at the same cue and the protocol gap: *recoverable in pairwise but
   not deployed natively* when pairwise is above chance and the gap's interval excludes 0.
3. Cue dependence — J under a cue minus J without: *works only when cued* when the native step
   is not above chance, J under the cue is, and the cue-dependence interval excludes 0.
4. Components, per cue — P, O and J each above chance or not gives the attribution (Potemkin:
   P and O work, J does not; perception / response-mapping bottleneck: O / P works, the other
   does not; shortcut-like success: J works without P or O, beyond guessing on the units whose
   failed component is wrong; a component below chance is named inverted). Only where P, O and
   J all work is
   their dependence tested (`state_section`): a group named over-represented is a systematic
   failure mode; otherwise "failures look independent: no systematic failure mode".
5. Behaviours at the native cue — position bias either way, order dependence (right in one
   response order only), ignoring the audio, repeating the text-only choice, hearing only some
   human turns, answering without audio (probe N: stats/null_audio.py).

The diagnosis (one name) takes the first that applies: no answers → answers not given (half or
more of native J unanswered: stats/accounting.py) → reliable → usable (with or
without a systematic failure mode) → recoverable only in pairwise → works only when cued → a
behaviour that explains the score → the components' attribution → below chance → at chance.
Below 30 items the verdict says the sample is small.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

from paraudit.stats.accounting import given, mostly_not_given_headline, not_given_j
from paraudit.stats.model import (
    Behaviour,
    ComponentsAtCue,
    Diagnosis,
    Estimate,
    Step,
    Verdict,
)
from paraudit.stats.state_section import over_represented
from paraudit.stats.verdict_text import (
    ci,
    components_text,
    headline,
    pct,
    turn_text,
    words_for,
)

SMALL_SAMPLE = 30
DECISION_CONFIDENCE = 0.99
"""The level of the intervals the steps decide by (above / below chance, gaps, cue gains).
A cascade asks about six such questions of one judge; at 95 % each, a judge that guesses
everywhere would get some named skill in about one audit in ten (measured by
`benchmarks/verdicts.py`); at 99 % in well under one in twenty. The 95 % intervals are shown."""
RELIABLE_LOW = 0.8
"""Native J's 95 % item-level lower bound at which a judge is called reliable (README)."""
BIAS_DISTANCE = 0.4
"""|share of first-option picks − ½| at which a cell is flagged as position-biased."""
AUDIO_DEAF_MAX = 0.1
"""Upper end of the audio-sensitivity interval below which a judge ignores the audio."""
ORDER_GAP_MIN = 0.3
"""|acc(order ab) − acc(order ba)| (interval excluding 0) at which a judge is order-dependent."""
TURN_UNHEARD_MAX = 0.75
"""A human-turn position is 'not heard' when P there is not above ½ and below this."""
CUE_ORDER = ("none", "soft", "hard", "transition")
POSITIONS = ("first", "middle", "last")

Section = dict[str, Any]


def position_direction(share: Section) -> str | None:
    """'first' or 'second' when a share of first-option picks is extreme and its interval
    excludes ½; None otherwise."""
    rate, lo, hi = share.get("rate"), share.get("ci_low"), share.get("ci_high")
    if rate is None or lo is None or hi is None or abs(rate - 0.5) < BIAS_DISTANCE:
        return None
    if lo <= 0.5 <= hi:
        return None
    return "first" if rate > 0.5 else "second"


def estimate(d: Section | None) -> Estimate:
    """A summary record (accuracy, rate or delta) as an Estimate."""
    if not d:
        return Estimate()
    value = d.get("accuracy", d.get("rate", d.get("delta")))
    return Estimate(rate=value, ci_low=d.get("ci_low"), ci_high=d.get("ci_high"),
                    items=int(d.get("items") or 0), decision_low=d.get("decision_low"),
                    decision_high=d.get("decision_high"))  # fmt: skip


def _cue_rank(c: str) -> int:
    return CUE_ORDER.index(c) if c in CUE_ORDER else len(CUE_ORDER)


@dataclass
class Evidence:
    """Everything one judge × task's verdict reads, keyed as the summary's sections are."""

    judge: str
    task: str
    items: int
    accuracy: dict[tuple[str, str, str], Section]
    """(probe, protocol, cue) → accuracy record (per real cue and "all")."""
    gaps: dict[str, Section] = field(default_factory=dict)
    """cue → protocol gap (pairwise − pointwise J)."""
    cue_dependence: dict[tuple[str, str], Section] = field(default_factory=dict)
    """(protocol, cue) → J under the cue − J without."""
    states: dict[str, Section] = field(default_factory=dict)
    """cue → states record."""
    position: list[Section] = field(default_factory=list)
    """position-bias cells (with `direction`)."""
    behaviour: dict[str, Section] = field(default_factory=dict)
    """cue → audio_sensitivity, order_consistency, j_t_agreement."""
    order_gap: dict[str, Section] = field(default_factory=dict)
    """cue → J pointwise accuracy in response order ab − ba."""
    turn_positions: dict[str, list[Section]] = field(default_factory=dict)
    """cue → per human-turn position P accuracy (first / middle / last)."""
    failed_calls: tuple[int, int] = (0, 0)
    sections: dict[str, list[Section]] = field(default_factory=dict)
    """The registered analyses' records (stats/analyses.py), by name."""
    unit_behaviours: list[Behaviour] = field(default_factory=list)
    """What the registered analyses name, in the registry's order (after the core's)."""
    unit_asides: dict[str, list[Behaviour]] = field(default_factory=dict)
    """What a unit names outside the cascade (its `aside` → behaviours): listed after the
    verdict's own behaviours and text, never weighed in its diagnosis or headline."""

    def acc(self, probe: str, protocol: str, cue: str) -> tuple[Estimate, float] | None:
        a = self.accuracy.get((probe, protocol, cue))
        if a is None or a.get("accuracy") is None:
            return None
        return estimate(a), float(a.get("chance") or 0.5)


def native_cue(ev: Evidence) -> str | None:
    cues = [c for (p, proto, c) in ev.accuracy if p == "J" and proto == "pointwise"]
    # A misleading cue is pressure, not a native answer (stats/pressure.py): never the native.
    cues = [c for c in cues if c not in ("all", "misleading") and ev.acc("J", "pointwise", c)]
    return min(cues, key=lambda c: (_cue_rank(c), c)) if cues else None


def _level(e: Estimate, chance: float) -> str:
    if e.above(chance):
        return "above chance"
    if e.below(chance):
        return "below chance"
    return "at chance"


def native_step(ev: Evidence, cue: str | None) -> Step:
    got = ev.acc("J", "pointwise", cue) if cue else None
    if got is None:
        text = "No pointwise J answer: run the J probe (pointwise) to judge natively."
        return Step(name="native", ran=False, outcome="not run", text=text)
    e, chance = got
    level = _level(e, chance)
    outcome = "reliable" if e.ci_low is not None and e.ci_low >= RELIABLE_LOW else level
    if outcome == "above chance":
        outcome = "usable"
    words = {
        "reliable": f"reliable (lower bound ≥ {RELIABLE_LOW:.0%})",
        "usable": f"above chance but below the reliable bar ({RELIABLE_LOW:.0%} lower bound)",
        "at chance": "at chance",
        "below chance": "below chance (systematically wrong)",
    }[outcome]
    text = f"Native (pointwise J, cue {cue}): {pct(e.rate)} (CI {ci(e)}), {words}."
    return Step(name="native", ran=True, outcome=outcome, cue=cue, text=text,
                evidence={"J": e})  # fmt: skip


def recoverable_step(ev: Evidence, cue: str | None, native: Step) -> Step:
    got = ev.acc("J", "pairwise", cue) if cue else None
    if got is None:
        return Step(name="recoverable", ran=False, outcome="not run", cue=cue,
                    text="Recoverability: not run (no pairwise J at the native cue).")  # fmt: skip
    e, chance = got
    gap = estimate(ev.gaps.get(cue or ""))
    evidence = {"pairwise J": e, "protocol gap": gap}
    if e.above(chance) and gap.above(0.0):
        outcome = "recoverable"
        text = (
            f"Recoverable in pairwise but not deployed natively: pairwise J {pct(e.rate)} "
            f"(CI {ci(e)}), {pct(gap.rate, signed=True)} over pointwise (CI {ci(gap, True)})."
        )
    elif e.above(chance):
        outcome = "also in pairwise"
        text = f"Pairwise J {pct(e.rate)} (CI {ci(e)}), no better than pointwise."
    else:
        outcome = "not recoverable"
        text = f"Not recoverable in pairwise either: pairwise J {pct(e.rate)} (CI {ci(e)})."
    if native.outcome == "reliable" and outcome == "recoverable":
        outcome = "also in pairwise"
    return Step(name="recoverable", ran=True, outcome=outcome, cue=cue, text=text,
                evidence=evidence)  # fmt: skip


def cue_step(ev: Evidence, cue: str | None, native: Step) -> Step:
    cued = [
        c
        for (proto, c) in ev.cue_dependence
        if proto == "pointwise" and ev.acc("J", "pointwise", c)
    ]
    if cue != "none" or not cued:
        text = "Cue dependence: not run (needs J pointwise with and without a cue)."
        return Step(name="cue", ran=False, outcome="not run", text=text)
    best: tuple[str, Estimate, Estimate] | None = None
    for c in sorted(cued, key=_cue_rank):
        got = ev.acc("J", "pointwise", c)
        assert got is not None
        e, chance = got
        dep = estimate(ev.cue_dependence[("pointwise", c)])
        if (
            e.above(chance)
            and dep.above(0.0)
            and (best is None or (dep.rate or 0) > (best[2].rate or 0))
        ):
            best = (c, e, dep)
    if best is None:
        hurt = [c for c in cued if estimate(ev.cue_dependence[("pointwise", c)]).below(0.0)]
        outcome = "hurt by the cue" if hurt else "no difference"
        text = (
            f"The {', '.join(hurt)} cue lowers J." if hurt
            else "Cueing the contrast makes no clear difference."
        )  # fmt: skip
        return Step(name="cue", ran=True, outcome=outcome, cue=None, text=text)
    c, e, dep = best
    only = native.outcome in ("at chance", "below chance")
    outcome = "works only when cued" if only else "helped by the cue"
    text = (
        f"{'Works only when cued' if only else 'Helped by the cue'}: J with the {c} cue "
        f"{pct(e.rate)} (CI {ci(e)}), {pct(dep.rate, signed=True)} over no cue "
        f"(CI {ci(dep, True)})."
    )
    return Step(name="cue", ran=True, outcome=outcome, cue=c, text=text,
                evidence={f"J {c}": e, "cue dependence": dep})  # fmt: skip


PATTERN_GROUP = {
    "all components work": "reliable",
    "Potemkin": "Potemkin",
    "perception bottleneck": "component bottleneck",
    "response-mapping bottleneck": "component bottleneck",
    "shortcut-like success": "shortcut-like success",
    "no component above chance": "full-stack failure",
}


SHORTCUT_CONFIDENCE = DECISION_CONFIDENCE
"""One-sided level of the shortcut test (J on the units whose failed component is wrong)."""
UNIT_CHANCE = 0.5
"""What the best deaf guesser scores on order-consistent J units: a judge that picks the same
response whatever the order (its text preference) is right in both orders on the one branch
whose response it prefers, ½ of units; a coin scores ¼."""


def unperceived_j(states: Section, failed: list[str]) -> tuple[int, int]:
    """(units with J right, units) among the order-consistent units on which a failed
    component (P and/or O not above chance) is wrong: where J had nothing to rest on."""
    units = int(states.get("units") or 0)
    masses = states.get("masses") or {}
    idx = {"P": 0, "O": 1}
    right = total = 0
    for state, m in masses.items():
        if any(state[idx[p]] == "0" for p in failed):
            n = round((m.get("rate") or 0.0) * units)
            total += n
            right += n if state[2] == "1" else 0
    return right, total


def beyond_guessing(right: int, total: int) -> bool:
    """J on the unperceived units is above what guessing there gives (UNIT_CHANCE): the
    one-sided Wilson lower bound at SHORTCUT_CONFIDENCE. Units of one item are not independent,
    but a deaf judge's two branches are right on one and wrong on the other (negatively
    correlated), so treating them as independent is conservative against it."""
    if total == 0:
        return False
    z = NormalDist().inv_cdf(SHORTCUT_CONFIDENCE)
    phat = right / total
    denom = 1 + z * z / total
    centre = phat + z * z / (2 * total)
    margin = z * math.sqrt(phat * (1 - phat) / total + z * z / (4 * total * total))
    return (centre - margin) / denom > UNIT_CHANCE


def components(ev: Evidence) -> list[ComponentsAtCue]:
    """Per cue: P, O, J above, at or below chance, and the pattern they give (module
    docstring, step 4). A component *below* chance is inverted — it tells the branches apart
    and answers in the swapped convention — and is named; where J works it counts as working
    for the pattern (a label convention, not deafness). "Shortcut-like success" needs J on
    the units whose failed component is wrong to be beyond guessing there (`unperceived_j`,
    `beyond_guessing`)."""
    out = []
    cues = sorted((c for c in ev.states if c != "all"), key=_cue_rank)
    # A label convention does not change with the cue: a component is inverted only where it
    # is below chance at every cue it was asked under (one cue alone, at the 99 % level per
    # component and cue, named a coin's P or O inverted in 6 of 100 audits at 189 items).
    everywhere = {
        p: all((g := ev.acc(p, "pointwise", c)) is None or g[0].below(g[1]) for c in cues)
        for p in "PO"
    }
    for cue in cues:
        got = {p: ev.acc(p, "pointwise", cue) for p in "POJ"}
        if any(g is None for g in got.values()):
            continue
        marg = {p: g[0] for p, g in got.items() if g}
        above = {p: g[0].above(g[1]) for p, g in got.items() if g}
        inverted = [p for p in "PO" if (g := got[p]) and g[0].below(g[1]) and everywhere[p]]
        turns = [t for t in ev.turn_positions.get(cue, []) if t["position"] in POSITIONS]
        if (
            turns
            and "P" in inverted
            and not all(estimate(t).below(min(float(t.get("chance") or 0.5), 0.5)) for t in turns)
        ):
            # A whole multi-turn trajectory (every human turn right) falls below ½ for a merely
            # noisy listener (0.6 per turn, 3 turns: 22 %): inverted only where P is below ½ at
            # every turn position, i.e. turn by turn. Not below the deaf guesser there: at a
            # position both branches share (the first and last turns of a positional item) it
            # scores 100 %, and a listener hearing only the last turn, a coin on the middle
            # one, was called inverted in 10 of 100 audits that way.
            inverted.remove("P")
        judges = above["J"]
        # Inverted and J right: a label convention (it hears, and says so in swapped labels).
        # Inverted and J not right: it hears the branches apart as each other, and J follows
        # the wrong one; informative still, but the component fails (the known "perception"
        # judge, P 0 % and J 0 %, is a perception bottleneck).
        hears = above["P"] or ("P" in inverted and judges)
        maps = above["O"] or ("O" in inverted and judges)
        shortcut: tuple[int, int] | None = None
        if hears and maps:
            pattern = "all components work" if judges else "Potemkin"
            if inverted and judges:
                pattern = "inverted component"
        elif judges:
            failed = [p for p in "PO" if not above[p] and not (p in inverted and judges)]
            shortcut = unperceived_j(ev.states[cue], failed)
            beyond = beyond_guessing(*shortcut)
            pattern = "shortcut-like success" if beyond else "rests on the units it perceives"
        elif maps:
            pattern = "perception bottleneck"
        elif hears:
            pattern = "response-mapping bottleneck"
        else:
            pattern = "no component above chance"
        tested = above["P"] and above["O"] and judges
        over = over_represented(ev.states[cue]) if tested else []
        out.append(
            ComponentsAtCue(
                cue=cue,
                pattern=pattern,
                marginals=marg,
                above=above,
                inverted=inverted,
                dependence_tested=tested,
                over_represented=over,
                text=components_text(
                    cue,
                    pattern,
                    marg,
                    tested,
                    over,
                    ev.states[cue],
                    inverted=inverted,
                    shortcut=shortcut,
                    words=words_for(ev.task),
                ),
            )  # fmt: skip
        )
    return out


def behaviours(ev: Evidence, cue: str | None) -> list[Behaviour]:
    if cue is None:
        return []
    out: list[Behaviour] = []
    for direction in ("first", "second"):
        cells = sorted(
            (p for p in ev.position if p.get("direction") == direction and p["cue"] == cue),
            key=lambda p: (p["probe"] != "J", p["protocol"] != "pointwise", p["probe"]),
        )
        if cells:
            named = ", ".join(
                f"{p['probe']} {p['protocol']} {pct(p['rate'])} first-option picks"
                for p in cells[:3]
            )
            more = f" and {len(cells) - 3} more" if len(cells) > 3 else ""
            out.append(Behaviour(kind="position-biased", evidence=estimate(cells[0]),
                                 probes=sorted({p["probe"] for p in cells}),
                                 text=f"position-biased towards the {direction} option "
                                      f"({named}{more})"))  # fmt: skip
    gap = ev.order_gap.get(cue)
    if gap:
        d = estimate(gap)
        if d.rate is not None and abs(d.rate) >= ORDER_GAP_MIN and (d.above(0) or d.below(0)):
            ab, ba = estimate(gap.get("ab")), estimate(gap.get("ba"))
            which = "R1/R2 as given (ab)" if d.rate > 0 else "swapped (ba)"
            out.append(Behaviour(kind="order-dependent", evidence=d,
                                 text=f"order-dependent: right mostly when the responses are "
                                      f"{which} (J {pct(ab.rate)} in ab vs {pct(ba.rate)} in "
                                      f"ba, difference CI {ci(d, True)})"))  # fmt: skip
    b = ev.behaviour.get(cue, {})
    audio = estimate(b.get("audio_sensitivity"))
    deaf = audio.ci_high is not None and audio.ci_high < AUDIO_DEAF_MAX
    if deaf:
        out.append(Behaviour(kind="ignores the audio", evidence=audio,
                             text=f"ignores the audio (its pointwise choice changes in "
                                  f"{pct(audio.rate)} of branch pairs when only the audio "
                                  f"changes)"))  # fmt: skip
    jt = estimate(b.get("j_t_agreement"))
    if jt.above(0.5) and (jt.rate or 0) >= 0.75:
        out.append(Behaviour(kind="repeats its text-only choice", evidence=jt,
                             text=f"repeats its text-only choice (J–T agreement "
                                  f"{pct(jt.rate)}, CI {ci(jt)}; a judge that follows the "
                                  f"audio agrees half the time)"))  # fmt: skip
    # First / middle / last (per turn index rows are shown in the report, not decided on).
    turns = [t for t in ev.turn_positions.get(cue, []) if t["position"] in POSITIONS]
    if turns and not deaf and len(turns) >= 2:
        # Heard by the decision interval (three positions are asked of one judge), not heard
        # by the shown 95 % one: a wider interval makes "heard" harder to claim, and must not
        # make "not heard" easier (a judge hearing every turn at 80 % on 12 dialogues was
        # named in 43 of 200 audits when both read the widened interval, 4 with both at 95 %).
        # And not heard only where P there is below a heard turn's (paired by dialogue, at
        # 99 %): a low turn alone is no habit (a listener hearing every turn at 70 % had one
        # of three below ½ by chance, and "hears only some turns" named, in 36 of 100 audits
        # on 12 dialogues: benchmarks/small_samples.py).
        heard = [t for t in turns if estimate(t).above(0.5)]
        unheard = [
            t for t in turns
            if not (t.get("ci_low") or 0) > 0.5 and (t.get("rate") or 0) < TURN_UNHEARD_MAX
            and any(_below(t, h) for h in heard)
        ]  # fmt: skip
        if heard and unheard:
            out.append(Behaviour(kind="hears only some turns", text=turn_text(heard, turns)))
    return out


def _below(turn: Section, other: Section) -> bool:
    """P at `turn` is below P at `other`: the decision interval of their paired difference
    (`versus`, summary/sections.py) lies under 0; without that comparison, not below."""
    high = ((turn.get("versus") or {}).get(other["position"]) or {}).get("high")
    return high is not None and high < 0


def _diagnosis(
    native: Step,
    rec: Step,
    cue: Step,
    comps: list[ComponentsAtCue],
    habits: list[Behaviour],
    mostly_missing: bool = False,
) -> Diagnosis:
    if not native.ran:
        return "no answers"
    if mostly_missing:
        return "answers not given"
    here = next((c for c in comps if c.cue == native.cue), None)
    if native.outcome == "reliable":
        return "reliable"
    if native.outcome == "usable":
        if here is None or not here.dependence_tested:
            return "usable"
        if here.over_represented:
            return "usable, systematic failure mode"
        return "usable, no systematic failure mode"
    if rec.outcome == "recoverable":
        return "recoverable only in pairwise"
    if cue.outcome == "works only when cued":
        return "works only when cued"
    # A position habit explains native J's score only where J itself shows it; a habit on P or
    # O alone (a text-only judge answering "E1" for every turn) is listed, not the diagnosis.
    if any(h.kind == "position-biased" and "J" in h.probes for h in habits):
        return "position-biased"
    kinds = [h.kind for h in habits if h.kind != "position-biased"]
    for kind, name in (
        ("order-dependent", "order-dependent"),
        ("ignores the audio", "ignores the audio"),
        ("repeats its text-only choice", "ignores the audio"),
        ("answers without audio", "ignores the audio"),
        ("hears only some turns", "hears only some turns"),
    ):
        if kind in kinds:
            return name  # type: ignore[return-value]
    if here is not None and here.pattern in (
        "Potemkin",
        "perception bottleneck",
        "response-mapping bottleneck",
        "shortcut-like success",
    ):
        return here.pattern  # type: ignore[return-value]
    if any(h.kind == "position-biased" for h in habits):
        return "position-biased"
    return "below chance" if native.outcome == "below chance" else "at chance"


def _given_not_below(native: Step, g: Estimate | None) -> Step:
    """Rule 2 of stats/accounting.py: "below chance" needs given answers that are wrong. When
    the J answers that were given are not below chance, strict accuracy fell under it only by
    answers not given, and the step says at chance instead."""
    if g is not None and g.rate is not None and g.below(0.5):
        return native
    e = native.evidence["J"]
    said = f"the J answers it gave are right {pct(g.rate)}" if g and g.rate is not None else (
        "it gave no J answer"
    )  # fmt: skip
    text = (
        f"Native (pointwise J, cue {native.cue}): {pct(e.rate)} (CI {ci(e)}), under chance "
        f"only through answers not given ({said}): not systematically wrong."
    )
    return native.model_copy(update={"outcome": "at chance", "text": text})


def verdict(ev: Evidence) -> Verdict:
    """The cascade's verdict for one judge × task (rules in the module docstring)."""
    cue = native_cue(ev)
    native = native_step(ev, cue)
    accounting = ev.sections.get("accounting", [])
    if accounting and native.outcome == "below chance":
        native = _given_not_below(native, given(accounting, "J", "pointwise", cue or "all"))
    mostly = not_given_j(accounting, cue) if native.ran else None
    rec = recoverable_step(ev, cue, native)
    cued = cue_step(ev, cue, native)
    comps = components(ev)
    core = behaviours(ev, cue)
    # A registered analysis may find what the core already named (the re-ask unit's "ignores
    # the audio" beyond its own noise): said once.
    named = {h.kind for h in core}
    habits = core + [h for h in ev.unit_behaviours if h.kind not in named]
    diagnosis = _diagnosis(native, rec, cued, comps, habits, mostly is not None)
    here = next((c for c in comps if c.cue == cue), None)
    steps = [native.text, rec.text if rec.ran else "", cued.text if cued.ran else ""]
    steps += [c.text for c in comps]
    if habits:
        steps.append("Behaviours: " + "; ".join(h.text for h in habits) + ".")
    small = ev.items < SMALL_SAMPLE
    if small:
        steps.append(f"Small sample: {ev.items} items (< {SMALL_SAMPLE}); intervals are wide.")
    failed, asked = ev.failed_calls
    if failed:
        steps.append(
            f"{failed} of {asked} questions ended in call errors: every figure rests on the "
            "answered ones and units with a failed call are left out of order-consistent "
            "figures; resume the run to ask them again."
        )
    j = native.evidence.get("J")
    kind = "no answers" if not native.ran else _level(j or Estimate(), 0.5)
    group = PATTERN_GROUP.get(here.pattern) if here else None
    missing = [p for p in "PO" if cue is not None and ev.acc(p, "pointwise", cue) is None]
    head = headline(diagnosis, native, rec, cued, here, habits, reliable_low=RELIABLE_LOW,
                    missing=missing, states=ev.states.get(cue or ""))  # fmt: skip
    if mostly is not None:
        head = mostly_not_given_headline(*mostly)
    draws = [h for h in habits if h.kind == "one draw less accurate"]
    if draws:  # a majority's accuracy must not stand alone when one draw is less accurate
        head += f" ({draws[0].text.split(' (')[0]})"
    pulled = [h for h in habits if h.kind == "follows the text against the audio"]
    if pulled:  # a reliable listener that a wrong text overrides: the first line says so
        head += f" But it {pulled[0].text}."
    for h in habits:  # figures of another (or a changing) model: the first line says so
        if h.kind in ("answered by another model", "drifts during the run"):
            head += f" {h.text[0].upper()}{h.text[1:]}."
    lost = [h for h in habits if h.kind == "audio not delivered"]
    if lost:  # every figure above may rest on blind answers: the first line says so
        head += f" {lost[0].text[0].upper()}{lost[0].text[1:]}."
    # What a unit sets aside (the invariance audit's habits) follows the verdict's own words.
    aside = "".join(f" {title}: " + "; ".join(h.text for h in found) + "."
                    for title, found in ev.unit_asides.items())  # fmt: skip
    return Verdict(
        judge=ev.judge,
        task=ev.task,
        items=ev.items,
        small_sample=small,
        failed_calls=failed,
        diagnosis=diagnosis,
        headline=head,
        native=native,
        recoverable=rec,
        cue=cued,
        components=comps,
        behaviours=habits + [h for found in ev.unit_asides.values() for h in found],
        text=f"[{ev.items} items] " + " ".join(s for s in steps if s) + aside,
        kind=kind,
        group=group,
        j_accuracy=j,
    )


def invariance_behaviours(records: list[dict[str, Any]]) -> list[Behaviour]:
    """The invariance audit's habits for one judge × task (its per-change records from
    stats/invariance.py, variants pooled): each change it flips on, then — once — whether it
    is not discriminating (named with the change it flips on most)."""
    from paraudit.stats.verdict_text import flips_text, not_discriminating_text, words_for

    out: list[Behaviour] = []
    pooled = [r for r in records if r["pooled"]]
    words = words_for(pooled[0]["task"]) if pooled else None
    for r in sorted(pooled, key=lambda r: -(r["flip_rate"]["rate"] or 0.0)):
        if r["flips"]:
            flip, sens = Estimate(**r["flip_rate"]), Estimate(**r["sensitivity"])
            out.append(Behaviour(kind="flips on irrelevant changes", evidence=flip, probes=["J"],
                                 text=flips_text(r["change"], flip, sens, words)))  # fmt: skip
    blind = [r for r in pooled if r["not_discriminating"]]
    if blind:
        r = max(blind, key=lambda r: r["flip_rate"]["rate"] or 0.0)
        flip, sens = Estimate(**r["flip_rate"]), Estimate(**r["sensitivity"])
        said = not_discriminating_text(r["change"], flip, sens, words)
        gap = Estimate(**r["sensitivity_minus_flip"])
        out.append(Behaviour(kind="not discriminating", probes=["J"], evidence=gap, text=said))
    return out
