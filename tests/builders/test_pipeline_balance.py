"""Builds balance branch 0 by construction (issue 19, item 7): single-turn and positional builds
through the loopback generator, with a voicer that renders quick tones and fails some turns."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from paraudit.items.balance import balance_warnings, shift_turn
from paraudit.items.records import AuditItem
from tests.builders.fakes import DROPPED, ChatServer, QuickVoicer, quick_build, write_od3

# The case: 32 EmoCF pairs over the paper's four pairs (22 of them tell their branches
# apart by 'surprised'); the listed order of the two emotions varies, as in the source.
PAIRS = (
    [("anger", "sadness")] * 10
    + [("surprise", "sadness")] * 9
    + [("surprise", "neutral")] * 8
    + [("anger", "surprise")] * 5
)


def write_pairs(path: Path, drops: bool = False) -> Path:
    lines = []
    for k, (a, b) in enumerate(PAIRS):
        listed = [a, b] if k % 3 else [b, a]
        # With `drops`, every fifth sentence fails QC in the voicer below.
        marked = drops and k % 5 == 0
        sentence = f"Number {k} came in the post today{' ' + DROPPED if marked else ''}."
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


def run_build(chat: ChatServer, tmp: Path, kind: str, source: Path, seed: int) -> list[AuditItem]:
    (tmp / "clips").mkdir(exist_ok=True)
    return quick_build(chat, tmp, QuickVoicer(tmp / "clips"), kind, source, seed).items


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
    assert len(items) == len(PAIRS)
    in0, seen = in_branch0(items)
    assert seen["surprised"] == 22
    for e in seen:
        # At most half, plus one half for an odd count: never the 74 % of the issue.
        assert abs(in0[e] - seen[e] / 2) <= 0.5, (e, in0[e], seen[e])
    assert balance_warnings(items) == []
    assert {it.meta["branch0"] for it in items} == {"A", "B"}
    # One decision serves the item and its balance figures (once three separate coin calls).
    for it in items:
        words = [len(b.response.text.split()) for b in it.branches]
        assert it.meta["balance"]["length_words"] == words


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_balance_survives_qc_drops(chat: ChatServer, tmp_path: Path, seed: int) -> None:
    # Branch 0 is decided before QC (a real-audio twin must assign the same items alike), so
    # drops move the shares a little, never past the check's 70 %.
    source = write_pairs(tmp_path / "emocf.jsonl", drops=True)
    items = run_build(chat, tmp_path, "single-turn", source, seed)
    assert len(items) == len(PAIRS) - len(range(0, len(PAIRS), 5))
    assert balance_warnings(items) == []


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
