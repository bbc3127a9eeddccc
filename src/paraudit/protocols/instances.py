"""Item → instances: every question put to a judge, with its gold answer.

An instance is one (item, probe, protocol, cue, presentation, branch) cell of the audit plan. Its
prompt is the exact sequence of parts sent; its `question` says the same thing as data (answer
kind, options, clip roles), so parsing and the built-in judges never read the prompt's wording.

Presentation is counterbalanced: `order` swaps the responses (R1/R2) and, for pairwise,
`context_order` swaps which branch's context is shown as CA, so a fixed habit ("R1", "CA gets
the first response") lands at chance instead of passing for skill.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field, replace
from pathlib import Path

from paraudit.items.dataset import Dataset
from paraudit.items.records import DEFAULT_DIMENSION, AuditItem
from paraudit.items.taxonomy import item_dimension
from paraudit.protocols.paper_prompts import fill
from paraudit.protocols.parts import AudioPart, Part, Prompt, TextPart
from paraudit.protocols.pressure import MISLEADING, can_mislead, misleading_cue, misleading_value
from paraudit.protocols.questions import (
    AnswerKind,
    ClipRole,
    Probe,
    Protocol,
    Question,
    TextTurn,
    annotation_for,
    form_for,
    item_dimension_name,
    perception_head,
    question_head,
    shape_of,
    value_words,
)
from paraudit.protocols.ties import TIE, is_tie, with_tie_option

PROBES: tuple[Probe, ...] = ("J", "P", "O", "S", "T", "N")
PROTOCOLS: tuple[Protocol, ...] = ("pointwise", "pairwise")
CUES = ("none", "soft", "hard", "transition")
EXTRA_CUES = (MISLEADING,)
"""Cues asked only when named (issue 32): the default plan and the demo stay as they were."""
ORDERS = ("ab", "ba")
CONTEXT_ORDERS = ("ab", "ba")
SPEAKER_NAMES = {"human": "human", "assistant": "voice assistant"}

Presentation = tuple[str | None, str]
"""(context_order, order): context_order is None for pointwise."""


@dataclass(frozen=True)
class Instance:
    """One question to a judge and its gold answer."""

    item_id: str
    task: str
    probe: Probe
    protocol: Protocol
    cue: str
    order: str
    """Response order. 'ab': R1/E1 is branch 0's; 'ba': swapped. Measures position bias."""
    branch: int | None
    """The branch whose audio (or labels) C carries; None for pairwise."""
    prompt: Prompt
    gold: str | dict[str, str]
    """'R1'/'R2', or {'CA': .., 'CB': ..}, or {'C1': 'E1', ...} for human turns."""
    question: Question = field(compare=False)
    """The question as data: what judges with `reads_question` and the parser read."""
    context_order: str | None = None
    """Pairwise only. 'ab': CA is branch 0's context; 'ba': CA is branch 1's."""
    asks: Probe | None = None
    """Probe N only: the question it asks ('P' or 'J'; `question.probe` is the same)."""
    null: str | None = None
    """Probe N only: what replaced the context clips ('silence' or 'noise')."""

    @property
    def answer(self) -> AnswerKind:
        return self.question.answer

    @property
    def options(self) -> dict[str, str]:
        """What each offered label stands for (e.g. E1 → 'neutral')."""
        return self.question.options

    @property
    def instance_id(self) -> str:
        b = "-" if self.branch is None else str(self.branch)
        ctx = "" if self.context_order is None else f"|ctx-{self.context_order}"
        null = "" if self.null is None else f"|{self.asks}-{self.null}"
        return f"{self.item_id}|{self.probe}|{self.protocol}|{self.cue}|{self.order}{ctx}|{b}{null}"


def is_multi_turn(item: AuditItem) -> bool:
    return shape_of(item.task) == "multi-turn"


def cues_for(
    item: AuditItem, probe: Probe, cues: tuple[str, ...], protocol: Protocol | None = None
) -> list[str]:
    """The cues that exist for this item and probe (transition is multi-turn only; T has none;
    misleading only for pointwise J on items that can state the other branch's value)."""
    if probe == "T":
        return ["none"] if "none" in cues else []
    mislead = probe == "J" and protocol == "pointwise" and can_mislead(item)
    return [
        c
        for c in cues
        if (c != "transition" or is_multi_turn(item)) and (c != MISLEADING or mislead)
    ]


