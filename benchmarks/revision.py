"""A git revision's files, for benchmarks that time a baseline beside this code."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def extract(rev: str, work: Path, *paths: str) -> Path:
    """`git archive REV PATHS…` extracted under `work` (made if missing); returns `work`. A
    revision git does not know is one line (SystemExit), not a traceback."""
    work.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, *paths], capture_output=True)
    if archive.returncode != 0:
        msg = archive.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        raise SystemExit(f"--baseline-rev {rev}: git archive failed ({msg[0]})")
    subprocess.run(["tar", "-x", "-C", str(work)], input=archive.stdout, check=True)
    return work
