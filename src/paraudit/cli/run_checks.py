"""Numbers and paths `paraudit run` refuses before any work (one line each, exit 1)."""

from __future__ import annotations

import math
from pathlib import Path

from paraudit.cli.outputs import refuse_inside_dataset
from paraudit.errors import ParauditError

MAX_PARSE_RETRIES = 20
"""Each re-ask is a full judge call: beyond a few, an unparsed reply will not parse (and a
million re-asks would spend a million calls per question)."""
MAX_ATTEMPTS = 50
"""Attempts per call: with backoff, more than this waits for hours on a server that is down."""


def check_run_options(
    out: Path, parse_retries: int, max_attempts: int, timeout: float, max_wait: float | None
) -> None:
    """Refuse numbers that are nonsense or would run away, and an --out inside a dataset."""
    if not 0 <= parse_retries <= MAX_PARSE_RETRIES:
        raise ParauditError(
            f"--parse-retries {parse_retries}: each re-ask is one more judge call; "
            f"give 0–{MAX_PARSE_RETRIES}"
        )
    if not 1 <= max_attempts <= MAX_ATTEMPTS:
        raise ParauditError(f"--max-attempts {max_attempts}: give 1–{MAX_ATTEMPTS}")
    if not math.isfinite(timeout):
        raise ParauditError(f"--timeout must be a finite number of seconds (got {timeout:g})")
    if max_wait is not None and not (math.isfinite(max_wait) and max_wait >= 0):
        raise ParauditError(f"--max-wait must be 0 or more seconds (got {max_wait:g})")
    refuse_inside_dataset(out, "--out")


MAX_REPLICATES = 100_000
"""Bootstrap replicates: 10,000 already pin a 95 % interval's ends to about ±0.2 points, and
the resampled statistics are held in memory (measured on a 2-item, 2-judge run: 150 MB at
10,000, 800 MB at 100,000; 100 million died after 112 s needing 98.7 GiB), so beyond this the
request is refused at once."""


def check_replicates(replicates: int) -> None:
    if not 100 <= replicates <= MAX_REPLICATES:
        raise ParauditError(
            f"--replicates {replicates}: give 100–{MAX_REPLICATES:,} (10,000, the default, is "
            "plenty for 95 % intervals; memory grows with the number)"
        )


MAX_SEED = 2**32 - 1
"""numpy's seeds (the bootstrap's, the order coin's) are 0 … 2**32 − 1."""


def check_seed(seed: int, option: str = "--seed") -> None:
    if not 0 <= seed <= MAX_SEED:
        raise ParauditError(f"{option} {seed}: give a whole number 0–{MAX_SEED:,}")


MIN_RPM = 0.1
"""As for a spec's `rpm=` (judges.spec.MIN_RPM): one call per 10 minutes at the slowest."""


def check_rpm(rpm: float | None) -> None:
    """--rpm (already finite and > 0): not so small that the announced wait is centuries."""
    if rpm is not None and rpm < MIN_RPM:
        raise ParauditError(
            f"--rpm {rpm:g} would space calls {60 / rpm:.3g} s apart; give at least {MIN_RPM:g} "
            "(one call per 10 minutes) or leave it out for no limit"
        )


def misleading_problem(
    dataset: Path, probes: tuple[str, ...], protocols: tuple[str, ...], limit: int | None
) -> str | None:
    """Why `--cues …,misleading` cannot be asked of this plan (None: it can). The cue states the
    other branch's value, so it needs pointwise J and items whose branches each carry one value
    (protocols/pressure.py); otherwise the option would silently add nothing."""
    if "J" not in probes or "pointwise" not in protocols:
        return "the misleading cue is asked of pointwise J only; add --probes J and pointwise"
    from paraudit.items.dataset import load_dataset
    from paraudit.protocols.pressure import can_mislead
    from paraudit.runner.plan import limited_items

    ds = load_dataset(dataset)
    items = list(limited_items(ds, limit))
    if any(can_mislead(item) for item in items):
        return None
    return (
        f"no item of {dataset} can state the other branch's value (each branch's human turns "
        "must carry one value, and the two must differ: positional items change within a "
        "branch); drop misleading from --cues or use a single-turn dataset"
    )
