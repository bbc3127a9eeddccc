"""One acoustic built-in judge per dimension other than emotion (`builtin:NAME`): each hears its
dimension from the clip's measured figures (base.py), the emotion judge is builtin:prosody.

Why one judge per dimension rather than builtin:prosody dispatching on the dataset: a built-in's
identity (name + declared state) is in every call key, and it cannot depend on the dataset the
judge later meets. builtin:prosody's answers on emotion are fixed by the emotion run folders
that must resume with 0 new calls; a dispatching prosody would answer a new dimension's
questions differently under the keys of its old answers (always R1 there). A new name is a new
identity: nothing stored is read as its answer, and each judge's rule lives in its own module.
"""

from __future__ import annotations

import importlib

from paraudit.judges.builtin.listeners.base import Listener

LISTENERS: dict[str, str] = {
    "emphasis": "paraudit.judges.builtin.listeners.emphasis:EmphasisListener",
    "urgency": "paraudit.judges.builtin.listeners.urgency:UrgencyListener",
    "whisper": "paraudit.judges.builtin.listeners.whisper:WhisperListener",
    "sarcasm": "paraudit.judges.builtin.listeners.sarcasm:SarcasmListener",
    "hesitation": "paraudit.judges.builtin.listeners.hesitation:HesitationListener",
}
"""builtin:NAME → the listener that hears dimension NAME (imported when the judge is made)."""


def listener(name: str) -> Listener:
    module, _, cls = LISTENERS[name].partition(":")
    made: Listener = getattr(importlib.import_module(module), cls)()
    return made


def judge_for(dimension: str) -> str:
    """The acoustic built-in that hears `dimension` (builtin:prosody for emotion); a
    dimension without one (a third party's) is a KeyError naming it."""
    if dimension == "emotion":
        return "builtin:prosody"
    if dimension not in LISTENERS:
        raise KeyError(f"no acoustic built-in judge hears {dimension!r}")
    return f"builtin:{dimension}"