def _resp_order(order: str) -> tuple[int, int]:
    return (0, 1) if order == "ab" else (1, 0)


def _ctx_order(context_order: str | None) -> tuple[int, int]:
    return (0, 1) if context_order in (None, "ab") else (1, 0)


def _choice_gold(branch: int, order: str) -> str:
    return "R1" if _resp_order(order)[0] == branch else "R2"


def _matching_gold(context_order: str | None, order: str) -> dict[str, str]:
    ca = _ctx_order(context_order)[0]
    ca_label = "R1" if _resp_order(order)[0] == ca else "R2"
    return {"CA": ca_label, "CB": "R2" if ca_label == "R1" else "R1"}


class _Layout:
    """Builds a prompt and, beside it, the role of every clip and every text turn."""

    def __init__(self, head: str) -> None:
        self.parts: list[Part] = [TextPart(head)]
        self.clips: list[ClipRole] = []
        self.turns: list[TextTurn] = []

    def text(self, text: str) -> None:
        self.parts.append(TextPart(text))

    def clip(self, ds: Dataset, rel: str, role: ClipRole) -> None:
        part = ds.clip_parts.get(rel)
        if part is None:
            part = ds.clip_parts[rel] = AudioPart(ds.audio_path(rel), Path(rel).stem)
        self.parts.append(part)
        self.clips.append(role)

    def context_audio(self, ds: Dataset, item: AuditItem, branch: int, conv: str) -> None:
        """A conversation's turns as labelled clips (multi-turn) or one labelled clip."""
        audio = item.branches[branch].audio
        if not is_multi_turn(item):
            self.text(f"{conv}:")
            self.clip(ds, audio[0], ClipRole(conv, 1, "human"))
            return
        for t, (turn, rel) in enumerate(zip(item.context, audio, strict=True), 1):
            self.text(f"Conversation {conv} turn {t} ({SPEAKER_NAMES[turn.speaker]}) clip")
            self.clip(ds, rel, ClipRole(conv, t, turn.speaker))

    def response_audio(self, ds: Dataset, item: AuditItem, order: str) -> None:
        for label, b in zip(("R1", "R2"), _resp_order(order), strict=True):
            self.text(f"{label}:")
            self.clip(ds, item.branches[b].response.audio, ClipRole(label, None, "assistant"))

    def transcript(
        self,
        item: AuditItem,
        emotions: tuple[str, ...] | None,
        conv: str,
        annotation: str = "emotion: {value}",
        humans_only: bool = False,
    ) -> str:
        """`humans_only`: annotate only the human turns (a dimension other than emotion, whose
        notes say what the *user* did; emotion's paper prompts label every turn)."""
        lines = []
        for t, turn in enumerate(item.context, 1):
            emotion = emotions[t - 1] if emotions else None
            if humans_only and turn.speaker != "human":
                emotion = None
            self.turns.append(TextTurn(conv, t, turn.speaker, turn.text, emotion))
            if is_multi_turn(item):
                line = f"{conv} turn {t} ({SPEAKER_NAMES[turn.speaker]}): transcript: {turn.text}"
            else:
                line = f"{conv}: transcript: {turn.text}"
            lines.append(line + (" " + annotation.format(value=emotion) if emotion else ""))
        return "\n".join(lines)

    def question(
        self,
        item: AuditItem,
        probe: Probe,
        protocol: Protocol,
        cue: str,
        options: dict[str, str],
        human_keys: tuple[str, ...] = (),
    ) -> Question:
        return Question(
            task=item.task,
            probe=probe,
            protocol=protocol,
            cue=cue,
            answer=form_for(item.task, probe, protocol).answer,
            options=options,
            clips=tuple(self.clips),
            context=tuple(self.turns),
            human_keys=human_keys,
        )


_AUDIO_OPTIONS = {"R1": "", "R2": ""}


