"""Every sentence a verdict says, made from the typed verdict's parts in this one place (the
terminal, the report and summary.json all show these strings)."""

from __future__ import annotations

from functools import cache
from typing import Any

from paraudit.dimensions.base import Dimension, Words
from paraudit.dimensions.emotion import EMOTION
from paraudit.stats.model import Behaviour, ComponentsAtCue, Estimate, Step

EMOTION_WORDS: Words = EMOTION.words
"""How verdict prose names emotion (dimensions/emotion.py): the words of any task no installed
dimension declares (`words_for`)."""
WORDS = EMOTION_WORDS


@cache
def dimension_for(task: str) -> Dimension | None:
    """The installed dimension that declares this task (`single-turn-whisper` → whisper); None
    for a task none declares (the paper's custom names) or whose plugin fails to load."""
    from paraudit.dimensions.registry import DimensionError, get, names

    for name in names():
        try:
            dim = get(name)
        except DimensionError:
            continue
        kinds = ("single-turn", "positional", "conversation")
        if task in {dim.task_for(k) for k in dim.item_kinds if k in kinds}:
            return dim
    return None


def words_for(task: str) -> Words:
    """The words of the dimension whose task this is (`single-turn-whisper` → whisper's): a
    task name no installed dimension declares, or a plugin that fails to load, reads as
    emotion (the paper's tasks and custom names)."""
    dim = dimension_for(task)
    return EMOTION_WORDS if dim is None else dim.words


def value_phrase(task: str, value: str) -> str:
    """A stratum of the task's values in its dimension's words ('when the user sounds calm';
    `Words.value_phrase`, which may name the value's `{description}` too). Emotion keeps the
    sentence its verdicts have always said, 'when the user is angry'."""
    dim = dimension_for(task)
    if dim is None or dim.words is EMOTION_WORDS:
        return f"when the user is {value}"
    description = next((v.description for v in dim.values if v.name == value), value)
    return dim.words.value_phrase.format(value=value, description=description)


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


def bottleneck_split(states: dict[str, Any]) -> tuple[int, int]:
    """(010 perception units, 100 mapping units) of a states record."""
    units = int(states.get("units") or 0)
    masses = states.get("masses") or {}
    return tuple(  # type: ignore[return-value]
        round(((masses.get(s) or {}).get("rate") or 0.0) * units) for s in ("010", "100")
    )


def group_name(g: str, states: dict[str, Any] | None, codes: bool = True) -> str:
    """A state group in words (with its state codes unless `codes` is False); the bottleneck
    group says which component holds its mass."""
    name = GROUP_WORDS.get(g, g) if codes else g
    if g != "component bottleneck" or not states:
        return name
    perception, mapping = bottleneck_split(states)
    if perception + mapping == 0:
        return name
    which = "010 perception" if perception >= mapping else "100 mapping"
    most = max(perception, mapping)
    return f"{name}, mostly {which} ({most} of its {perception + mapping} units)"


def _inverted_text(inverted: list[str], marginals: dict[str, Estimate]) -> str:
    return "; ".join(
        f"{p} inverted ({pct(marginals[p].rate)}, below chance, so it tells the branches apart "
        "in the swapped convention; informative, not deaf)"
        for p in inverted
    )


