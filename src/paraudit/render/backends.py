"""`make_tts`: the one place that knows every TTS backend class, above all of them, so the
backends and their shared base (`tts`) never import each other."""

from __future__ import annotations

from pathlib import Path

from paraudit.render.hosted_tts import GeminiTTS, OpenAITTS
from paraudit.render.piper_tts import PiperTTS
from paraudit.render.tts import TTSBackend, parse_tts_spec

DEFAULT_TTS = "piper"


def make_tts(spec: str = DEFAULT_TTS, *, cache_dir: Path | None = None) -> TTSBackend:
    """The backend named by `spec`; hosted renderings are cached under `cache_dir/tts`."""
    s = parse_tts_spec(spec)
    if s.backend == "piper":
        return PiperTTS(spec, s, cache_dir)
    if s.backend == "openai":
        return OpenAITTS(spec, s, cache_dir)
    return GeminiTTS(spec, s, cache_dir)
