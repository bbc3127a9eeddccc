"""The branch-0 assignment on made-up groups: seeded, and every side signature in branch 0 for
half of its items (plus one half for an odd count)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from paraudit.builders.branches import EARLIER, branch_zero, signatures


def test_branch_zero_is_seeded() -> None:
    sides = {f"k{i}": signatures(["angry"], ["sad"]) for i in range(20)}
    assert branch_zero(sides, 3) == branch_zero(sides, 3)
    assert branch_zero(sides, 3) != branch_zero(sides, 4)


def test_signatures_name_what_tells_the_sides_apart() -> None:
    assert signatures(["angry"], ["sad"]) == (("angry",), ("sad",))
    # Same emotions, earlier shift in B.
    assert signatures(["neutral", "neutral", "sad"], ["neutral", "sad", "sad"]) == (
        (),
        (EARLIER,),
    )
    assert signatures(["happy"], ["happy"]) == ((), ())


@pytest.mark.parametrize("trial", range(40))
def test_every_signature_is_in_branch0_for_half_whatever_the_groups(trial: int) -> None:
    rng = random.Random(trial)
    emotions = ["angry", "sad", "happy", "neutral", "surprised", "frazzled", "hesitant"]
    sides = {}
    for g in range(rng.randint(1, 12)):
        a, b = rng.sample(emotions, 2)
        for i in range(rng.randint(1, 7)):
            sa, sb = ((a,), (b,)) if rng.random() < 0.5 else ((b,), (a,))
            sides[f"g{g}-{i}"] = (sa, sb)
    swapped = branch_zero(sides, trial)
    in0: Counter[tuple[str, ...]] = Counter()
    seen: Counter[tuple[str, ...]] = Counter()
    for key, (sa, sb) in sides.items():
        first = sb if key in swapped else sa
        for s in (sa, sb):
            seen[s] += 1
            in0[s] += s == first
    for s in seen:
        assert abs(in0[s] - seen[s] / 2) <= 0.5, (s, in0[s], seen[s])
