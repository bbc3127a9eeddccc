"""Every sentence a verdict says, made from the typed verdict's parts in this one place (the
terminal, the report and summary.json all show these strings)."""

from __future__ import annotations

from typing import Any

from paraudit.stats.model import Behaviour, ComponentsAtCue, Estimate, Step

GROUP_WORDS = {
    "reliable": "reliable (111)",
    "Potemkin": "Potemkin (110)",
    "component bottleneck": "component bottleneck (010/100)",
    "shortcut-like success": "shortcut-like success (001/011/101)",
    "full-stack failure": "full-stack failure (000)",
}


def pct(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "–"
    return f"{x:+.1%}" if signed else f"{x:.1%}"


def ci(e: Estimate, signed: bool = False) -> str:
    if e.ci_low is None or e.ci_high is None:
        return "–"
    sep = " to " if signed else "–"
    return f"{pct(e.ci_low, signed)}{sep}{pct(e.ci_high, signed)}"


def _pox(marginals: dict[str, Estimate]) -> str:
    return ", ".join(f"{p} {pct(marginals[p].rate)}" for p in "POJ" if p in marginals)


def components_text(
    cue: str,
    pattern: str,
    marginals: dict[str, Estimate],
    tested: bool,
    over: list[str],
    states: dict[str, Any],
) -> str:
    head = f"Components (cue {cue}): {_pox(marginals)}"
    if pattern == "all components work":
        if over:
            g = over[0]
            d = states["dependence"]["groups"][g]
            return (
                f"{head}; failures co-occur: {GROUP_WORDS.get(g, g)} holds {d['units']} units "
                f"against {d['expected']:.1f} if P, O and J failed independently (permutation "
                f"test over items, family-wise p = {d['p_value']:.3f}): a systematic failure "
                "mode."
            )
        return f"{head}; failures look independent: no systematic failure mode."
    words = {
        "Potemkin": "Potemkin: perceives the cue and maps it when told, but fails to compose "
        "them in the native judgment",
        "perception bottleneck": "perception bottleneck: maps the cue when told, but does not "
        "hear it",
        "response-mapping bottleneck": "response-mapping bottleneck: hears the cue, but cannot "
        "map it to the response",
        "shortcut-like success": "shortcut-like success: right natively without the component "
        "it should rest on",
        "no component above chance": "no component above chance",
    }[pattern]
    return f"{head}: {words}."


def turn_text(heard: list[dict[str, Any]], turns: list[dict[str, Any]]) -> str:
    names = " and ".join(t["position"] for t in heard)
    by = ", ".join(f"{t['position']} {pct(t.get('rate'))}" for t in turns)
    plural = "s" if len(heard) > 1 else ""
    return f"hears only the {names} human turn{plural} (P by turn position: {by})"


def null_audio_text(flagged: list[dict[str, Any]]) -> str:
    """The "answers without audio" behaviour (stats/null_audio.py): the flagged cells."""
    cells = ", ".join(
        f"{c['asks']} on {c['null']} {pct(c['agreement']['rate'])} "
        f"[{ci(Estimate(**c['agreement']))}], {pct(c['confident']['rate'])} confident"
        for c in flagged
    )
    return (
        "answers without audio: with the context replaced by null audio it gives the answers it "
        f"gives on the real audio ({cells} agreement; a judge that hears agrees ½)"
    )


def _why(
    diagnosis: str,
    rec: Step,
    cue: Step,
    here: ComponentsAtCue | None,
    habits: list[Behaviour],
) -> str:
    if diagnosis == "recoverable only in pairwise":
        e, g = rec.evidence["pairwise J"], rec.evidence["protocol gap"]
        return (
            f"the contrast is recoverable in pairwise (J {pct(e.rate)}, gap "
            f"{pct(g.rate, True)} [{ci(g, True)}]) but not deployed natively"
        )
    if diagnosis == "works only when cued":
        e, d = cue.evidence[f"J {cue.cue}"], cue.evidence["cue dependence"]
        return f"works only when cued ({cue.cue}: J {pct(e.rate)}, {pct(d.rate, True)} over no cue)"
    if diagnosis == "position-biased":
        # The habit J shows first (the diagnosis names it only then), else any.
        pos = [h for h in habits if h.kind == "position-biased"]
        pos.sort(key=lambda h: "J" not in h.probes)
        if pos:
            return pos[0].text
    wanted = {
        "order-dependent": ("order-dependent",),
        "ignores the audio": (
            "ignores the audio",
            "repeats its text-only choice",
            "answers without audio",
        ),
        "hears only some turns": ("hears only some turns",),
    }.get(diagnosis, ())
    for kind in wanted:
        found = [h for h in habits if h.kind == kind]
        if found:
            return found[0].text
    if here is not None and diagnosis == here.pattern:
        return here.text.split(": ", 2)[-1].rstrip(".")
    if diagnosis == "below chance":
        return "it picks the wrong response more often than a guess"
    return "no component is above chance and no habit explains it: it behaves like a guess"


def headline(
    diagnosis: str,
    native: Step,
    rec: Step,
    cue: Step,
    here: ComponentsAtCue | None,
    habits: list[Behaviour],
    *,
    reliable_low: float,
) -> str:
    """One line: can this judge be used natively, and if not, why. `reliable_low`: the
    cascade's bar (verdicts.RELIABLE_LOW, passed in: that module imports this one)."""
    if not native.ran:
        return "No pointwise J answers: run the J probe to judge this task."
    j = native.evidence["J"]
    jt = f"J {pct(j.rate)} [{ci(j)}]"
    if diagnosis == "reliable":
        return (
            f"Reliable natively: {jt}, lower bound ≥ {100 * reliable_low:.0f} % (cue {native.cue})."
        )
    if diagnosis.startswith("usable"):
        tail = {
            "usable": "run P and O to see which component fails",
            "usable, no systematic failure mode": "failures look independent, no systematic "
            "failure mode",
        }.get(diagnosis)
        if tail is None and here is not None:
            tail = f"systematic failure mode: {here.over_represented[0]} over-represented"
        return f"Usable natively but not reliable ({jt}): {tail}."
    level = native.outcome
    return f"Not usable natively ({jt}, {level}): {_why(diagnosis, rec, cue, here, habits)}."


def delivery_text(flagged: int, detail: str) -> str:
    """The audio-delivery behaviour: how many calls, and what the usage showed."""
    return f"audio not delivered in {flagged:,} call{'s' * (flagged != 1)} ({detail})"


CHANGE_WORDS = {
    "voice": "voice",
    "loudness": "loudness",
    "rate": "speaking-rate",
    "noise": "light-noise",
    "samplerate": "sample-rate",
}


def flips_text(change: str, flip: Estimate, sensitivity: Estimate) -> str:
    """'flips on loudness changes 38 %' and what the relevant change moves, for comparison."""
    word = CHANGE_WORDS.get(change, change)
    return (
        f"flips on {word} changes {pct(flip.rate)} (CI {ci(flip)}; its choice follows the "
        f"emotion in {pct(sensitivity.rate)} of branch pairs)"
    )


def not_discriminating_text(change: str, flip: Estimate, sensitivity: Estimate) -> str:
    word = CHANGE_WORDS.get(change, change)
    return (
        f"not discriminating: changes its choice on {word} changes ({pct(flip.rate)}) about as "
        f"often as when the emotion changes ({pct(sensitivity.rate)})"
    )
