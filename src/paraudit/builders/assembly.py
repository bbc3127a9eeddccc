"""From composed pairs and their voiced clips to audit items: which turns to voice, whether QC
kept every clip of a pair, and the item with branch 0 in place."""

from __future__ import annotations

from typing import Any, Protocol

from paraudit.builders.branches import Signature, signatures
from paraudit.builders.composing import ID_PREFIX, Candidate, Composed
from paraudit.builders.scorer import TurnRequest
from paraudit.builders.voicing import Voiced
from paraudit.items.dataset import AudioFiles
from paraudit.items.records import AuditItem, Branch, Response
from paraudit.sources.emocf import SentencePair


class ItemOptions(Protocol):
    """What assembly reads of a build's options (`pipeline.BuildOptions`)."""

    @property
    def audio(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def task(self) -> str: ...
    @property
    def preset_name(self) -> str: ...


def voice_jobs(o: ItemOptions, c: Composed, voices: dict[str, str]) -> list[TurnRequest]:
    jobs: list[TurnRequest] = []
    for side in (0, 1):
        for turn, emotion in zip(c.context, c.emotions[side], strict=True):
            if turn.speaker == "human" and o.audio == "source":
                continue
            jobs.append(TurnRequest(turn.text, emotion, turn.speaker, voices[turn.speaker]))
        text, tone = c.responses[side]
        jobs.append(TurnRequest(text, tone, "assistant", voices["assistant"]))
    return jobs


def sides(c: Composed) -> tuple[Signature, Signature]:
    human = [i for i, t in enumerate(c.context) if t.speaker == "human"]
    a, b = ([c.emotions[side][i] for i in human] for side in (0, 1))
    return signatures(a, b)


def qc_failures(
    o: ItemOptions,
    c: Composed,
    swap: bool,
    voiced: dict[TurnRequest, Voiced],
    voices: dict[str, str],
) -> tuple[list[str], set[str]]:
    """Why QC drops this pair (branch 0's turns first), and the speaker:emotion of each
    failing turn; both empty when every clip was kept."""
    failed: list[str] = []
    dropped_by: set[str] = set()
    for side in (1, 0) if swap else (0, 1):
        for t, (turn, emotion) in enumerate(zip(c.context, c.emotions[side], strict=True)):
            if turn.speaker == "human" and o.audio == "source":
                continue
            v = voiced[TurnRequest(turn.text, emotion, turn.speaker, voices[turn.speaker])]
            if not v.accepted:
                failed.append(f"turn {t} ({turn.speaker}, {emotion}): {'; '.join(v.failures)}")
                dropped_by.add(f"{turn.speaker}:{emotion}")
        text, tone = c.responses[side]
        rv = voiced[TurnRequest(text, tone, "assistant", voices["assistant"])]
        if not rv.accepted:
            failed.append(f"response ({tone}): {'; '.join(rv.failures)}")
            dropped_by.add(f"assistant:{tone}")
    return failed, dropped_by


def assemble(
    o: ItemOptions,
    cand: Candidate,
    c: Composed,
    swap: bool,
    voiced: dict[TurnRequest, Voiced],
    voices: dict[str, str],
    audio: AudioFiles,
    extra_meta: dict[str, Any],
) -> AuditItem:
    """The item of a pair whose every clip passed QC, side B first when `swap`."""
    order = (1, 0) if swap else (0, 1)
    branches: list[Branch] = []
    qc_rows: list[list[dict[str, Any]]] = []
    for side in order:
        paths: list[str] = []
        rows: list[dict[str, Any]] = []
        for t, (turn, emotion) in enumerate(zip(c.context, c.emotions[side], strict=True)):
            if turn.speaker == "human" and o.audio == "source":
                rec = cand.record
                assert isinstance(rec, SentencePair)
                path = rec.recordings[side]
                assert path is not None
                paths.append(audio.name(path))
                rows.append({"turn": t, "emotion": emotion, "source_recording": True})
                continue
            v = voiced[TurnRequest(turn.text, emotion, turn.speaker, voices[turn.speaker])]
            assert v.path is not None
            paths.append(audio.name(v.path))
            rows.append(qc_row(t, emotion, v))
        text, tone = c.responses[side]
        rv = voiced[TurnRequest(text, tone, "assistant", voices["assistant"])]
        assert rv.path is not None
        rows.append(qc_row(-1, tone, rv) | {"turn": "response"})
        qc_rows.append(rows)
        branches.append(
            Branch(
                emotions=c.emotions[side],
                audio=tuple(paths),
                response=Response(text=text, emotion=tone, audio=audio.name(rv.path)),
            )
        )
    meta: dict[str, Any] = {
        "source": o.preset_name,
        "source_id": cand.source_id,
        "group": cand.group,
        "branch0": "B" if swap else "A",
        "voices": voices,
        "audio": "source recordings (human turns)" if o.audio == "source" else "tts",
        "qc": qc_rows,
        **{k: v for k, v in c.meta.items() if k != "shift_turns_ab"},
        **extra_meta,
    }
    if "shift_turns_ab" in c.meta:
        meta["shift_turns"] = [c.meta["shift_turns_ab"][s] for s in order]
    if o.preset_name == "od3":
        meta["corpus"] = cand.group
    return AuditItem(
        id=f"{ID_PREFIX[o.kind]}-{c.key}",
        task=o.task,
        context=c.context,
        branches=(branches[0], branches[1]),
        meta=meta,
    )


def qc_row(t: int, emotion: str, v: Voiced) -> dict[str, Any]:
    return {"turn": t, "emotion": emotion, "attempts": v.attempts, "accepted": v.accepted, **v.qc}