def j_instance(
    ds: Dataset,
    item: AuditItem,
    protocol: Protocol,
    cue: str,
    order: str,
    branch: int | None,
    context_order: str | None = None,
    prompts: str = "paper",
) -> Instance:
    form = form_for(item.task, "J", protocol)
    stated = None
    if cue == MISLEADING:  # the cue names the other branch's value (protocols/pressure.py)
        assert protocol == "pointwise" and branch is not None
        stated = misleading_value(item, branch)
        head = fill(
            form.template, cue=misleading_cue(item, branch, item_dimension(item, ds.manifest))
        )
    else:
        head = question_head(form, cue, item_dimension(item, ds.manifest))
    ties = prompts == "ties"  # protocols/ties.py
    lay = _Layout(with_tie_option(head) if ties else head)
    gold: str | dict[str, str]
    if protocol == "pointwise":
        assert branch is not None
        lay.context_audio(ds, item, branch, "C")
        gold = TIE if ties and is_tie(item) else _choice_gold(branch, order)
    else:
        ca, cb = _ctx_order(context_order)
        lay.context_audio(ds, item, ca, "CA")
        lay.context_audio(ds, item, cb, "CB")
        gold = TIE if ties and is_tie(item) else _matching_gold(context_order, order)
    lay.response_audio(ds, item, order)
    options = {**_AUDIO_OPTIONS, TIE: TIE} if ties else dict(_AUDIO_OPTIONS)
    q = lay.question(item, "J", protocol, cue, options)
    if stated is not None:
        q = replace(q, cue_value=stated)
    return Instance(
        item.id,
        item.task,
        "J",
        protocol,
        cue,
        order,
        branch,
        tuple(lay.parts),
        gold,
        q,
        context_order if protocol == "pairwise" else None,
    )


def p_pair(item: AuditItem, branch: int) -> tuple[str, str]:
    """The two emotions P offers for `branch`, before and after its shift (single-turn: the two
    branches' emotions). A branch without a shift borrows the other branch's second emotion."""
    if not is_multi_turn(item):
        return item.branches[0].emotions[0], item.branches[1].emotions[0]
    humans = item.human_turns()
    seen = list(dict.fromkeys(item.branches[branch].emotions[i] for i in humans))
    if len(seen) < 2:
        other = item.branches[1 - branch].emotions
        seen += [e for e in dict.fromkeys(other[i] for i in humans) if e not in seen]
    return seen[0], seen[1]


def p_instance(ds: Dataset, item: AuditItem, cue: str, order: str, branch: int) -> Instance:
    emotions = item.branches[branch].emotions
    pair = p_pair(item, branch)
    e1, e2 = pair if order == "ab" else pair[::-1]
    lay = _Layout(question_head(form_for(item.task, "P", "pointwise"), cue))
    if not is_multi_turn(item):
        # Another dimension asks in its own words and may show a value as something else
        # (emphasis: the stressed word); emotion keeps the paper's prompt byte for byte.
        shown = value_words(item)
        w1, w2 = shown.get(e1, e1), shown.get(e2, e2)
        head = perception_head(item_dimension_name(item, ds.manifest), cue, (w1, w2))
        if head is not None:
            lay = _Layout(head)
        lay.text(f"R1 = {w1}\nR2 = {w2}")
        lay.context_audio(ds, item, branch, "C")
        gold: str | dict[str, str] = "R1" if emotions[0] == e1 else "R2"
        q = lay.question(item, "P", "pointwise", cue, {"R1": w1, "R2": w2})
    else:
        # Another dimension's positional P in its own words; emotion's stays the paper's.
        dim = item_dimension_name(item, ds.manifest)
        lay = _Layout(question_head(form_for(item.task, "P", "pointwise"), cue, dim))
        lay.context_audio(ds, item, branch, "C")
        lay.text(f"E1 = {e1}\nE2 = {e2}")
        humans = item.human_turns()
        gold = {f"C{i + 1}": ("E1" if emotions[i] == e1 else "E2") for i in humans}
        keys = tuple(f"C{i + 1}" for i in humans)
        q = lay.question(item, "P", "pointwise", cue, {"E1": e1, "E2": e2}, keys)
    return Instance(
        item.id, item.task, "P", "pointwise", cue, order, branch, tuple(lay.parts), gold, q
    )


