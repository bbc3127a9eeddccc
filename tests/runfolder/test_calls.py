"""calls.sqlite: schema version, numbered migrations, clear errors for unreadable files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from paraudit.errors import ParauditError
from paraudit.runfolder.calls import VERSION, CallRecord, CallStore

V0_SCHEMA = """
CREATE TABLE calls (
  key TEXT PRIMARY KEY, judge TEXT NOT NULL, status TEXT NOT NULL, raw TEXT, reason TEXT,
  latency_s REAL, attempts INTEGER, usage TEXT, audio_sha TEXT, finished_at REAL
);
"""


def _version0_file(path: Path) -> None:
    """A store as paraudit wrote it before schema versions: no user_version, no prompt."""
    db = sqlite3.connect(path)
    db.executescript(V0_SCHEMA)
    db.execute(
        "INSERT INTO calls VALUES (?,?,?,?,?,?,?,?,?,?)",
        ("k1", "builtin:random", "ok", '{"pred": "R1"}', "", 0.1, 1, "{}", '["abc"]', 1.0),
    )
    db.execute(
        "INSERT INTO calls VALUES (?,?,?,?,?,?,?,?,?,?)",
        ("k2", "builtin:random", "error", None, "HTTP 500", 0.2, 4, "{}", "[]", 2.0),
    )
    db.commit()
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    db.close()


def test_version0_file_is_migrated_and_keeps_its_calls(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite"
    _version0_file(path)
    store = CallStore(path)
    assert store.version == VERSION == 4
    finished = store.finished()
    assert set(finished) == {"k1"}  # error calls are retried, not reused
    assert finished["k1"].raw == '{"pred": "R1"}' and finished["k1"].audio_sent == ["abc"]
    assert finished["k1"].prompt is None  # not recorded before version 2
    assert finished["k1"].served is None  # not recorded before version 4
    prompt = [{"text": "which?"}, {"audio": "abc"}]
    store.put(CallRecord("k3", "builtin:random", "ok", "x", "", 0.1, 1, {}, ["abc"], prompt=prompt))
    store.close()
    again = CallStore(path)
    assert again.finished()["k3"].prompt == prompt
    assert again.finished()["k3"].served is None
    assert {r.key for r in again.records()} == {"k1", "k2", "k3"}
    raw = sqlite3.connect(path).execute("SELECT prompt FROM calls WHERE key='k3'").fetchone()
    assert json.loads(raw[0]) == prompt
    again.close()


def test_new_file_starts_at_the_current_version(tmp_path: Path) -> None:
    store = CallStore(tmp_path / "calls.sqlite")
    assert store.version == VERSION and store.records() == []
    store.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite"
    CallStore(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {VERSION + 1}")
    db.close()
    with pytest.raises(ParauditError, match="newer than this paraudit knows"):
        CallStore(path)


def test_corrupt_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(ParauditError, match="not a readable call store.*move it aside"):
        CallStore(path)


def test_finished_among_looks_up_batches_and_skips_errors(tmp_path: Path) -> None:
    from paraudit.runfolder.calls import LOOKUP_BATCH

    store = CallStore(tmp_path / "calls.sqlite")
    try:
        n = LOOKUP_BATCH * 2 + 7
        for i in range(n):
            store.put(_rec(f"k{i}", "error" if i % 10 == 0 else "ok"))
        keys = [f"k{i}" for i in range(n)] + ["missing"]
        found = store.finished_among(keys)
        assert set(found) == {f"k{i}" for i in range(n) if i % 10}
        assert found["k1"].raw == "r-k1"
    finally:
        store.close()


def test_completion_round_trip(tmp_path: Path) -> None:
    from paraudit.runfolder.calls import Completion

    store = CallStore(tmp_path / "calls.sqlite")
    try:
        assert store.completion("x") is None
        done = Completion("x", 10, 0, 1234, "ab" * 32, {"table": [{"n": 1}]}, 5.0)
        store.complete(done)
        assert store.completion("x") == done
    finally:
        store.close()


def _rec(key: str, status: str) -> CallRecord:
    return CallRecord(key, "builtin:random", status, f"r-{key}", "", 0.1, 1, {}, [])


def test_served_model_is_stored_and_read_back(tmp_path: Path) -> None:
    """Version 4: who answered, per call, beside the answer (and in a streamed lookup)."""
    store = CallStore(tmp_path / "calls.sqlite")
    served = {"model": "gpt-4o-mini-2024-07-18", "system_fingerprint": "fp_1"}
    store.put(CallRecord("k", "openai:gpt-4o", "ok", "x", "", 0.1, 1, {}, [], served=served))
    assert store.finished()["k"].served == served
    assert store.finished_among(["k"])["k"].served == served
    store.close()
