"""The word–tone conflict rule ("follows the words against the voice") over simulated audits.

Run: PYTHONPATH=src python benchmarks/conflict_rule.py [--audits 1000] [--sizes 5,7,10,16,40]
     [--replicates 500] [--seed 1]

For each judge of the family below and each item count, the share of `--audits` simulated
audits (stats/pressure_sim.words_flag_rate: native pointwise J, both branches × both orders,
through the real tally and rule of stats/conflict.py) in which the judge is named. Targets
(issue 32): ≤ 1 % for every judge the words do not pull, at every item count; the
words-follower named at 7 items.
"""

from __future__ import annotations

import argparse
import time

from paraudit.stats.pressure_sim import WordsJudge, words_flag_rate

FAMILY = {
    "deaf (one answer per order)": WordsJudge(0.0, 0.0, deaf=True),
    "coin": WordsJudge(0.0, 0.0),
    "skilled honest (skill 0.8, noise 0.1)": WordsJudge(0.8, 0.0, 0.1),
    "words-follower (pull 1)": WordsJudge(0.0, 1.0),
    "partial follower (skill 0.6, pull 0.4)": WordsJudge(0.6, 0.4),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--audits", type=int, default=1000)
    ap.add_argument("--sizes", default="5,7,10,16,40")
    ap.add_argument("--replicates", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    t0 = time.perf_counter()
    print("| judge | " + " | ".join(f"{n} items" for n in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for name, judge in FAMILY.items():
        rates = [words_flag_rate(judge, n, a.audits, replicates=a.replicates, seed=a.seed)
                 for n in sizes]  # fmt: skip
        print(f"| {name} | " + " | ".join(f"{r:.1%}" for r in rates) + " |", flush=True)
    print(f"\n{a.audits} audits per cell, {a.replicates} bootstrap replicates, seed {a.seed}; "
          f"{time.perf_counter() - t0:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
