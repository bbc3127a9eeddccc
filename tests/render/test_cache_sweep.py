"""Temporary files an interrupted render left in the cache are removed; fresh ones are kept."""

from __future__ import annotations

import os
import time
from pathlib import Path

from paraudit.render.cache_sweep import STALE_S, sweep_stale_temps
from paraudit.render.renderer import Renderer


def _aged(path: Path, age_s: float) -> Path:
    path.write_bytes(b"RIFF")
    then = time.time() - age_s
    os.utime(path, (then, then))
    return path


def test_only_stale_temporary_files_are_removed(tmp_path: Path) -> None:
    stale = _aged(tmp_path / "tmpab12cd34.wav", STALE_S + 60)
    stale_meta = _aged(tmp_path / "tmpzz99.json", STALE_S + 60)
    in_flight = _aged(tmp_path / "tmpef56gh78.wav", 5)  # another process's write
    entry = _aged(tmp_path / ("ab" * 32 + ".wav"), STALE_S * 10)  # a cached clip, however old
    assert sweep_stale_temps(tmp_path) == 2
    assert not stale.exists() and not stale_meta.exists()
    assert in_flight.exists() and entry.exists()
    assert sweep_stale_temps(tmp_path / "missing") == 0
    # Once per process and folder (a renderer is made per clip in places), unless asked again.
    again = _aged(tmp_path / "tmpagain.wav", STALE_S + 60)
    assert sweep_stale_temps(tmp_path) == 0 and again.exists()
    assert sweep_stale_temps(tmp_path, again=True) == 1 and not again.exists()


def test_a_renderer_sweeps_its_cache_when_it_opens_it(tmp_path: Path) -> None:
    """What SIGTERM in a render worker between mkstemp and the rename leaves behind."""
    renders = tmp_path / "renders"
    renders.mkdir()
    stale = _aged(renders / "tmp0k3j_x.wav", STALE_S + 1)
    Renderer(cache_dir=tmp_path)
    assert not stale.exists()
