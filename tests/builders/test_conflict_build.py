"""`build single-turn --conflict`: the sentences whose words read as one value of their pair and
unlike the other become word–tone conflict items (loopback LLM + Piper); the others are
rejected with the reason before any call, and a source with none is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

from paraudit.items.dataset import load_dataset
from paraudit.items.validate import validate_dataset
from tests.builders.conftest import Sources, build, cli
from tests.builders.fakes import ChatServer, write_emocf

GOOD = ("Great, they gave me the lead role, wonderful.", "surprise", "sadness")
NEUTRAL = ("They changed the schedule again.", "anger", "sadness")
BOTH_NEGATIVE = ("This is terrible, I hate it.", "anger", "sadness")


def test_conflict_pairs_are_kept_and_recorded(
    chat: ChatServer, sources: Sources, tmp_path: Path
) -> None:
    src = write_emocf(tmp_path / "emocf.jsonl", [GOOD, NEUTRAL, BOTH_NEGATIVE])
    out = tmp_path / "ds"
    asked = len(chat.requests)
    build(chat, sources, "single-turn", src, out, "--conflict", "--no-dnsmos", "--no-balance")
    # Only the one conflict sentence was composed: the other two cost no LLM call.
    assert len(chat.requests) - asked == 1
    (item,) = load_dataset(out).items
    c = item.meta["conflict"]
    assert (c["words"], c["voice"], c["words_label"]) == ("surprised", "sad", "positive")
    assert not [p for p in validate_dataset(out) if p.is_error]
    card = json.loads((out / "card.json").read_text())
    reasons = [r["reason"] for r in card["rejections"]["log"] if r["stage"] == "conflict"]
    assert any("neither voice" in r for r in reasons) and any("both voices" in r for r in reasons)


def test_a_source_without_conflicts_is_refused_before_any_call(
    chat: ChatServer, sources: Sources, tmp_path: Path
) -> None:
    src = write_emocf(tmp_path / "emocf.jsonl", [NEUTRAL, BOTH_NEGATIVE])
    asked = len(chat.requests)
    for dry in ((), ("--dry-run",)):
        code, output = cli("build", "single-turn", "--source", str(src), "--llm", chat.spec,
                           "--out", str(tmp_path / "ds"), "--cache", str(sources.cache),
                           "--conflict", *dry)  # fmt: skip
        assert code == 2, output
        assert output.startswith("error: --conflict: no source sentence is a word-tone conflict")
        assert len(output.strip().splitlines()) == 1
    assert len(chat.requests) == asked and not (tmp_path / "ds").exists()


def test_conflict_is_refused_for_multi_turn_builds(sources: Sources, tmp_path: Path) -> None:
    code, output = cli("build", "positional", "--source", str(sources.od3), "--llm", "openai:x",
                       "--out", str(tmp_path / "ds"), "--conflict")  # fmt: skip
    assert code == 2 and "build single-turn or starter, not positional" in output
