"""calls.sqlite: one CallRecord per judge call, written as calls finish (WAL mode).

A rerun reads it first, so finished calls (ok or refused) are never repeated; `error` calls
are retried. The schema carries `PRAGMA user_version`; MIGRATIONS[n] takes a version-n file to
version n + 1, so a run folder written by an older paraudit resumes after an upgrade.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paraudit.errors import ParauditError

MIGRATIONS: tuple[str, ...] = (
    # 0 → 1: the calls table as first released (files before versioning already have it).
    """
    CREATE TABLE IF NOT EXISTS calls (
      key TEXT PRIMARY KEY,
      judge TEXT NOT NULL,
      status TEXT NOT NULL,
      raw TEXT,
      reason TEXT,
      latency_s REAL,
      attempts INTEGER,
      usage TEXT,
      audio_sha TEXT,
      finished_at REAL
    );
    """,
    # 1 → 2: the prompt as sent (JSON list of {"text": …} / {"audio": sha256}), so an auditor
    # can read exactly what each judge was asked.
    "ALTER TABLE calls ADD COLUMN prompt TEXT;",
)
VERSION = len(MIGRATIONS)


@dataclass(frozen=True)
class CallRecord:
    key: str
    """sha256 of the judge identity, output-changing parameters, prompt and sample index."""
    judge: str
    """The judge's label."""
    status: str
    """ok | refused | error"""
    raw: str | None
    reason: str
    latency_s: float
    attempts: int
    usage: dict[str, Any]
    audio_sent: list[str]
    """sha256 of each clip's bytes as sent."""
    prompt: list[dict[str, str]] | None = None
    """The prompt's parts in order ({"text": …} or {"audio": sha256}); None for calls stored
    before schema version 2."""
    finished_at: float = 0.0


COLUMNS = (
    "key, judge, status, raw, reason, latency_s, attempts, usage, audio_sha, prompt, finished_at"
)


def _record(r: tuple[Any, ...]) -> CallRecord:
    return CallRecord(
        key=r[0],
        judge=r[1],
        status=r[2],
        raw=r[3],
        reason=r[4] or "",
        latency_s=r[5] or 0.0,
        attempts=r[6] or 0,
        usage=json.loads(r[7] or "{}"),
        audio_sent=json.loads(r[8] or "[]"),
        prompt=json.loads(r[9]) if r[9] else None,
        finished_at=r[10] or 0.0,
    )


class CallStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as e:
            raise ParauditError(
                f"{path} is not a readable call store ({e}); move it aside to start the calls "
                "afresh (finished answers in it are then asked again)"
            ) from None
        self._lock = threading.Lock()

    def _migrate(self) -> None:
        version: int = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > VERSION:
            raise ParauditError(
                f"{self.path} has schema version {version}, newer than this paraudit knows "
                f"({VERSION}); upgrade paraudit to resume this run"
            )
        for n in range(version, VERSION):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(MIGRATIONS[n])  # one statement each: no implicit COMMIT
                self._db.execute(f"PRAGMA user_version = {n + 1}")
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    @property
    def version(self) -> int:
        v: int = self._db.execute("PRAGMA user_version").fetchone()[0]
        return v

    def records(self, *, finished_only: bool = False) -> list[CallRecord]:
        where = " WHERE status != 'error'" if finished_only else ""
        rows = self._db.execute(f"SELECT {COLUMNS} FROM calls{where}").fetchall()
        return [_record(r) for r in rows]

    def finished(self) -> dict[str, CallRecord]:
        """Calls that will not be repeated (status ok or refused), by key."""
        return {r.key: r for r in self.records(finished_only=True)}

    def put(self, rec: CallRecord) -> None:
        with self._lock:
            self._db.execute(
                f"INSERT OR REPLACE INTO calls ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    rec.key,
                    rec.judge,
                    rec.status,
                    rec.raw,
                    rec.reason,
                    rec.latency_s,
                    rec.attempts,
                    json.dumps(rec.usage),
                    json.dumps(rec.audio_sent),
                    json.dumps(rec.prompt) if rec.prompt is not None else None,
                    rec.finished_at or time.time(),
                ),
            )

    def close(self) -> None:
        self._db.close()
