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
from collections.abc import Iterable, Iterator
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
    # 2 → 3: one row per finished audit (its identity, and results.jsonl's size and hash as
    # written), so rerunning a finished audit checks the store instead of replaying the plan.
    """
    CREATE TABLE IF NOT EXISTS completions (
      run_key TEXT PRIMARY KEY,
      rows INTEGER NOT NULL,
      errors INTEGER NOT NULL,
      results_size INTEGER NOT NULL,
      results_sha256 TEXT NOT NULL,
      outcome TEXT NOT NULL,
      finished_at REAL NOT NULL
    );
    """,
    # 3 → 4: who answered, as the provider says (JSON: `model`, and `system_fingerprint` or
    # `model_version` where the API gives one); NULL for calls stored before it was recorded.
    "ALTER TABLE calls ADD COLUMN served TEXT;",
)
VERSION = len(MIGRATIONS)


@dataclass(frozen=True)
class CallRecord:
    """One judge call, from the call (runner.calls.call_with_retries, here or on an engine's
    worker) to calls.sqlite and the result row made from it."""

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
    served: dict[str, str] | None = None
    """Who answered, as the reply says (judges.base.Reply.served); None when the provider
    said nothing or the call was stored before schema version 4."""


@dataclass(frozen=True)
class Completion:
    """A finished audit as recorded in the store (see CallStore.complete)."""

    run_key: str
    """sha256 of everything that decides the audit's rows (RunStore spec, each judge's
    identity and parameters, the paraudit version)."""
    rows: int
    errors: int
    """Rows that ended in a call error (a rerun asks those again, so it is no finished audit)."""
    results_size: int
    results_sha256: str
    outcome: dict[str, Any]
    """What the run printed at its end (counts and the terminal table), to print it again."""
    finished_at: float


# A batch of keys looked up at once stays well below SQLite's limit on bound parameters.
LOOKUP_BATCH = 500


def _batches(keys: list[str]) -> Iterator[tuple[list[str], str]]:
    """The keys in batches of LOOKUP_BATCH, each with its "?,?,…" placeholders for IN (…)."""
    for start in range(0, len(keys), LOOKUP_BATCH):
        batch = keys[start : start + LOOKUP_BATCH]
        yield batch, ",".join("?" * len(batch))


COLUMNS = (
    "key, judge, status, raw, reason, latency_s, attempts, usage, audio_sha, prompt, finished_at, "
    "served"
)

# COLUMNS without the prompt, which is NULL in its place.
ANSWER_COLUMNS = COLUMNS.replace("prompt", "NULL")


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
        served=json.loads(r[11]) if r[11] else None,
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

    @staticmethod
    def count_finished(path: Path, keys_batches: Iterable[list[str]]) -> int:
        """How many of the keys have a finished call in the store at `path`, read-only (a dry
        run must not migrate or otherwise touch a run's store); 0 when there is no store."""
        if not path.is_file():
            return 0
        try:
            # as_uri() escapes '#', '?' and '%' in the path, which a raw "file:" URI would read
            # as its own syntax (and open, or create, another file).
            db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
        except sqlite3.Error:
            return 0
        found = 0
        try:
            for keys in keys_batches:
                for batch, marks in _batches(keys):
                    found += db.execute(
                        f"SELECT count(*) FROM calls WHERE status != 'error' AND key IN ({marks})",
                        batch,
                    ).fetchone()[0]
        except sqlite3.DatabaseError as e:
            raise ParauditError(f"{path} is not a readable call store ({e})") from None
        finally:
            db.close()
        return found

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

    def finished_among(self, keys: list[str]) -> dict[str, CallRecord]:
        """The finished calls (ok or refused) among `keys`, by key: a runner streaming its plan
        asks for one batch at a time instead of holding every stored call. Their `prompt` is
        not read (None): the rows made from them do not need it, and it is the largest field."""
        out: dict[str, CallRecord] = {}
        for batch, marks in _batches(keys):
            with self._lock:
                rows = self._db.execute(
                    f"SELECT {ANSWER_COLUMNS} FROM calls WHERE status != 'error' "
                    f"AND key IN ({marks})",
                    batch,
                ).fetchall()
            out.update((r[0], _record(r)) for r in rows)
        return out

    def completion(self, run_key: str) -> Completion | None:
        """The record of a finished audit with this identity, if the store has one."""
        with self._lock:
            r = self._db.execute(
                "SELECT run_key, rows, errors, results_size, results_sha256, outcome, "
                "finished_at FROM completions WHERE run_key = ?",
                (run_key,),
            ).fetchone()
        if r is None:
            return None
        return Completion(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6])

    def complete(self, done: Completion) -> None:
        """Record a finished audit (replacing an earlier record of the same identity)."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO completions (run_key, rows, errors, results_size, "
                "results_sha256, outcome, finished_at) VALUES (?,?,?,?,?,?,?)",
                (
                    done.run_key,
                    done.rows,
                    done.errors,
                    done.results_size,
                    done.results_sha256,
                    json.dumps(done.outcome),
                    done.finished_at,
                ),
            )

    def put(self, rec: CallRecord) -> None:
        with self._lock:
            self._db.execute(
                f"INSERT OR REPLACE INTO calls ({COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
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
                    json.dumps(rec.served) if rec.served is not None else None,
                ),
            )

    def close(self) -> None:
        # Under the lock: a Ray Data pass still stopping (engines.ray_data) may be writing
        # from its own thread; after this its writes fail instead of racing the close.
        with self._lock:
            self._db.close()
