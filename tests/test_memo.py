"""paraudit.memo.BoundedMemo: one load per key while it fits, least recently used out first,
the newest kept even when it alone is over the budget."""

from __future__ import annotations

from paraudit.memo import BoundedMemo


def test_loads_once_evicts_the_least_recent_and_keeps_the_newest() -> None:
    memo: BoundedMemo[str, bytes] = BoundedMemo(lambda k: k.encode() * 10, len, budget=25)
    assert memo.get("a") == b"a" * 10 and memo.get("a") == b"a" * 10 and memo.loads == 1
    memo.get("b")
    memo.get("a")  # now "b" is the least recently used
    memo.get("c")  # 30 bytes > 25: "b" goes
    assert memo.keys() == ["a", "c"] and memo.loads == 3
    memo.get("big" * 20)  # alone over the budget: kept, everything else goes
    assert memo.keys() == ["big" * 20]
    memo.get("a")
    assert memo.loads == 5 and memo.keys() == ["a"]
