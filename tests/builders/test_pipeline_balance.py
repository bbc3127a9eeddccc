"""Builds balance branch 0 by construction (issue 19, item 7): single-turn and positional builds
through the loopback generator, with a voicer that renders quick tones and fails some turns."""

from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from paraudit.builders.pipeline import BuildOptions, build
from paraudit.builders.voicing import Voiced, VoicingStats
from paraudit.compose.llm import CompletionCache, ComposerLLM, LLMSpec
from paraudit.items.balance import balance_warnings, shift_turn
from paraudit.items.records import AuditItem, Speaker
from tests.builders.fakes import ChatServer, write_od3

# The case: 32 EmoCF pairs over the paper's four pairs (22 of them tell their branches
# apart by 'surprised'); the listed order of the two emotions varies, as in the source.
PAIRS = (
    [("anger", "sadness")] * 10
    + [("surprise", "sadness")] * 9
    + [("surprise", "neutral")] * 8
    + [("anger", "surprise")] * 5
)
DROPPED = "(dropped by QC)"


def write_pairs(path: Path) -> Path:
    lines = []
    for k, (a, b) in enumerate(PAIRS):
        listed = [a, b] if k % 3 else [b, a]
        # Every fifth sentence fails QC in the voicer below, so the kept set is uneven.
        sentence = f"Number {k} came in the post today{' ' + DROPPED if k % 5 == 0 else ''}."
        for emo in listed:
            lines.append(
                {
                    "filename": f"clips/{k:03d}_{emo}.wav",
                    "emotion": emo,
                    "sentence": sentence,
                    "expected_emotions": listed,
                }
            )
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


class QuickVoicer:
    """A TurnVoicer writing a short tone per turn (distinct bytes per request); a turn whose text
    carries DROPPED fails QC."""

    label = "quick"
    rendering = "test tones"
    qc_rule = "text marker"

    def __init__(self, root: Path) -> None:
        self.root = root
        self.stats = VoicingStats()

    def voices(self, speaker: Speaker) -> tuple[str, ...]:
        return ("h",) if speaker == "human" else ("a",)

    def can_voice(self, speaker: Speaker, emotion: str) -> bool:
        return True

    def voice_all(
        self, jobs: Sequence[Any], on_done: Callable[[], None] | None = None
    ) -> dict[Any, Voiced]:
        out: dict[Any, Voiced] = {}
        for job in jobs:
            seed = int(hashlib.sha256(repr(tuple(job)).encode()).hexdigest()[:8], 16)
            tone = 0.3 * np.sin(np.arange(8000) * (0.02 + seed % 97 / 1e4))
            buf = io.BytesIO()
            sf.write(buf, tone, 16000, "PCM_16", format="WAV")
            path = self.root / f"{seed}.wav"
            path.write_bytes(buf.getvalue())
            ok = DROPPED not in job[0]
            out[job] = Voiced(path, ok, 1, () if ok else ("marked",), {}, 0.5)
        return out

    def describe(self) -> dict[str, Any]:
        return {"backend": "quick"}

    def qc_table(self, voiced: dict[Any, Voiced]) -> dict[str, dict[str, Any]]:
        return {}


def run_build(chat: ChatServer, tmp: Path, kind: str, source: Path, seed: int) -> list[AuditItem]:
    (tmp / "clips").mkdir(exist_ok=True)
    store = CompletionCache(tmp / "compose.sqlite")
    try:
        o = BuildOptions(
            kind=kind,
            source=source,
            out=tmp / f"out-{kind}-{seed}",
            seed=seed,
            dnsmos=False,
            rate_balance=False,
        )
        return build(
            o, ComposerLLM(LLMSpec.parse(chat.spec), store), QuickVoicer(tmp / "clips")
        ).items
    finally:
        store.close()


def in_branch0(items: list[AuditItem]) -> tuple[Counter[str], Counter[str]]:
    in0: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for it in items:
        e0, e1 = set(it.branches[0].emotions), set(it.branches[1].emotions)
        for e in e0 ^ e1:
            seen[e] += 1
            in0[e] += e in e0
    return in0, seen


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_single_turn_build_puts_each_emotion_in_branch0_for_half(
    chat: ChatServer, tmp_path: Path, seed: int
) -> None:
    items = run_build(chat, tmp_path, "single-turn", write_pairs(tmp_path / "emocf.jsonl"), seed)
    assert len(items) == len(PAIRS) - len(range(0, len(PAIRS), 5))
    in0, seen = in_branch0(items)
    assert seen["surprised"] == 17
    for e in seen:
        # At most half, plus one half for an odd count: never the 74 % of the issue.
        assert abs(in0[e] - seen[e] / 2) <= 0.5, (e, in0[e], seen[e])
    assert balance_warnings(items) == []
    assert {it.meta["branch0"] for it in items} == {"A", "B"}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_positional_build_puts_the_earlier_shift_in_branch0_for_half(
    chat: ChatServer, tmp_path: Path, seed: int
) -> None:
    # The scripted generator always writes the earlier shift as side A.
    items = run_build(chat, tmp_path, "positional", write_od3(tmp_path / "od3.jsonl"), seed)
    earlier0 = sum((shift_turn(it, 0) or 0) < (shift_turn(it, 1) or 0) for it in items)
    assert len(items) >= 8
    assert abs(earlier0 - len(items) / 2) <= 0.5
    assert balance_warnings(items) == []
