"""The model catalogue: the paper's GPT-4o judge is `gpt-audio` today; the shut-down preview
model is accepted with a note, which `paraudit judges` and the run show."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.judges.catalogue import model_note
from paraudit.judges.prices import DEFAULT_PRICES
from paraudit.judges.registry import load_judge


def test_the_shut_down_preview_model_gets_a_note_and_its_replacement_none() -> None:
    note = model_note("openai", "gpt-4o-audio-preview", None)
    assert note is not None and "shut down" in note and "openai:gpt-audio" in note
    assert model_note("openai", "gpt-audio", None) is None
    assert "deprecated" in (model_note("openai", "gpt-audio-mini", None) or "")
    # A model on the user's own server is not bound by the provider's status.
    assert model_note("openai", "gpt-4o-audio-preview", "http://127.0.0.1:8000/v1") is None
    assert "openai:gpt-audio" in DEFAULT_PRICES  # the example judge has a price entry


def test_the_judge_is_built_with_the_note(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("openai", reason="the 'openai' extra is not installed")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    old = load_judge("openai:gpt-4o-audio-preview")
    assert len(old.notes) == 1 and "shut down" in old.notes[0]
    assert load_judge("openai:gpt-audio").notes == []


def test_paraudit_judges_shows_the_notes() -> None:
    r = CliRunner().invoke(app, ["judges"])
    assert r.exit_code == 0, r.output
    flat = " ".join(r.output.split())
    assert "openai:gpt-4o-audio-preview (shut down)" in flat
    assert "openai:gpt-audio-mini (deprecated)" in flat
    assert "desta" in flat and "git clone https://github.com/kehanlu/DeSTA2.5-Audio" in flat
    assert "scaffold" in flat
