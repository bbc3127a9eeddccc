"""Two builds with the same --seed and two generators sample the same source records, in the
same order: each set is the first records of one seeded order that its generator did not
reject, so the sets share every record both generators composed (the generator-bias check
pairs items by these records)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paraudit.builders.pipeline import BuildOptions, load_candidates
from tests.builders.fakes import write_emocf, write_od3
from tests.stats.generator_sets import SENTENCES, build_set

N = 10


def _sources(dataset: Path) -> set[str]:
    lines = (dataset / "items.jsonl").read_text().splitlines()
    return {json.loads(line)["meta"]["source_id"] for line in lines}


def _order(tmp: Path, kind: str, seed: int, refused: str) -> tuple[list[str], set[str]]:
    """The seeded order the builds try records in, and the records the gpt generator
    refuses (their prompt names a train / a taxi)."""
    source = (write_emocf(tmp / "emocf.jsonl", SENTENCES) if kind == "single-turn"
              else write_od3(tmp / "od3.jsonl"))  # fmt: skip
    cands = load_candidates(BuildOptions(kind=kind, source=source, out=tmp / "x", seed=seed))
    return [c.source_id for c in cands], {
        c.source_id for c in cands if refused in c.messages[-1]["content"]
    }


@pytest.mark.parametrize(("kind", "refused"), [("single-turn", "train"), ("positional", "taxi")])
def test_same_seed_two_generators_share_the_records_both_kept(
    tmp_path: Path, kind: str, refused: str
) -> None:
    order, gpt_refuses = _order(tmp_path, kind, 3, refused)
    assert gpt_refuses & set(order[:N])  # the test sees a rejection inside the sample
    gemini = _sources(build_set(tmp_path, "gemini", seed=3, n=N, kind=kind))
    gpt = _sources(build_set(tmp_path, "gpt", seed=3, n=N, kind=kind))
    assert gemini == set(order[:N])  # refuses nothing: the first N records
    assert gpt == set([s for s in order if s not in gpt_refuses][:N])  # goes on down the order
    # Shared: every record of the gemini sample the gpt generator did not refuse.
    assert gemini & gpt == set(order[:N]) - gpt_refuses
    # Another seed samples other records first: the sharing comes from the seed.
    assert _sources(build_set(tmp_path, "gemini", seed=4, n=N, kind=kind)) != gemini
