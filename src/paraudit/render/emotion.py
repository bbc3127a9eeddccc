"""The emotion dimension's offline renderer: the starter set's Piper + Praat PSOLA chain
(`render/renderer.py`), behind the dimension contract's `render(text, value, *, voice, seed)`.

It wraps, and does not replace, the chain the starter builder calls: the same profile at the
same strength gives the same cache key and so the same bytes as the starter set's clip.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

from paraudit.dimensions.base import RenderedClip
from paraudit.dimensions.emotion import EMOTION
from paraudit.errors import ParauditError
from paraudit.render.profiles import HUMAN_PROFILES
from paraudit.render.renderer import Renderer


def render(
    text: str,
    value: str,
    *,
    voice: str | Path | None = None,
    seed: int = 0,
    strength: float = 1.0,
    cache_dir: Path | None = None,
) -> RenderedClip:
    """A human turn saying `text` with emotion `value` (a value or an alias of one).

    Piper with zero noise is deterministic, so `seed` changes nothing and is only recorded;
    `strength` scales the profile away from neutral (the starter's retries use 1.3 and 1.6).
    """
    name = EMOTION.canonical(value)
    if name is None or name not in HUMAN_PROFILES:
        offline = ", ".join(HUMAN_PROFILES)
        raise ParauditError(
            f"emotion '{value}' has no offline rendering (Piper profiles: {offline}); render it "
            "with a hosted TTS (--tts openai:gpt-4o-mini-tts)"
        )
    renderer = Renderer(voice, cache_dir)
    profile = HUMAN_PROFILES[name].scaled(strength)
    clip = renderer.render(text, "human", profile)
    samples, rate = sf.read(str(clip.path), dtype="float32")
    return RenderedClip(
        samples=np.asarray(samples, dtype=np.float32),
        rate=int(rate),
        meta={
            "tts": renderer.label,
            "profile": profile.params(),
            "strength": strength,
            "seed": seed,
            "render_key": clip.key,
        },
        text=text,
    )
