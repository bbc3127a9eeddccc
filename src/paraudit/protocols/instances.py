"""Item → instances: every question put to a judge, with its gold answer.

An instance is one (item, probe, protocol, cue, order, branch) cell of the audit plan. Its
`answer` says how a reply is parsed: a choice between two labels, a CA/CB matching, or a label
per human turn.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from paraudit.items.dataset import Dataset
from paraudit.items.records import AuditItem
from paraudit.protocols import paper_prompts as pp
from paraudit.protocols.parts import AudioPart, Part, Prompt, TextPart

Probe = Literal["J", "P", "O", "S", "T"]
Protocol = Literal["pointwise", "pairwise"]
AnswerKind = Literal["choice", "matching", "turns"]
PROBES: tuple[Probe, ...] = ("J", "P", "O", "S", "T")
PROTOCOLS: tuple[Protocol, ...] = ("pointwise", "pairwise")
CUES = ("none", "soft", "hard", "transition")
ORDERS = ("ab", "ba")
SPEAKER_NAMES = {"human": "human", "assistant": "voice assistant"}


@dataclass(frozen=True)
class Instance:
    """One question to a judge and its gold answer."""

    item_id: str
    task: str
    probe: Probe
    protocol: Protocol
    cue: str
    order: str
    """'ab': R1/E1 is branch 0's; 'ba': swapped. Measures position bias."""
    branch: int | None
    """The branch whose audio (or labels) C carries; None for pairwise."""
    prompt: Prompt
    answer: AnswerKind
    gold: str | dict[str, str]
    """'R1'/'R2', or {'CA': .., 'CB': ..}, or {'C1': 'E1', ...} for human turns."""
    options: dict[str, str] = field(default_factory=dict)
    """What each offered label stands for (e.g. E1 → 'neutral'), for Staging and reports."""

    @property
    def instance_id(self) -> str:
        b = "-" if self.branch is None else str(self.branch)
        return f"{self.item_id}|{self.probe}|{self.protocol}|{self.cue}|{self.order}|{b}"


def is_multi_turn(item: AuditItem) -> bool:
    return item.task != "single-turn-emotions"


def cues_for(item: AuditItem, probe: Probe, cues: tuple[str, ...]) -> list[str]:
    """The cues that exist for this item and probe (transition is multi-turn only; T has none)."""
    if probe == "T":
        return ["none"] if "none" in cues else []
    return [c for c in cues if c != "transition" or is_multi_turn(item)]


def _audio(ds: Dataset, rel: str) -> AudioPart:
    return AudioPart(ds.audio_path(rel), Path(rel).stem)


def _resp_order(order: str) -> tuple[int, int]:
    return (0, 1) if order == "ab" else (1, 0)


def _choice_gold(branch: int, order: str) -> str:
    return "R1" if _resp_order(order)[0] == branch else "R2"


def _matching_gold(order: str) -> dict[str, str]:
    first = _resp_order(order)[0]
    return {"CA": "R1", "CB": "R2"} if first == 0 else {"CA": "R2", "CB": "R1"}


def _context_audio(ds: Dataset, item: AuditItem, branch: int, conv: str) -> list[Part]:
    parts: list[Part] = []
    for t, (turn, rel) in enumerate(zip(item.context, item.branches[branch].audio, strict=True), 1):
        parts.append(TextPart(f"Conversation {conv} turn {t} ({SPEAKER_NAMES[turn.speaker]}) clip"))
        parts.append(_audio(ds, rel))
    return parts


def _response_audio(ds: Dataset, item: AuditItem, order: str) -> list[Part]:
    parts: list[Part] = []
    for label, b in zip(("R1", "R2"), _resp_order(order), strict=True):
        parts += [TextPart(f"{label}:"), _audio(ds, item.branches[b].response.audio)]
    return parts


def _responses_text(item: AuditItem, order: str) -> str:
    a, b = _resp_order(order)
    return f"R1: {item.branches[a].response.text}\nR2: {item.branches[b].response.text}"


def _transcript_block(item: AuditItem, emotions: tuple[str, ...] | None, conv: str) -> str:
    if not is_multi_turn(item):
        line = f"{conv}: transcript: {item.context[0].text}"
        return line + (f" emotion: {emotions[0]}" if emotions else "")
    lines = []
    for t, turn in enumerate(item.context, 1):
        line = f"{conv} turn {t} ({SPEAKER_NAMES[turn.speaker]}): transcript: {turn.text}"
        lines.append(line + (f" emotion: {emotions[t - 1]}" if emotions else ""))
    return "\n".join(lines)


