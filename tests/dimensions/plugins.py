"""A third-party dimension installed for real in a test: a module plus its .dist-info with
entry_points.txt, put on sys.path, found by importlib.metadata as a pip install would be."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest


def install_plugin(
    tmp: Path, monkeypatch: pytest.MonkeyPatch, module: str, source: str, entries: str
) -> None:
    root = tmp / "site"
    info = root / f"{module}-1.0.dist-info"
    info.mkdir(parents=True)
    dist = module.replace("_", "-")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[paraudit.dimensions]\n" + textwrap.dedent(entries))
    (root / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.delitem(sys.modules, module, raising=False)
