"""The demo's quick subset of the starter sources keeps the full set's strata and balance."""

from __future__ import annotations

from collections import Counter

from paraudit.compose.starter import quick_ids, starter_swaps
from paraudit.sources.starter import positional_sources, single_turn_sources


def test_the_quick_subset_is_stratified_and_balanced_for_every_seed() -> None:
    pairs = {"/".join(sorted(s.emotions)) for s in single_turn_sources()}
    moods = {p.after for p in positional_sources()}
    for seed in range(6):
        chosen, swaps = quick_ids(seed), starter_swaps(seed)
        single = [s for s in single_turn_sources() if s.id in chosen]
        dialogues = [p for p in positional_sources() if p.id in chosen]
        assert len(single) == 16 and len(dialogues) == 12
        # Four sentences of each of the paper's pairs, two of them with branch 0 swapped.
        per_pair = Counter(("/".join(sorted(s.emotions)), s.id in swaps) for s in single)
        assert per_pair == {(p, k): 2 for p in pairs for k in (True, False)}, per_pair
        # Three dialogues for each mood the user shifts to; the timing coin half and half.
        assert Counter(p.after for p in dialogues) == {m: 3 for m in moods}
        assert sum(p.id in swaps for p in dialogues) == 6
    assert quick_ids(0) != quick_ids(1)  # the swaps move with the seed, and so does the pick
