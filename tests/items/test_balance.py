"""Balance warnings: a fixed habit must not be able to pass for skill on the data itself."""

from __future__ import annotations

from paraudit.items.balance import balance_warnings, shift_turn, unsupported_items
from paraudit.items.records import AuditItem, Branch, Response, Turn


def _branch(emotions: tuple[str, ...], tag: str) -> Branch:
    audio = tuple(f"audio/{tag}{i}.wav" for i in range(len(emotions)))
    return Branch(
        emotions=emotions,
        audio=audio,
        response=Response(text=f"reply {tag}", emotion="empathetic", audio=f"audio/r{tag}.wav"),
    )


def positional(i: int, early_first: bool, after: str = "angry") -> AuditItem:
    ctx = tuple(
        Turn(speaker="human" if k % 2 == 0 else "assistant", text=f"turn {k}") for k in range(5)
    )
    early = ("neutral", "neutral", after, "neutral", after)
    late = ("neutral", "neutral", "neutral", "neutral", after)
    b = (early, late) if early_first else (late, early)
    return AuditItem(
        id=f"p{i}",
        task="positional-emotion",
        context=ctx,
        branches=(_branch(b[0], f"{i}a"), _branch(b[1], f"{i}b")),
    )


def single(i: int, first: str, second: str) -> AuditItem:
    return AuditItem(
        id=f"s{i}",
        task="single-turn-emotions",
        context=(Turn(speaker="human", text="hello"),),
        branches=(_branch((first,), f"{i}a"), _branch((second,), f"{i}b")),
    )


def test_shift_turn_is_counted_among_human_turns() -> None:
    it = positional(0, True)
    assert (shift_turn(it, 0), shift_turn(it, 1)) == (1, 2)


def test_earlier_shift_in_branch_0_warns_in_either_direction() -> None:
    balanced = [positional(i, i % 2 == 0) for i in range(10)]
    assert balance_warnings(balanced) == []
    skewed = [positional(i, i < 8) for i in range(10)]  # 80 % earlier shift in branch 0
    (w,) = balance_warnings(skewed)
    assert "8 of 10 positional items (80%)" in w and "earlier mood shift" in w
    mirrored = [positional(i, i >= 8) for i in range(10)]  # 20 %: the later shift is fixed
    assert len(balance_warnings(mirrored)) == 1
    assert balance_warnings([positional(i, i < 7) for i in range(10)]) == []  # 70 % is the limit


def test_same_emotion_in_branch_0_warns() -> None:
    skewed = [single(i, "angry", "sad") for i in range(8)] + [single(8, "sad", "angry")]
    warnings = balance_warnings(skewed)
    assert len(warnings) == 1 and "'angry'" in warnings[0] and "8 of 9" in warnings[0]
    balanced = [single(i, *(("angry", "sad") if i % 2 else ("sad", "angry"))) for i in range(8)]
    assert balance_warnings(balanced) == []


def test_too_few_items_say_nothing() -> None:
    assert balance_warnings([positional(0, True), single(1, "angry", "sad")]) == []


def test_unsupported_items_name_the_item_and_the_emotions() -> None:
    ok = positional(0, True)
    b0 = ok.branches[0].model_copy(
        update={"emotions": ("neutral", "neutral", "angry", "neutral", "sad")}
    )
    bad = ok.model_copy(update={"id": "p-bad", "branches": (b0, ok.branches[1])})
    (line,) = unsupported_items([ok, bad])
    assert "p-bad" in line and "neutral, angry, sad" in line
