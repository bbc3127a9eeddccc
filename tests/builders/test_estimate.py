from __future__ import annotations

from pathlib import Path

import pytest

from paraudit.builders.estimate import estimate, renders_per_clip
from paraudit.builders.pipeline import BuildOptions, load_candidates
from tests.builders.fakes import write_emocf


def test_estimates_follow_the_voicing_policy_and_prices(tmp_path: Path) -> None:
    assert renders_per_clip("piper", "scorer", 3) == 4.0
    assert renders_per_clip("openai:gpt-4o-mini-tts", "scorer", 3) == 6.0
    assert renders_per_clip("piper", "direction", 3) == 2.3
    o = BuildOptions(kind="single-turn", source=write_emocf(tmp_path / "e.jsonl"), out=tmp_path)
    cands = load_candidates(o)
    a = estimate(o, cands, "openai:gpt-4o", "piper", 4.0)
    b = estimate(o, cands, "openai:gpt-4o", "openai:gpt-4o-mini-tts", 6.0)
    assert a.tries == 7 and a.llm_calls == 7 + a.expected_pairs  # compose + balance ratings
    assert a.chars_in > sum(len(c.messages[0]["content"]) for c in cands)
    assert (
        b.audio_seconds == pytest.approx(a.audio_seconds * 1.5, abs=0.2)
        and a.tts_usd == 0.0
        and b.tts_usd
    )
    assert a.llm_usd is not None and a.llm_usd > 0
    local = estimate(o, cands, "openai:m@http://127.0.0.1:9/v1", "piper")
    assert local.llm_usd == 0.0
    assert estimate(o, cands, "openai:unknown-model", "piper").llm_usd is None
