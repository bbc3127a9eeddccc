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


def test_every_model_the_readme_names_for_a_paper_judge_is_catalogued() -> None:
    """The paper's hosted judges each carry what the provider's pages said (README table)."""
    from paraudit.judges.catalogue import BY_MODEL, CHECKED

    for model in (
        "openai:gpt-audio",
        "openai:gpt-4o-audio-preview",
        "openai:gpt-audio-mini",
        "openai:gpt-4o-mini-audio-preview",
        "gemini:gemini-2.5-pro",
        "gemini:gemini-2.5-flash",
        "gemini:gemini-3-pro-preview",
        "gemini:gemini-3-flash-preview",
    ):
        assert BY_MODEL[model].status in ("current", "deprecated", "shut down"), model
    assert CHECKED
    # Not current: a note at run time (for the provider's endpoint only).
    assert "shutdown" in (model_note("gemini", "gemini-3-pro-preview", None) or "")
    assert "could not be read" in (model_note("gemini", "gemini-2.5-pro", None) or "")
    assert model_note("gemini", "gemini-3-flash-preview", None) is None


def test_a_gemini_judge_is_built_with_the_note(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("google.genai", reason="the 'gemini' extra is not installed")
    monkeypatch.setenv("GEMINI_API_KEY", "test-not-a-key")
    assert any("March 9, 2026" in n for n in load_judge("gemini:gemini-3-pro-preview").notes)
    assert load_judge("gemini:gemini-3-flash-preview").notes == []
