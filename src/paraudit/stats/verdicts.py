"""One verdict per judge × task, in a fixed order of precedence.

1. No pointwise J answer: nothing to judge.
2. J's item-level interval covers 50 %: "at chance" — the (P, O, J) breakdown of a judge that
   guesses is not interpretable (a judge at chance lands 3/8 of its units in the shortcut group
   by construction), so no component verdict is given; the behaviour that explains the chance
   score is named instead (position bias, deafness to the audio, repeating its text-only choice).
3. Otherwise the state group whose mass most exceeds what independent P, O and J with the same
   marginals would give (its excess and interval named). When no group exceeds independence
   (its interval's lower end above 0), P, O and J fail independently and the largest group is
   named as such — a perfect judge is "reliable" with 100 % in 111, and independence predicts
   exactly that.
Below 30 items a task's verdict says the sample is small.
"""

from __future__ import annotations

from typing import Any

from paraudit.stats.states import GROUPS

SMALL_SAMPLE = 30
BIAS_DISTANCE = 0.4
"""|share of first-option picks − ½| at which a cell is flagged as position-biased."""
AUDIO_DEAF_MAX = 0.1
"""Upper end of the audio-sensitivity interval below which a judge ignores the audio."""

Section = dict[str, Any]


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.1%}"


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _ci(d: Section) -> str:
    return f"{_pct(d.get('ci_low'))}–{_pct(d.get('ci_high'))}"


def position_direction(share: Section) -> str | None:
    """'first' or 'second' when a share of first-option picks is extreme and its interval
    excludes ½; None otherwise."""
    rate, lo, hi = share.get("rate"), share.get("ci_low"), share.get("ci_high")
    if rate is None or lo is None or hi is None or abs(rate - 0.5) < BIAS_DISTANCE:
        return None
    if lo <= 0.5 <= hi:
        return None
    return "first" if rate > 0.5 else "second"


def explanations(position: list[Section], audio: Section | None, jt: Section | None) -> list[str]:
    """The behaviours that can explain a score: position bias, deafness, text-only repeating."""
    out = []
    for direction in ("first", "second"):
        cells = [p for p in position if p.get("direction") == direction]
        if cells:
            named = ", ".join(
                f"{p['probe']} {p['protocol']} {p['cue']} {_pct(p['rate'])}" for p in cells[:4]
            )
            more = f" and {len(cells) - 4} more" if len(cells) > 4 else ""
            out.append(f"position-biased towards the {direction} option ({named}{more})")
    if audio and audio.get("ci_high") is not None and audio["ci_high"] < AUDIO_DEAF_MAX:
        out.append(
            f"ignores the audio (its pointwise choice changes in {_pct(audio['rate'])} of "
            "branch pairs when only the audio changes)"
        )
    if jt and jt.get("ci_low") is not None and jt["ci_low"] > 0.5 and jt["rate"] >= 0.75:
        out.append(
            f"repeats its text-only choice (J–T agreement {_pct(jt['rate'])}, CI {_ci(jt)}; "
            "a judge that follows the audio agrees half the time)"
        )
    return out


def choose_group(states: Section) -> tuple[str, bool]:
    """(group, exceeds): the group with the largest excess over independence whose interval
    is above 0, else the largest group by mass (exceeds=False)."""
    exceeding = [
        g for g in GROUPS if (states["excess"][g].get("ci_low") or 0.0) > 0 and states["units"]
    ]
    if exceeding:
        return max(exceeding, key=lambda g: states["excess"][g]["rate"]), True
    return max(GROUPS, key=lambda g: states["groups"][g]["rate"] or 0.0), False


def _state_sentence(states: Section) -> tuple[str, str]:
    group, exceeds = choose_group(states)
    mass = states["groups"][group]
    expected = states["expected"][group]
    excess = states["excess"][group]
    name = group
    if group == "component bottleneck":
        m = states["masses"]
        name = (
            "perception bottleneck (010)"
            if (m["010"]["rate"] or 0) >= (m["100"]["rate"] or 0)
            else "response-mapping bottleneck (100)"
        )
    share = f"{_pct(mass['rate'])} of units (CI {_ci(mass)})"
    if exceeds:
        text = (
            f"Most over-represented state group: {name} — {share}, {excess['rate']:+.1%} over "
            f"the {_pct(expected['rate'])} that independent P, O and J would give (excess CI "
            f"{excess['ci_low']:+.1%} to {excess['ci_high']:+.1%})."
        )
    else:
        text = (
            f"No state group exceeds what independent P, O and J would give; the largest is "
            f"{name} — {share} (independence: {_pct(expected['rate'])})."
        )
    return group, text


def verdict(
    judge: str,
    task: str,
    items: int,
    j: Section | None,
    states: Section | None,
    position: list[Section],
    audio: Section | None,
    jt: Section | None,
    failed_calls: tuple[int, int] = (0, 0),
) -> Section:
    """The verdict record for one judge × task (see the module docstring for the rules).
    `failed_calls` = (calls that ended in errors, all questions): named in the text, since
    every figure then rests on the answered calls only."""
    why = explanations(position, audio, jt)
    out: Section = {
        "judge": judge,
        "task": task,
        "items": items,
        "small_sample": items < SMALL_SAMPLE,
        "behaviours": why,
        "group": None,
        "failed_calls": failed_calls[0],
        "j_accuracy": None if j is None else {k: j[k] for k in ("accuracy", "ci_low", "ci_high")},
    }
    if j is None or j["accuracy"] is None:
        out["kind"] = "no answers"
        text = "No pointwise J answer: run the J probe (pointwise) to judge this task."
    elif j["ci_low"] is not None and j["ci_low"] <= 0.5 <= j["ci_high"]:
        out["kind"] = "at chance"
        text = (
            f"At chance (J {_pct(j['accuracy'])}, CI {_ci(j)}): the state breakdown is not "
            "interpretable."
        )
        text += (
            " " + _cap("; ".join(why)) + "."
            if why
            else " No position bias or deafness to the audio explains it: it behaves like a guess."
        )
    elif states is None or not states["units"]:
        out["kind"] = "no states"
        text = (
            f"J {_pct(j['accuracy'])} (CI {_ci(j)}); no (P, O, J) states: run the P and O "
            "probes (pointwise) to diagnose it."
        )
    else:
        out["kind"] = "state"
        out["group"], text = _state_sentence(states)
        text += f" J {_pct(j['accuracy'])} (CI {_ci(j)})."
        if why:
            text += " Also: " + "; ".join(why) + "."
    if out["small_sample"]:
        text += f" Small sample: {items} items (< {SMALL_SAMPLE}); intervals are wide."
    if failed_calls[0]:
        text += (
            f" {failed_calls[0]} of {failed_calls[1]} questions ended in call errors: every "
            "figure rests on the answered ones and units with a failed call are left out of "
            "order-consistent figures; resume the run to ask them again."
        )
    out["text"] = f"[{items} items] {text}"
    return out
