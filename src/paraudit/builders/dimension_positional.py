"""Positional items of a dimension other than emotion: a conversation whose words are the same in
both branches, where the user's delivery changes from the reference value (calm, voiced,
fluent) to the marked one (urgent, whispered, hesitant) at a different human turn in each
branch and stays there. The right final reply takes up what the user said at the turn where
the change came: the paper's positional design (Listing 4–6), with the cause of the change in
the user's own turn rather than an assistant failure.

Every human turn is rendered with the reference value and, from the earliest shift on, with the
marked value; each marked clip passes the dimension's QC against the reference rendering of the
same words in the same voice, and each reference clip passes it against itself, as the
single-turn items do. A clip that fails twice drops the whole conversation with its reasons.
The assistant's turns and replies are spoken by the emotion starter's assistant voice, neutral.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paraudit.builders.dimension_records import (
    Checked,
    ClipWriter,
    DimensionBuildReport,
    DroppedItem,
    qc_row,
    render_checked,
)
from paraudit.compose.dimension_starters import PositionalText
from paraudit.compose.starter import branch_swaps
from paraudit.dimensions.base import Dimension, QcCheck, RenderedClip
from paraudit.items.records import AuditItem, Branch, Response, Turn


def positional_items(
    dim: Dimension,
    texts: list[PositionalText],
    render: Callable[..., RenderedClip],
    qc: Callable[..., QcCheck],
    *,
    voice: str,
    seed: int,
    w: ClipWriter,
    assistant: Any,
    neutral: Any,
    report: DimensionBuildReport,
) -> list[AuditItem]:
    """The positional items of `texts` that pass QC (the rest in `report.dropped`)."""
    ref, marked = dim.values[0].name, dim.values[1].name
    # Which shift is branch 0: a seeded coin balanced over the conversations built, so that
    # "branch 0 changes earlier" cannot pass for skill even in a --limit 2 build.
    swaps = branch_swaps({f"{dim.name}-positional": [t.id for t in texts]}, seed)
    task = dim.task_for("positional")
    items = []
    for text in texts:
        clips, why = _render_turns(text, ref, marked, render, qc, voice, seed, report)
        if why:
            report.dropped.append(DroppedItem(text.id, why))
            continue
        items.append(
            _item(dim, task, text, clips, text.id in swaps, w, assistant, neutral, (ref, marked))
        )
    return items


def _render_turns(
    text: PositionalText,
    ref: str,
    marked: str,
    render: Callable[..., RenderedClip],
    qc: Callable[..., QcCheck],
    voice: str,
    seed: int,
    report: DimensionBuildReport,
) -> tuple[dict[tuple[int, str], Checked], str]:
    """(human turn index, value) → its checked clip, for every clip a branch needs; and why
    the conversation fails QC ('' when it passes)."""
    first = min(b.shift for b in text.branches)
    out: dict[tuple[int, str], Checked] = {}
    failed = []
    for h, i in enumerate(text.human_turns()):
        words = text.turns[i].text
        base = render_checked(render, qc, words, ref, None, voice, seed, report)
        out[(h, ref)] = base
        if h >= first:
            out[(h, marked)] = render_checked(
                render, qc, words, marked, base.clip, voice, seed, report
            )
    for (h, v), c in out.items():
        if not c.check.passed:
            failed.append(f"human turn {h + 1} {v}: {' '.join(c.check.reasons)}")
    return out, "; ".join(failed)


def _item(
    dim: Dimension,
    task: str,
    text: PositionalText,
    clips: dict[tuple[int, str], Checked],
    swap: bool,
    w: ClipWriter,
    assistant: Any,
    neutral: Any,
    pair: tuple[str, str],
) -> AuditItem:
    ref, marked = pair
    order = text.branches[::-1] if swap else text.branches
    humans = text.human_turns()
    # An assistant turn's own audio is the same in both branches.
    spoken = {
        i: w.name(assistant.render(t.text, "assistant", neutral).path)
        for i, t in enumerate(text.turns)
        if t.speaker == "assistant"
    }
    branches = []
    rows = []
    for b in order:
        values: list[str] = []
        audio: list[str] = []
        qc: list[dict[str, Any]] = []
        for i in range(len(text.turns)):
            if i not in humans:
                # Assistant turns carry the reference value: they are neither marked nor
                # asked about (P asks the human turns; O and S annotate only those).
                values.append(ref)
                audio.append(spoken[i])
                continue
            h = humans.index(i)
            v = marked if h >= b.shift else ref
            c = clips[(h, v)]
            values.append(v)
            audio.append(w.add(c.clip.samples, c.clip.rate))
            qc.append({**qc_row(v, c), "turn": i})
        reply = assistant.render(b.response, "assistant", neutral)
        branches.append(
            Branch(
                emotions=tuple(values),
                audio=tuple(audio),
                response=Response(text=b.response, emotion=marked, audio=w.name(reply.path)),
            )
        )
        rows.append(qc)
    first = clips[(0, ref)].clip
    return AuditItem(
        id=text.id,
        task=task,
        context=tuple(Turn(speaker=t.speaker, text=t.text) for t in text.turns),
        branches=(branches[0], branches[1]),
        meta={
            "source": "paraudit-starter",
            "source_id": text.id,
            "dimension": dim.name,
            "pair": f"{ref}->{marked}",
            "shift_turns": [humans[b.shift] for b in order],
            "swapped": swap,
            "renderer": {
                v: str(clips[(humans.index(i), v)].clip.meta.get("renderer", dim.renderer))
                for v, i in ((ref, humans[0]), (marked, humans[-1]))
            },
            "voice": str(first.meta.get("voice", "")),
            "qc": rows,
        },
    )
