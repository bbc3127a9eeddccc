"""`?clips=joined`: a prompt's clips sent as one clip, each announced by a spoken marker.

Some models handle one audio input best (Qwen-Omni's authors say several audio inputs "may not
be fully optimized" — exactly the pairwise protocol); AudioJudge joins the clips into one with
spoken markers ("Audio 1", "Audio 2"). Here the markers are rendered offline by the bundled
Piper voice, at the clips' rate, and the joined clip is

    marker 1, gap, clip 1, pause, marker 2, gap, clip 2, …, marker N, gap, clip N

so its duration is the parts plus the markers and the gaps, exactly (`JoinInfo`). In the text,
each clip's place says which marker it is; the joined clip follows the text. What was joined is
recorded in every call's usage, and the joined file is content-addressed like dataset clips.
"""

from __future__ import annotations

import hashlib
import io
import tempfile
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from paraudit.audio.clips import resample
from paraudit.protocols.parts import AudioPart, Part, Prompt, TextPart

MARKER_GAP_S = 0.25
"""Silence between a marker and its clip."""
PAUSE_S = 0.6
"""Silence between one clip and the next marker."""
JOINED_NOTE = (
    "The audio clips above are sent joined in the single audio clip below, in that order; each "
    'is announced by a spoken marker ("Audio 1", "Audio 2", …) that matches its place above.'
)


@dataclass(frozen=True)
class JoinInfo:
    """How one prompt's clips were joined (recorded in the call's usage)."""

    parts_sha256: tuple[str, ...]
    parts_s: tuple[float, ...]
    parts_hz: tuple[int, ...]
    """Each clip's own rate: one that differs from `sample_rate` was resampled to it."""
    markers_s: tuple[float, ...]
    marker_gap_s: float
    pause_s: float
    sample_rate: int
    joined_s: float
    joined_sha256: str

    def as_usage(self) -> dict[str, Any]:
        return {"clips": "joined", **asdict(self)}


@lru_cache(maxsize=64)
def marker(n: int, rate: int) -> np.ndarray:
    """ "Audio n" spoken by the bundled Piper voice, at `rate` (deterministic synthesis)."""
    from paraudit.render.piper_voice import load_synth, resolve_voice

    synth = load_synth(resolve_voice(None))
    return resample(synth.synthesize(f"Audio {n}."), synth.sample_rate, rate)


def _read(part: AudioPart) -> tuple[np.ndarray, int]:
    data, rate = sf.read(part.path, dtype="float64", always_2d=True)
    return data.mean(axis=1), int(rate)


def join_prompt(prompt: Prompt, folder: Path | None = None) -> tuple[Prompt, JoinInfo | None]:
    """The prompt with its clips joined into one (None when it has fewer than two clips: there
    is nothing to join, and the prompt is sent as it is)."""
    clips = tuple(p for p in prompt if isinstance(p, AudioPart))
    if len(clips) < 2:
        return prompt, None
    data, info = _join(clips)
    where = folder or Path(tempfile.gettempdir()) / "paraudit-joined"
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{info.joined_sha256}.wav"
    if not path.exists():
        path.write_bytes(data)
    parts: list[Part] = []
    n = 0
    for p in prompt:
        if isinstance(p, AudioPart):
            n += 1
            parts.append(TextPart(f"[Audio {n}]"))
        else:
            parts.append(p)
    parts += [TextPart(JOINED_NOTE), AudioPart(path, info.joined_sha256)]
    return tuple(parts), info


# A plan asks the same clips in the same order many times in a row (every cue and response
# order of a probe: the demo's 4,336 joined calls hold 513 distinct joined clips, and eight
# recent ones already catch all repeats); joining is decoding, resampling and encoding, so
# the last few are kept (bytes, at most a few MB each).
@lru_cache(maxsize=8)
def _join(clips: tuple[AudioPart, ...]) -> tuple[bytes, JoinInfo]:
    """The joined clip's WAV bytes and how it was joined: a function of the clips alone."""
    audio = [_read(c) for c in clips]
    rate = audio[0][1]  # a dataset has one rate; another clip's is converted to it
    pieces: list[np.ndarray] = []
    lengths: list[float] = []
    markers: list[float] = []
    for i, (x, r) in enumerate(audio, 1):
        x = resample(x, r, rate)
        m = marker(i, rate)
        if i > 1:
            pieces.append(np.zeros(round(PAUSE_S * rate)))
        pieces += [m, np.zeros(round(MARKER_GAP_S * rate)), x]
        lengths.append(len(x) / rate)
        markers.append(len(m) / rate)
    joined = np.concatenate(pieces)
    buf = io.BytesIO()
    sf.write(buf, np.clip(joined, -1.0, 1.0), rate, "PCM_16", format="WAV")
    data = buf.getvalue()
    info = JoinInfo(
        tuple(c.sha256 for c in clips),
        tuple(lengths),
        tuple(r for _, r in audio),
        tuple(markers),
        MARKER_GAP_S,
        PAUSE_S,
        rate,
        len(joined) / rate,
        hashlib.sha256(data).hexdigest(),
    )
    return data, info


def check_renderer() -> None:
    """Raise the missing-extra message now (at judge construction), not at the first call."""
    from paraudit.render.piper_voice import load_synth, resolve_voice

    load_synth(resolve_voice(None))


__all__ = ["JOINED_NOTE", "JoinInfo", "check_renderer", "join_prompt", "marker"]
