"""A prompt is an ordered list of text and audio parts; judges receive exactly this."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class AudioPart:
    path: Path
    """The dataset file, sent as is (never resampled or re-encoded silently)."""
    sha256: str
    """Content hash (the file's name in a dataset folder): part of the cache key."""


Part = TextPart | AudioPart
Prompt = tuple[Part, ...]


def prompt_text(prompt: Prompt) -> str:
    """All text parts joined (what a text-only reader sees)."""
    return "\n".join(p.text for p in prompt if isinstance(p, TextPart))


def audio_parts(prompt: Prompt) -> list[AudioPart]:
    return [p for p in prompt if isinstance(p, AudioPart)]
