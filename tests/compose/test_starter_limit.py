"""`build starter --limit N` balances the N items it takes (issue 30): the whole set's seeded
halves are not halves of its first four, and a limited build tripped its own branch-balance
warning. Checked with the rule the warning applies (items.balance), on every limit it checks."""

from __future__ import annotations

import pytest

from paraudit.compose.starter import positional_sources, single_turn_sources, starter_swaps
from paraudit.items.balance import MIN_ITEMS, SKEW_LIMIT


@pytest.mark.parametrize("limit", range(MIN_ITEMS, 14))
def test_a_limited_starter_build_is_balanced_within_itself(limit: int) -> None:
    swaps = starter_swaps(0, limit)
    for sources in (single_turn_sources()[:limit], positional_sources()[:limit]):
        share = sum(s.id in swaps for s in sources) / len(sources)
        assert 1 - SKEW_LIMIT <= share <= SKEW_LIMIT, (limit, share)
    # Per single-turn emotion pair as well (the warning counts each emotion).
    pairs: dict[tuple[str, ...], list[bool]] = {}
    for s in single_turn_sources()[:limit]:
        pairs.setdefault(tuple(sorted(s.emotions)), []).append(s.id in swaps)
    for flags in pairs.values():
        if len(flags) >= MIN_ITEMS:
            assert 1 - SKEW_LIMIT <= sum(flags) / len(flags) <= SKEW_LIMIT


def test_the_whole_set_and_small_trials_keep_their_swaps() -> None:
    # Below MIN_ITEMS no share is checked: a trial's items are the whole set's (caches, tests).
    whole = starter_swaps(0)
    assert starter_swaps(0, None) == whole
    for limit in range(1, MIN_ITEMS):
        assert starter_swaps(0, limit) == whole
    first4 = positional_sources()[:4]
    assert not any(p.id in whole for p in first4)  # why the limit needs its own halves