def j_instance(
    ds: Dataset, item: AuditItem, protocol: Protocol, cue: str, order: str, branch: int | None
) -> Instance:
    multi = is_multi_turn(item)
    parts: list[Part]
    if protocol == "pointwise":
        assert branch is not None
        if multi:
            head = pp.fill(pp.MULTI_J_POINTWISE, cue=pp.multi_cue("pointwise", cue))
            parts = [TextPart(head), *_context_audio(ds, item, branch, "C")]
        else:
            head = pp.fill(pp.SINGLE_J_POINTWISE, cue=pp.SINGLE_CUES[cue])
            parts = [TextPart(head), TextPart("C:"), _audio(ds, item.branches[branch].audio[0])]
        gold: str | dict[str, str] = _choice_gold(branch, order)
        kind: AnswerKind = "choice"
    else:
        if multi:
            head = pp.fill(pp.MULTI_J_PAIRWISE, cue=pp.multi_cue("pairwise", cue))
            parts = [
                TextPart(head),
                *_context_audio(ds, item, 0, "CA"),
                *_context_audio(ds, item, 1, "CB"),
            ]
        else:
            head = pp.fill(pp.SINGLE_J_PAIRWISE, cue=pp.SINGLE_CUES[cue])
            parts = [
                TextPart(head),
                TextPart("CA:"),
                _audio(ds, item.branches[0].audio[0]),
                TextPart("CB:"),
                _audio(ds, item.branches[1].audio[0]),
            ]
        gold, kind = _matching_gold(order), "matching"
    parts += _response_audio(ds, item, order)
    return Instance(item.id, item.task, "J", protocol, cue, order, branch, tuple(parts), kind, gold)


def p_instance(ds: Dataset, item: AuditItem, cue: str, order: str, branch: int) -> Instance:
    emotions = item.branches[branch].emotions
    humans = item.human_turns()
    if not is_multi_turn(item):
        pair = (item.branches[0].emotions[0], item.branches[1].emotions[0])
        e1, e2 = pair if order == "ab" else pair[::-1]
        head = pp.fill(pp.SINGLE_P, cue=pp.SINGLE_CUES[cue])
        parts: list[Part] = [
            TextPart(head),
            TextPart(f"R1 = {e1}\nR2 = {e2}"),
            TextPart("C:"),
            _audio(ds, item.branches[branch].audio[0]),
        ]
        gold: str | dict[str, str] = "R1" if emotions[0] == e1 else "R2"
        return Instance(
            item.id,
            item.task,
            "P",
            "pointwise",
            cue,
            order,
            branch,
            tuple(parts),
            "choice",
            gold,
            {"R1": e1, "R2": e2},
        )
    # E1/E2: the two human emotions of this branch (before, after the shift), in `order`.
    seen = list(dict.fromkeys(emotions[i] for i in humans))
    if len(seen) < 2:
        other = item.branches[1 - branch].emotions
        seen += [e for e in dict.fromkeys(other[i] for i in humans) if e not in seen]
    e1, e2 = (seen[0], seen[1]) if order == "ab" else (seen[1], seen[0])
    head = pp.fill(pp.MULTI_P, cue=pp.MULTI_P_CUES[cue])
    parts = [
        TextPart(head),
        *_context_audio(ds, item, branch, "C"),
        TextPart(f"E1 = {e1}\nE2 = {e2}"),
    ]
    gold = {f"C{i + 1}": ("E1" if emotions[i] == e1 else "E2") for i in humans}
    return Instance(
        item.id,
        item.task,
        "P",
        "pointwise",
        cue,
        order,
        branch,
        tuple(parts),
        "turns",
        gold,
        {"E1": e1, "E2": e2},
    )


def text_instance(
    item: AuditItem,
    probe: Probe,
    protocol: Protocol,
    cue: str,
    order: str,
    branch: int | None,
    staged: dict[int, tuple[str, ...]] | None = None,
) -> Instance:
    """O (true emotions), S (the judge's own P predictions, in `staged`) and T (no emotions)."""
    multi = is_multi_turn(item)

    def emos(b: int) -> tuple[str, ...] | None:
        if probe == "T":
            return None
        if probe == "S":
            assert staged is not None
            return staged[b]
        return item.branches[b].emotions

    if probe == "T":
        head = pp.fill(pp.CONTROL_T_POINTWISE, cue=pp.SINGLE_CUES[cue])
    elif multi:
        disclaimer = " " + pp.MULTI_PRED_DISCLAIMER if probe == "S" else "\n"
        tmpl = pp.MULTI_OS_POINTWISE if protocol == "pointwise" else pp.MULTI_OS_PAIRWISE
        head = pp.fill(tmpl, cue=pp.multi_cue(protocol, cue), disclaimer=disclaimer)
    else:
        tmpl = {
            ("O", "pointwise"): pp.SINGLE_O_POINTWISE,
            ("S", "pointwise"): pp.SINGLE_S_POINTWISE,
            ("O", "pairwise"): pp.SINGLE_O_PAIRWISE,
            ("S", "pairwise"): pp.SINGLE_S_PAIRWISE,
        }[(probe, protocol)]
        head = pp.fill(tmpl, cue=pp.SINGLE_CUES[cue])
    if protocol == "pointwise":
        assert branch is not None
        body = _transcript_block(item, emos(branch), "C")
        gold: str | dict[str, str] = _choice_gold(branch, order)
        kind: AnswerKind = "choice"
    else:
        body = (
            _transcript_block(item, emos(0), "CA") + "\n" + _transcript_block(item, emos(1), "CB")
        )
        gold, kind = _matching_gold(order), "matching"
    text = f"{head}\n{body}\n{_responses_text(item, order)}"
    return Instance(
        item.id, item.task, probe, protocol, cue, order, branch, (TextPart(text),), kind, gold
    )


def choose_orders(item: AuditItem, orders: str, seed: int, key: str) -> list[str]:
    """Both orders, or one per instance by a seeded draw (stable across runs)."""
    if orders == "both":
        return list(ORDERS)
    h = hashlib.sha256(f"{seed}|{item.id}|{key}".encode()).digest()
    return [random.Random(h).choice(ORDERS)]
