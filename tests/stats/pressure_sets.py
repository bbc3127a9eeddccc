"""Datasets for the pressure tests: single-turn items whose responses a lexicon can tell apart
(an angry user gets an action reply, a sad one a comforting reply), with tones written here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paraudit.items.dataset import write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn
from tests.conftest import ToneClips

ANGRY_REPLIES = (
    "That is unacceptable; I will demand a refund and fix this.",
    "I will file a complaint and insist they pay.",
)
SAD_REPLIES = (
    "That sounds rough; take it gently and rest.",
    "I am here; this loss hurts, be kind to yourself.",
)


def single_turn_set(root: Path, tmp: Path, n: int = 30, ties: int = 0) -> Path:
    """`n` single-turn angry/sad items, which branch is angry alternating; then `ties` tie
    items (`meta.tie`: one reply fits both branches, the other is as fitting: "either")."""
    clip = ToneClips(tmp)
    items = []
    for i in range(n):
        angry = Branch(emotions=("angry",), audio=(clip(200 + i),),
                       response=Response(text=ANGRY_REPLIES[i % 2], emotion="empathetic",
                                         audio=clip(300 + i, 0.8)))  # fmt: skip
        sad = Branch(emotions=("sad",), audio=(clip(100 + i),),
                     response=Response(text=SAD_REPLIES[i % 2], emotion="empathetic",
                                       audio=clip(400 + i, 0.8)))  # fmt: skip
        items.append(
            AuditItem(
                id=f"st-{i:02d}",
                task="single-turn-emotions",
                context=(Turn(speaker="human", text=f"They moved my appointment again, {i}."),),
                branches=(angry, sad) if i % 2 else (sad, angry),
                meta={"pair": "angry/sad"},
            )
        )
    for i in range(ties):
        either = Response(text=f"Sure, it is moved to Friday at {i}.", emotion="neutral",
                          audio=clip(500 + i, 0.8))  # fmt: skip
        other = Response(text=f"Done, Friday at {i} it is.", emotion="neutral",
                         audio=clip(600 + i, 0.8))  # fmt: skip
        items.append(
            AuditItem(
                id=f"tie-{i:02d}",
                task="single-turn-emotions",
                context=(Turn(speaker="human", text=f"Please move it to Friday, {i}."),),
                branches=(
                    Branch(emotions=("neutral",), audio=(clip(150 + i),), response=either),
                    Branch(emotions=("happy",), audio=(clip(170 + i, 1.1),), response=other),
                ),
                meta={"pair": "neutral/happy", "tie": True},
            )
        )
    write_dataset(
        root, DatasetManifest(name="pressure", tasks=("single-turn-emotions",)), items, clip.audio
    )
    return root


SURPRISED_REPLIES = (
    "Wow, really? That came out of nowhere! When?",
    "No way, already? What a surprise! How?",
)


def conflict_set(root: Path, tmp: Path, n: int = 16, agree: int = 0) -> Path:
    """`n` word–tone conflict items (`meta.conflict`): good-news words (read positive) said
    with surprise (congruent: a surprised reply) or sadly (conflict: a comforting reply), which
    branch is which alternating; then `agree` items declared conflict whose words read
    negative, as their sad voice does (what validate must refuse)."""
    clip = ToneClips(tmp)
    items = []
    for i in range(n + agree):
        surprised = Branch(emotions=("surprised",), audio=(clip(220 + i),),
                           response=Response(text=SURPRISED_REPLIES[i % 2], emotion="happy",
                                             audio=clip(300 + i, 0.8)))  # fmt: skip
        sad = Branch(emotions=("sad",), audio=(clip(100 + i, 1.0, 0.1),),
                     response=Response(text=SAD_REPLIES[i % 2], emotion="empathetic",
                                       audio=clip(400 + i, 0.8)))  # fmt: skip
        good = i < n
        text = (f"Great, they gave me the lead role, wonderful {i}." if good
                else f"This is terrible, I hate losing the role {i}.")  # fmt: skip
        label = "positive" if good else "negative"
        items.append(
            AuditItem(
                id=f"cf-{i:02d}",
                task="single-turn-emotions",
                context=(Turn(speaker="human", text=text),),
                branches=(surprised, sad) if i % 2 else (sad, surprised),
                meta={"pair": "surprised/sad", "conflict": {"words": "surprised", "voice": "sad",
                      "words_label": label, "label_source": "vader"}},
            )
        )  # fmt: skip
    write_dataset(
        root, DatasetManifest(name="conflict", tasks=("single-turn-emotions",)), items, clip.audio
    )
    return root


def whisper_set(root: Path, tmp: Path, n: int = 4, ties: int = 2) -> Path:
    """A non-emotion dataset (dimension whisper): `n` voiced/whispered items, branch 0
    alternating, then `ties` tie items (both branches voiced, `meta.tie`)."""
    clip = ToneClips(tmp)

    def branch(value: str, freq: float, text: str) -> Branch:
        reply = Response(text=text, emotion="voiced", audio=clip(freq + 200, 0.8))
        return Branch(emotions=(value,), audio=(clip(freq),), response=reply)

    items = []
    for i in range(n):
        a = branch("voiced", 200 + i, f"Sure, here it is out loud: {i}.")
        b = branch("whispered", 100 + i, f"I'll keep it quiet: {i}.")
        items.append(AuditItem(id=f"w-{i}", task="single-turn-whisper",
                               context=(Turn(speaker="human", text=f"Tell me the code {i}."),),
                               branches=(a, b) if i % 2 else (b, a)))  # fmt: skip
    for i in range(ties):
        a = branch("voiced", 150 + i, f"Here it is, {i}.")
        b = branch("voiced", 170 + i, f"Okay, here, {i}.")
        items.append(AuditItem(id=f"wt-{i}", task="single-turn-whisper",
                               context=(Turn(speaker="human", text=f"Code please {i}."),),
                               branches=(a, b), meta={"tie": True}))  # fmt: skip
    manifest = DatasetManifest(name="whisper", tasks=("single-turn-whisper",),
                               dimension="whisper", emotions=("voiced", "whispered"))  # fmt: skip
    write_dataset(root, manifest, items, clip.audio)
    return root


def starter_conflict_set(root: Path, tmp: Path, ids: set[str] | None = None) -> Path:
    """The starter's conflict sentences (sources/data/conflict.jsonl: words, voices, responses,
    the builder's branch order and its VADER check) with tones in place of the Piper clips, so
    that judges that read words or labels meet the real set's balance in seconds. `ids`: only
    those sources."""
    from paraudit.compose.starter import _by_pair, branch_swaps
    from paraudit.dimensions.emotion import VALENCE
    from paraudit.qc.conflict import check_conflict
    from paraudit.sources.starter import conflict_sources

    clip = ToneClips(tmp)
    sources = [s for s in conflict_sources() if ids is None or s.id in ids]
    swaps = branch_swaps(_by_pair(sources), 0)
    items = []
    for k, s in enumerate(sources):
        voice = next(e for e in s.emotions if e != s.words)
        check = check_conflict(s.text, s.words, voice, VALENCE)
        assert check.passed, (s.id, check.reasons)
        replies = [(e, r.text, r.emotion) for e, r in zip(s.emotions, s.responses, strict=True)]
        meta = {"pair": "/".join(s.emotions), "conflict": check.meta(s.words, voice)}
        items.append(_conflict_item(clip, k, s.id, "single-turn-emotions", s.text, replies,
                                    s.id in swaps, meta))  # fmt: skip
    manifest = DatasetManifest(name="starter-conflict", tasks=("single-turn-emotions",))
    write_dataset(root, manifest, items, clip.audio)
    return root


def dimension_conflict_set(root: Path, tmp: Path, name: str) -> Path:
    """`name`'s bundled conflict texts (compose/starters/NAME.conflict.jsonl, checked by its
    lexicon as the builder does, branch 0 alternating) with tones for clips."""
    from paraudit.compose.dimension_starters import conflict_texts
    from paraudit.dimensions.registry import get
    from paraudit.qc.conflict import check_words

    dim = get(name)
    clip = ToneClips(tmp)
    items = []
    for k, t in enumerate(conflict_texts(dim)):
        assert t.words is not None
        voice = next(v.name for v in dim.values if v.name != t.words)
        check = check_words(t.text, t.words, voice, dim)
        assert check.passed, (t.id, check.reasons)
        values = [v.name for v in dim.values]
        replies = [(v, t.responses[v], v) for v in (values[::-1] if k % 2 else values)]
        meta = {"dimension": name, "pair": "/".join(values), "conflict": check.meta(t.words, voice)}
        items.append(_conflict_item(clip, k, t.id, dim.task_for("single-turn"), t.text, replies,
                                    False, meta))  # fmt: skip
    manifest = DatasetManifest(name=f"{name}-conflict", tasks=(dim.task_for("single-turn"),),
                               dimension=name, emotions=dim.names)  # fmt: skip
    write_dataset(root, manifest, items, clip.audio)
    return root


def _conflict_item(
    clip: ToneClips,
    k: int,
    item_id: str,
    task: str,
    text: str,
    replies: list[tuple[str, str, str]],
    swap: bool,
    meta: dict[str, Any],
) -> AuditItem:
    """The `k`th item of a conflict set: `text` said once per (value, reply, reply's tone) of
    `replies`, each branch with its own tones (four per item), branch order reversed by `swap`
    after the tones are given, so a value's clip does not depend on which branch it lands in."""
    branches = [
        Branch(emotions=(value,), audio=(clip(100 + 3 * (4 * k + j), 1.0),),
               response=Response(text=reply, emotion=tone_of_reply,
                                 audio=clip(100 + 3 * (4 * k + j + 2), 0.8)))
        for j, (value, reply, tone_of_reply) in enumerate(replies)
    ]  # fmt: skip
    if swap:
        branches.reverse()
    return AuditItem(id=item_id, task=task, context=(Turn(speaker="human", text=text),),
                     branches=(branches[0], branches[1]), meta=meta)  # fmt: skip
