"""Known hosted models and what their providers say about them (shut down, deprecated).

The paper's "GPT-4o audio" judge was `gpt-4o-audio-preview`; the provider's model docs now mark
it shut down and name `gpt-audio` in its place. A spec naming it is still accepted (a stored
run must stay readable and re-runnable against a compatible server), with a note saying so.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelNote:
    model: str
    """backend:model"""
    status: str
    """'current', 'shut down' or 'deprecated', as the provider's model docs mark it."""
    note: str


CATALOGUE: tuple[ModelNote, ...] = (
    ModelNote(
        "openai:gpt-audio",
        "current",
        "the paper's GPT-4o audio judge today (the provider's replacement for "
        "gpt-4o-audio-preview)",
    ),
    ModelNote(
        "openai:gpt-4o-audio-preview",
        "shut down",
        "the provider's model docs mark gpt-4o-audio-preview shut down; use openai:gpt-audio "
        "(the spec is still accepted, e.g. for an OpenAI-compatible server that serves it)",
    ),
    ModelNote(
        "openai:gpt-audio-mini",
        "deprecated",
        "the provider's model docs mark gpt-audio-mini deprecated",
    ),
)
BY_MODEL = {m.model: m for m in CATALOGUE}


def model_note(backend: str, model: str, base_url: str | None) -> str | None:
    """What the user should know about this hosted model (None for a current or unknown one,
    and for any model on the user's own server, which the provider's status does not bind)."""
    m = BY_MODEL.get(f"{backend}:{model}")
    if m is None or m.status == "current" or base_url is not None:
        return None
    return m.note


def catalogue_lines() -> list[str]:
    """One line per catalogued model, for `paraudit judges`."""
    return [f"{m.model} ({m.status}): {m.note}" for m in CATALOGUE]


__all__ = ["CATALOGUE", "ModelNote", "catalogue_lines", "model_note"]
