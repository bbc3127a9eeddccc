"""Shared fixtures: tiny datasets made in the test, and one small real starter build."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from paraudit.items.dataset import audio_name, write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn


def tone(path: Path, freq: float = 150.0, seconds: float = 1.0, amp: float = 0.3) -> bytes:
    """A short voiced-like WAV (harmonic tone with a little noise) written to `path`."""
    rate = 16000
    t = np.arange(int(rate * seconds)) / rate
    rng = np.random.default_rng(int(freq * 10))
    x = amp * (np.sin(2 * np.pi * freq * t) + 0.3 * np.sin(4 * np.pi * freq * t))
    x = x + 0.01 * rng.standard_normal(t.size)
    sf.write(str(path), x, rate, subtype="PCM_16")
    return path.read_bytes()


def make_dataset(
    root: Path, tmp: Path, *, positional: bool = False
) -> tuple[DatasetManifest, list[AuditItem], dict[str, Path]]:
    """Write a valid two-item dataset (one single-turn, optionally one positional)."""
    tmp.mkdir(parents=True, exist_ok=True)
    audio: dict[str, Path] = {}

    def clip(freq: float) -> str:
        p = tmp / f"{freq}.wav"
        rel = audio_name(tone(p, freq))
        audio[rel] = p
        return rel

    items = [
        AuditItem(
            id="st-1",
            task="single-turn-emotions",
            context=(Turn(speaker="human", text="They moved the meeting to Friday."),),
            branches=(
                Branch(
                    emotions=("angry",),
                    audio=(clip(180),),
                    response=Response(
                        text="That is not okay.", emotion="empathetic", audio=clip(200)
                    ),
                ),
                Branch(
                    emotions=("sad",),
                    audio=(clip(110),),
                    response=Response(
                        text="That is a letdown.", emotion="empathetic", audio=clip(210)
                    ),
                ),
            ),
            meta={"pair": "angry/sad"},
        )
    ]
    tasks: tuple[str, ...] = ("single-turn-emotions",)
    if positional:
        ctx = (
            Turn(speaker="human", text="Book a table for two."),
            Turn(speaker="assistant", text="Booked for four."),
            Turn(speaker="human", text="Order a taxi for six."),
            Turn(speaker="assistant", text="Taxi at seven."),
            Turn(speaker="human", text="Send me the details."),
        )
        a, n1, n2, x1, x2 = clip(120), clip(130), clip(140), clip(250), clip(260)
        items.append(
            AuditItem(
                id="pos-1",
                task="positional-emotion",
                context=ctx,
                branches=(
                    Branch(
                        emotions=("neutral", "neutral", "angry", "neutral", "angry"),
                        audio=(n1, a, x1, a, x2),
                        response=Response(
                            text="Fixed the party size.", emotion="empathetic", audio=clip(220)
                        ),
                    ),
                    Branch(
                        emotions=("neutral", "neutral", "neutral", "neutral", "angry"),
                        audio=(n1, a, n2, a, x2),
                        response=Response(
                            text="Fixed the taxi time.", emotion="empathetic", audio=clip(230)
                        ),
                    ),
                ),
            )
        )
        tasks = (*tasks, "positional-emotion")
    manifest = DatasetManifest(name="tiny", tasks=tasks)
    write_dataset(root, manifest, items, audio)
    return manifest, items, audio


@pytest.fixture
def tiny_dataset(tmp_path: Path) -> Path:
    root = tmp_path / "ds"
    make_dataset(root, tmp_path / "src", positional=True)
    return root


@pytest.fixture(scope="session")
def render_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("render-cache")


@pytest.fixture(scope="session")
def starter_small(tmp_path_factory: pytest.TempPathFactory, render_cache: Path) -> Path:
    """A real starter build (Piper + Praat), two items per task."""
    from paraudit.compose.starter import build_starter

    out = tmp_path_factory.mktemp("starter") / "ds"
    build_starter(out, limit=2, cache_dir=render_cache)
    return out
