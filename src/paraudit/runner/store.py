"""The SQLite run store: one row per judge call, written as calls finish (WAL mode).

A rerun reads it first, so finished calls are never repeated; `error` rows are retried.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
  key TEXT PRIMARY KEY,
  judge TEXT NOT NULL,
  status TEXT NOT NULL,          -- ok | refused | error
  raw TEXT,
  reason TEXT,
  latency_s REAL,
  attempts INTEGER,
  usage TEXT,
  audio_sha TEXT,
  finished_at REAL
);
"""


class RunStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()

    def finished(self) -> dict[str, dict[str, Any]]:
        """Calls that will not be repeated (status ok or refused)."""
        rows = self._db.execute(
            "SELECT key, status, raw, reason, latency_s, attempts, usage, audio_sha FROM calls "
            "WHERE status != 'error'"
        ).fetchall()
        return {
            r[0]: {
                "status": r[1],
                "raw": r[2],
                "reason": r[3],
                "latency_s": r[4],
                "attempts": r[5],
                "usage": json.loads(r[6] or "{}"),
                "audio_sent": json.loads(r[7] or "[]"),
            }
            for r in rows
        }

    def put(
        self,
        key: str,
        judge: str,
        status: str,
        raw: str | None,
        reason: str,
        latency_s: float,
        attempts: int,
        usage: dict[str, Any],
        audio_sha: list[str],
    ) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO calls VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    key,
                    judge,
                    status,
                    raw,
                    reason,
                    latency_s,
                    attempts,
                    json.dumps(usage),
                    json.dumps(audio_sha),
                    time.time(),
                ),
            )

    def close(self) -> None:
        self._db.close()