def components_text(
    cue: str,
    pattern: str,
    marginals: dict[str, Estimate],
    tested: bool,
    over: list[str],
    states: dict[str, Any],
    *,
    inverted: list[str] | None = None,
    shortcut: tuple[int, int] | None = None,
    words: Words = EMOTION_WORDS,
) -> str:
    head = f"Components (cue {cue}): {_pox(marginals)}"
    if inverted:
        head += f"; {_inverted_text(inverted, marginals)}"
    if pattern == "all components work":
        if over:
            g = over[0]
            d = states["dependence"]["groups"][g]
            return (
                f"{head}; failures co-occur: {group_name(g, states)} holds {d['units']} units "
                f"against {d['expected']:.1f} if P, O and J failed independently (permutation "
                f"test over items, family-wise p = {d['p_value']:.3f}): a systematic failure "
                "mode."
            )
        return f"{head}; failures look independent: no systematic failure mode."
    right, total = shortcut or (0, 0)
    on = f"J right in every order on {right} of the {total} units where that component is wrong"
    said = {
        "Potemkin": "Potemkin: perceives the cue and maps it when told, but fails to compose "
        "them in the native judgment",
        "perception bottleneck": "perception bottleneck: maps the cue when told, but "
        f"{words.does_not_hear}",
        "response-mapping bottleneck": "response-mapping bottleneck: hears the cue, but cannot "
        "map it to the response",
        "shortcut-like success": "shortcut-like success: right natively without the component "
        f"it should rest on ({on}, beyond the ½ guessing there gives)",
        "rests on the units it perceives": "J above chance but not beyond guessing on the "
        f"units it did not perceive ({on}; guessing gives up to ½): no shortcut, its right "
        "answers rest on the units it perceives",
        "inverted component": "every component is informative",
        "no component above chance": "no component above chance",
    }[pattern]
    return f"{head}: {said}."


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
    missing: list[str] | None = None,
    states: dict[str, Any] | None = None,
) -> str:
    """One line: can this judge be used natively, and if not, why. `reliable_low`: the
    cascade's bar (verdicts.RELIABLE_LOW, passed in: that module imports this one); `missing`:
    the component probes (P, O) that did not run at the native cue — the only ones it may
    advise running; `states`: the native cue's states record (names the bottleneck's mass).
    Answers not given (stats/accounting.py) are named in the line, with the given answers'
    accuracy."""
    if not native.ran:
        return "No pointwise J answers: run the J probe to judge this task."
    j = native.evidence["J"]
    jt = f"J {pct(j.rate)} [{ci(j)}]"
    lost = [h.text for h in habits if h.kind == "answers not given"]
    said = "; ".join(lost)
    if diagnosis == "reliable":
        line = (
            f"Reliable natively: {jt}, lower bound ≥ {100 * reliable_low:.0f} % (cue {native.cue})."
        )
        return f"{line} {said[0].upper()}{said[1:]}." if lost else line
    if diagnosis.startswith("usable"):
        if missing:
            tail: str | None = f"run {' and '.join(missing)} to see which component fails"
        elif diagnosis == "usable":
            tail = (
                here.text.split(": ", 1)[-1].rstrip(".")
                if here is not None
                else "its components cannot be attributed at this cue"
            )
        else:
            tail = {
                "usable, no systematic failure mode": "failures look independent, no "
                "systematic failure mode",
            }.get(diagnosis)
        if tail is None and here is not None:
            g = here.over_represented[0]
            tail = f"systematic failure mode: {group_name(g, states, False)} over-represented"
        if lost and diagnosis != "usable, systematic failure mode":
            tail = said  # the non-answers, not independent failures, are what it shows
        elif lost:
            tail = f"{tail}; {said}"
        return f"Usable natively but not reliable ({jt}): {tail}."
    level = native.outcome
    line = f"Not usable natively ({jt}, {level}): {_why(diagnosis, rec, cue, here, habits)}."
    return f"{line} {said[0].upper()}{said[1:]}." if lost else line


def delivery_text(flagged: int, detail: str) -> str:
    """The audio-delivery behaviour: how many calls, and what the usage showed."""
    return f"audio not delivered in {flagged:,} call{'s' * (flagged != 1)} ({detail})"


CHANGE_WORDS = {
    "voice": "voice",
    "loudness": "loudness",
    "rate": "speaking-rate",
    "noise": "light-noise",
    "samplerate": "sample-rate",
    "speaker": "speaker",
    "telephone": "telephone-line",
    "reverb": "room-reverberation",
}


def flips_text(
    change: str, flip: Estimate, sensitivity: Estimate, words: Words | None = None
) -> str:
    """'flips on loudness changes 38 %' and what the relevant change moves, for comparison,
    in the task's dimension's `words` (emotion's when None)."""
    word = CHANGE_WORDS.get(change, change)
    return (
        f"flips on {word} changes {pct(flip.rate)} (CI {ci(flip)}; its choice follows the "
        f"{(words or WORDS).noun} in {pct(sensitivity.rate)} of branch pairs)"
    )


def not_discriminating_text(
    change: str, flip: Estimate, sensitivity: Estimate, words: Words | None = None
) -> str:
    word = CHANGE_WORDS.get(change, change)
    return (
        f"not discriminating: changes its choice on {word} changes ({pct(flip.rate)}) about as "
        f"often as when the {(words or WORDS).noun} changes ({pct(sensitivity.rate)})"
    )
