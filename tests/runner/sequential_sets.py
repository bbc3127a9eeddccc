"""A single-turn dataset of many items made in the test (real WAV tones, a distinct pair of
pitches per item), large enough for a sequential run to stop before its plan ends."""

from __future__ import annotations

from pathlib import Path

from paraudit.items.dataset import audio_name, write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn
from tests.conftest import tone


def tone_set(root: Path, tmp: Path, items: int, unclear: int = 0) -> Path:
    """`items` single-turn items; branch 0 is the higher-pitched (angry) one on even items.
    `unclear` > 0: every `unclear`-th item's two branches get pitches only a few hertz apart
    (in the middle of the set's range), which an acoustic judge cannot tell apart reliably:
    a judge that hears the others right then sits near the reliable bar."""
    tmp.mkdir(parents=True, exist_ok=True)
    audio: dict[str, Path] = {}

    def clip(freq: float) -> str:
        p = tmp / f"{freq:.2f}.wav"
        rel = audio_name(tone(p, freq, seconds=0.5))
        audio[rel] = p
        return rel

    out = []
    for i in range(items):
        high, low = 180.0 + i * 0.37, 110.0 + i * 0.23
        if unclear and i % unclear == 0:
            high, low = 150.0 + i * 0.31, 149.0 + i * 0.31
        angry = Branch(
            emotions=("angry",),
            audio=(clip(high),),
            response=Response(
                text=f"That is not okay, case {i}.",
                emotion="empathetic",
                audio=clip(300 + i * 0.41),
            ),
        )
        sad = Branch(
            emotions=("sad",),
            audio=(clip(low),),
            response=Response(
                text=f"That is a letdown, case {i}.",
                emotion="empathetic",
                audio=clip(400 + i * 0.43),
            ),
        )
        out.append(AuditItem(
            id=f"st-{i:03d}", task="single-turn-emotions",
            context=(Turn(speaker="human", text=f"They moved meeting {i} to Friday."),),
            branches=(angry, sad) if i % 2 == 0 else (sad, angry), meta={"pair": "angry/sad"},
        ))  # fmt: skip
    manifest = DatasetManifest(name="tones", tasks=("single-turn-emotions",))
    write_dataset(root, manifest, out, audio)
    return root