def p_labels(
    inst: Instance, pred: str | dict[str, str], emotions: tuple[str, ...]
) -> tuple[str, ...]:
    """Turn a P prediction into per-context-turn emotion names: the human turns as the judge
    perceived them, every other turn as the item labels it (`emotions`, the branch's own)."""
    if isinstance(pred, str):
        return (inst.options[pred],)
    labels = list(emotions)
    for key, lab in pred.items():
        labels[int(key[1:]) - 1] = inst.options[lab]
    return tuple(labels)


def text_instance(
    item: AuditItem,
    probe: Probe,
    protocol: Protocol,
    cue: str,
    order: str,
    branch: int | None,
    staged: dict[int, tuple[str, ...]] | None = None,
    context_order: str | None = None,
    annotation: str | None = None,
    dimension: str | None = None,
) -> Instance:
    """O (true emotions), S (the judge's own P predictions, in `staged`) and T (no emotions).

    `annotation` is how a turn's label is written after its transcript (`annotation_for`: the
    dimension's words); `dimension` words the cue and the prompt's description of that label.
    None reads either from the item (emotion unless it names a dimension)."""
    note = annotation if annotation is not None else annotation_for(item)
    dim = dimension if dimension is not None else item_dimension_name(item)

    def emos(b: int) -> tuple[str, ...] | None:
        if probe == "T":
            return None
        if probe == "S":
            assert staged is not None
            return staged[b]
        shown = value_words(item)  # emphasis: the stressed word, as P offered it
        return tuple(shown.get(e, e) for e in item.branches[b].emotions)

    lay = _Layout(question_head(form_for(item.task, probe, protocol), cue, dim))
    others = dim != DEFAULT_DIMENSION  # its notes are on the user's turns only
    gold: str | dict[str, str]
    if protocol == "pointwise":
        assert branch is not None
        body = lay.transcript(item, emos(branch), "C", note, others)
        gold = _choice_gold(branch, order)
    else:
        ca, cb = _ctx_order(context_order)
        body = (
            lay.transcript(item, emos(ca), "CA", note, others)
            + "\n"
            + lay.transcript(item, emos(cb), "CB", note, others)
        )
        gold = _matching_gold(context_order, order)
    a, b = _resp_order(order)
    r1, r2 = item.branches[a].response.text, item.branches[b].response.text
    head = lay.parts[0]
    assert isinstance(head, TextPart)
    text = f"{head.text}\n{body}\nR1: {r1}\nR2: {r2}"
    q = lay.question(item, probe, protocol, cue, {"R1": r1, "R2": r2})
    return Instance(
        item.id,
        item.task,
        probe,
        protocol,
        cue,
        order,
        branch,
        (TextPart(text),),
        gold,
        q,
        context_order if protocol == "pairwise" else None,
    )


def presentations(
    item: AuditItem, protocol: Protocol, orders: str, seed: int, key: str
) -> list[Presentation]:
    """Every (context_order, order) to ask: pointwise 2 response orders, pairwise 2 context
    orders × 2 response orders; with orders='one', one of them by a seeded draw (stable across
    runs)."""
    combos: list[Presentation] = (
        [(None, o) for o in ORDERS]
        if protocol == "pointwise"
        else [(c, o) for c in CONTEXT_ORDERS for o in ORDERS]
    )
    if orders == "both":
        return combos
    h = hashlib.sha256(f"{seed}|{item.id}|{key}".encode()).digest()
    return [random.Random(h).choice(combos)]


__all__ = [
    "AnswerKind",
    "CONTEXT_ORDERS",
    "CUES",
    "EXTRA_CUES",
    "ORDERS",
    "PROBES",
    "PROTOCOLS",
    "Instance",
    "Presentation",
    "Probe",
    "Protocol",
    "cues_for",
    "is_multi_turn",
    "j_instance",
    "p_instance",
    "p_labels",
    "p_pair",
    "presentations",
    "text_instance",
]
