"""Known hosted models and what their providers say about them (shut down, deprecated).

The paper's "GPT-4o audio" judge was `gpt-4o-audio-preview`; the provider's model docs now mark
it shut down and name `gpt-audio` in its place. A spec naming it is still accepted (a stored
run must stay readable and re-runnable against a compatible server), with a note saying so.

Each entry says what the provider's own pages said when it was checked (`CHECKED`), with the
page in a comment. No page can be fetched from this machine: they were read through a search
index of stored copies, whose dates differ, so a note names the copy it rests on and says so
where the provider's current page could not be read. Check the provider's page before relying
on a status; this table is a reminder, not the source of record.
"""

from __future__ import annotations

from dataclasses import dataclass

CHECKED = "2026-12-01"
"""When the provider pages behind the notes were read (through stored copies)."""


@dataclass(frozen=True)
class ModelNote:
    model: str
    """backend:model"""
    status: str
    """'current', 'shut down' or 'deprecated', as the provider's model docs mark it."""
    note: str


CATALOGUE: tuple[ModelNote, ...] = (
    # https://developers.openai.com/api/docs/models/gpt-audio (no deprecation mark; "our first
    # generally available audio model", default snapshot gpt-audio-2025-08-28)
    ModelNote(
        "openai:gpt-audio",
        "current",
        "the paper's GPT-4o audio judge today (the provider's replacement for "
        "gpt-4o-audio-preview; its model page carries no deprecation mark)",
    ),
    # https://developers.openai.com/api/docs/models/gpt-4o-audio-preview ("Shut down");
    # https://developers.openai.com/api/docs/deprecations (a copy of 2026-05-14 lists its
    # 2024-12-17 snapshot for shutdown on 2026-07-23, substitute gpt-audio-1.5)
    ModelNote(
        "openai:gpt-4o-audio-preview",
        "shut down",
        "the provider's model docs mark gpt-4o-audio-preview shut down; use openai:gpt-audio "
        "(the spec is still accepted, e.g. for an OpenAI-compatible server that serves it)",
    ),
    # https://developers.openai.com/api/docs/models/gpt-audio-mini ("Deprecated")
    ModelNote(
        "openai:gpt-audio-mini",
        "deprecated",
        "the provider's model docs mark gpt-audio-mini deprecated",
    ),
    # https://developers.openai.com/api/docs/models/gpt-4o-mini-audio-preview (the stored copy
    # shows no status); https://developers.openai.com/api/docs/deprecations (a copy of
    # 2026-05-14: snapshot gpt-4o-mini-audio-preview-2024-12-17, its default, shut down on
    # 2026-07-23, substitute gpt-audio-mini)
    ModelNote(
        "openai:gpt-4o-mini-audio-preview",
        "shut down",
        "the provider's deprecations page lists its default snapshot for shutdown on "
        "2026-07-23 (substitute gpt-audio-mini, itself marked deprecated)",
    ),
    # https://ai.google.dev/gemini-api/docs/deprecations: the stored copy that lists the 2.5
    # models gives a shutdown date of June 17, 2026 (replacement gemini-3.1-pro-preview); the
    # newest stored copy (models up to gemini-3.8, September 2026) was read only in part and
    # its 2.5 rows were not among it.
    ModelNote(
        "gemini:gemini-2.5-pro",
        "deprecated",
        "Google's deprecations page lists a shutdown date (June 17, 2026 in the copy read "
        "here); its current row could not be read, so check whether it still answers",
    ),
    # https://ai.google.dev/gemini-api/docs/deprecations: as for 2.5 Pro (June 17, 2026,
    # replacement gemini-3-flash-preview in the copy that lists the 2.5 rows).
    ModelNote(
        "gemini:gemini-2.5-flash",
        "deprecated",
        "Google's deprecations page lists a shutdown date (June 17, 2026 in the copy read "
        "here); its current row could not be read, so check whether it still answers",
    ),
    # https://ai.google.dev/gemini-api/docs/deprecations (gemini-3-pro-preview: shutdown
    # March 9, 2026, replacement gemini-3.1-pro-preview)
    ModelNote(
        "gemini:gemini-3-pro-preview",
        "shut down",
        "Google's deprecations page gives March 9, 2026 as its shutdown date; its named "
        "replacement is gemini:gemini-3.1-pro-preview",
    ),
    # https://ai.google.dev/gemini-api/docs/deprecations (gemini-3-flash-preview: "No shutdown
    # date announced"; a later copy names gemini-3.5-flash as its recommended replacement)
    ModelNote(
        "gemini:gemini-3-flash-preview",
        "current",
        "a preview model: Google's deprecations page announces no shutdown date for it "
        "(a later copy names gemini-3.5-flash as its recommended replacement)",
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


__all__ = ["CATALOGUE", "CHECKED", "ModelNote", "catalogue_lines", "model_note"]
