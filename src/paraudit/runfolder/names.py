"""The file names of a run folder (everything `paraudit run` writes lives under `--out`)."""

from __future__ import annotations

RUN_JSON = "run.json"
"""The run's identity (RunSpec), the judges' full specs, history and plan skips."""
CALLS = "calls.sqlite"
"""Every judge call as it finished (SQLite, WAL); the resume cache."""
RESULTS = "results.jsonl"
"""One ResultRow per question asked, rewritten atomically at the end of each run."""
LOCK = ".lock"
"""Held (flock) by the one `paraudit run` working in the folder."""
