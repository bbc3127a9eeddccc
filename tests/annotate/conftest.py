"""Datasets for the listening-test tests: tones made here, no speech synthesis needed."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paraudit.items.dataset import write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn
from tests.conftest import ToneClips

SRC = Path(__file__).resolve().parents[2] / "src"


def make_many(root: Path, tmp: Path, n: int, *, seconds: float = 0.05) -> list[AuditItem]:
    """A single-turn dataset of `n` items with short tones (distinct texts per item)."""
    clip = ToneClips(tmp, seconds=seconds)

    items = []
    for i in range(n):
        base = 100 + 7 * i
        items.append(
            AuditItem(
                id=f"item-{i:03d}",
                task="single-turn-emotions",
                context=(Turn(speaker="human", text=f"Request number {i} was moved."),),
                branches=(
                    Branch(
                        emotions=("angry",),
                        audio=(clip(base),),
                        response=Response(
                            text=f"Reply A to request {i}.",
                            emotion="empathetic",
                            audio=clip(base + 1),
                        ),
                    ),
                    Branch(
                        emotions=("sad",),
                        audio=(clip(base + 2),),
                        response=Response(
                            text=f"Reply B to request {i}.",
                            emotion="empathetic",
                            audio=clip(base + 3),
                        ),
                    ),
                ),
            )
        )
    manifest = DatasetManifest(name="many", tasks=("single-turn-emotions",))
    write_dataset(root, manifest, items, clip.audio)
    return items


@pytest.fixture
def many_dataset(tmp_path: Path) -> Path:
    root = tmp_path / "many"
    make_many(root, tmp_path / "tones", 60, seconds=0.4)  # served by the CLI: must validate
    return root


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def start_cli_server(args: list[str], port: int) -> subprocess.Popen[bytes]:
    """`paraudit annotate …` in a child process; returns once it accepts connections."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "paraudit.cli.main", "annotate", *args, "--port", str(port)],
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read().decode() if proc.stdout else ""
            raise AssertionError(f"server exited early: {out}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("server did not start")


def stop(proc: subprocess.Popen[bytes]) -> str:
    proc.terminate()
    try:
        out, _ = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return out.decode()
