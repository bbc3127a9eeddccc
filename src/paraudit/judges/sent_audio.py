"""What a backend records in each call's usage for the audio-delivery check (stats/delivery.py).

`audio_sent_s` is the seconds of audio the call sent (the clips as sent: one joined clip under
`?clips=joined`), so the count the provider reports can be compared with what the durations
imply. Local processors also record the audio feature frames they produced (`frame_usage`):
a processor that ignores `audio=` produces none, and the model answers blind.
"""

from __future__ import annotations

import math
from typing import Any

import soundfile as sf

from paraudit.protocols.parts import AudioPart, Prompt

# Durations by content hash: a plan sends the same few thousand clips again and again.
_SECONDS: dict[str, float] = {}


def sent_seconds(prompt: Prompt) -> float:
    """Seconds of audio in the prompt (a clip sent twice counts twice)."""
    total = 0.0
    for p in prompt:
        if isinstance(p, AudioPart):
            s = _SECONDS.get(p.sha256)
            if s is None:
                s = _SECONDS[p.sha256] = float(sf.info(str(p.path)).duration)
            total += s
    return total


def sent_usage(prompt: Prompt) -> dict[str, Any]:
    """The usage entry a call that sends `prompt` records ({} for a call without audio)."""
    if not any(isinstance(p, AudioPart) for p in prompt):
        return {}
    return {"audio_sent_s": round(sent_seconds(prompt), 3)}


FEATURE_KEYS = ("input_features", "input_audio_features", "audio_values", "input_audio_embeds")
"""Processor outputs that hold audio features (Whisper-style extractors and others)."""


def frame_usage(
    inputs: Any, clips: list[int], samples: list[int], hop: int | None
) -> list[dict[str, Any]]:
    """Per call, the audio feature frames the processor produced and those its clips' samples
    imply at the extractor's hop. `clips[i]` is call i's clip count, `samples` every clip's
    length in order. A processor output with clips sent but no audio features at all counts
    0 (the processor dropped the audio); one whose layout is not known records nothing."""
    keys = set(inputs.keys()) if hasattr(inputs, "keys") else set()
    total = sum(clips)
    if not total:
        return [{} for _ in clips]
    per_clip: list[int] | None
    if "feature_attention_mask" in keys:
        per_clip = [int(x) for x in inputs["feature_attention_mask"].sum(dim=-1).tolist()]
    elif keys & set(FEATURE_KEYS):
        feats = inputs[next(k for k in FEATURE_KEYS if k in keys)]
        shape = tuple(getattr(feats, "shape", ()))
        per_clip = [int(shape[-1])] * total if shape and shape[0] == total else None
    else:
        per_clip = [0] * total
    if per_clip is None or len(per_clip) != total:
        return [{} for _ in clips]
    out, at = [], 0
    for n in clips:
        mine = per_clip[at : at + n]
        entry: dict[str, Any] = {"audio_features": sum(mine)}
        if hop:
            entry["audio_features_expected"] = sum(math.ceil(s / hop) for s in samples[at : at + n])
        out.append(entry if n else {})
        at += n
    return out
