"""results.jsonl: validated rows, errors that name the real line and the fix, atomic writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from paraudit.errors import ParauditError
from paraudit.runfolder import RESULTS, ResultRow, read_rows, write_rows
from paraudit.stats.accuracy import read_results


def row(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "judge": "builtin:random",
        "task": "single-turn-emotions",
        "item_id": "i1",
        "branch": 0,
        "probe": "J",
        "protocol": "pointwise",
        "cue": "none",
        "order": "ab",
        "pred": "R1",
        "gold": "R1",
        "status": "ok",
        "correct": True,
        "raw": '{"pred": "R1"}',
        "reason": "",
        "latency_s": 0.1,
        "attempts": 1,
        "usage": {},
        "audio_sent_sha256": [],
        "sample": 0,
        "key": "k",
        "options": {"R1": "a", "R2": "b"},
    }
    return {**base, **over}


def test_round_trip_keeps_every_field(tmp_path: Path) -> None:
    rows = [row(), row(item_id="i2", pred=None, status="error", correct=False, raw=None)]
    write_rows(tmp_path, rows)
    back = read_results(tmp_path)
    assert [r["item_id"] for r in back] == ["i1", "i2"]
    assert back[0]["options"] == {"R1": "a", "R2": "b"} and back[1]["status"] == "error"
    assert back[0]["context_order"] is None  # absent in older files: None
    assert not [p for p in tmp_path.iterdir() if p.name != RESULTS]  # no temporary left


def test_truncated_row_names_its_real_line_and_the_fix(tmp_path: Path) -> None:
    lines = [json.dumps(row(item_id=f"i{n}")) for n in range(60)]
    lines[59] = lines[59][:40]  # a write cut short
    (tmp_path / RESULTS).write_text("\n".join(lines) + "\n")
    with pytest.raises(ParauditError) as e:
        read_rows(tmp_path)
    msg = str(e.value)
    assert "line 60" in msg and "broken JSON" in msg and "rerun 'paraudit run'" in msg
    assert "column" not in msg.split("line 60")[0]


def test_row_missing_a_field_or_with_a_bad_status_is_named(tmp_path: Path) -> None:
    bad = row()
    del bad["gold"]
    (tmp_path / RESULTS).write_text(json.dumps(row()) + "\n\n" + json.dumps(bad) + "\n")
    with pytest.raises(ParauditError, match="line 3: not a result row.*gold"):
        read_rows(tmp_path)
    (tmp_path / RESULTS).write_text(json.dumps(row(status="fine")) + "\n")
    with pytest.raises(ParauditError, match="line 1: .*status"):
        read_rows(tmp_path)


def test_missing_file_and_non_utf8_are_clear(tmp_path: Path) -> None:
    with pytest.raises(ParauditError, match="no results.jsonl"):
        read_rows(tmp_path)
    (tmp_path / RESULTS).write_bytes(b"\xff\xfe{}\n")
    with pytest.raises(ParauditError, match="not UTF-8"):
        read_rows(tmp_path)


def test_writer_refuses_rows_that_break_the_contract(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        write_rows(tmp_path, [row(status="maybe")])
    assert not list(tmp_path.iterdir())


def test_result_row_is_frozen() -> None:
    r = ResultRow.model_validate(row())
    with pytest.raises(ValidationError):
        r.status = "error"  # type: ignore[misc]


def test_row_writer_commits_atomically_and_hashes_what_it_wrote(tmp_path: Path) -> None:
    from paraudit.items.dataset import sha256_file
    from paraudit.runfolder.rows import RowWriter

    write_rows(tmp_path, [row()])
    old = (tmp_path / RESULTS).read_bytes()
    with pytest.raises(RuntimeError), RowWriter(tmp_path) as out:
        out.write(row(item_id="i2"))
        raise RuntimeError("crash mid-run")
    # The crash left the old file and no temporary file behind.
    assert (tmp_path / RESULTS).read_bytes() == old
    assert [p.name for p in tmp_path.iterdir()] == [RESULTS]
    with RowWriter(tmp_path) as out:
        for i in range(3):
            out.write(row(item_id=f"i{i}"))
        assert (tmp_path / RESULTS).read_bytes() == old  # nothing visible before commit
    assert out.rows == 3 and out.size == (tmp_path / RESULTS).stat().st_size
    assert out.sha256 == sha256_file(tmp_path / RESULTS)


def test_row_writer_refuses_a_row_outside_the_contract(tmp_path: Path) -> None:
    from paraudit.runfolder.rows import RowWriter

    with pytest.raises(ValidationError), RowWriter(tmp_path) as out:
        out.write(row(status="maybe"))
    assert list(tmp_path.iterdir()) == []
