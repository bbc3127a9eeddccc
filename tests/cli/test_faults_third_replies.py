"""Fault injection, third hostile pass (issue 30), the rows that need a server or a finished run:
keys echoed by a server, a 200 that carries an error, usage beyond physical bounds, a report on
a run whose J calls all failed, compare's unmatched judges, a reused report folder, inputs that
are not regular files. Loopback servers only (127.0.0.1), the real CLI, the real run folder.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from tests.cli.test_faults import _ds, _invoke, _snapshot
from tests.conftest import needs
from tests.judges.loopback import Loopback, Scripted

pytestmark = needs("openai", "openai")

KEY = "sk-live-ABCDEFGH12345678"


def _chat(content: str) -> dict[str, object]:
    return {
        "id": "x", "object": "chat.completion", "created": 0, "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
    }  # fmt: skip


def _run(ds: Path, out: Path, srv: Loopback, *extra: str) -> tuple[int, str]:
    return _invoke(
        "run", str(ds), "--judge", f"openai:test-model@{srv.url}/v1", "--out", str(out),
        "--probes", "J", "--protocols", "pointwise", "--cues", "none", "--max-attempts", "1",
        *extra,
    )  # fmt: skip


def _bytes_under(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def test_a_reply_echoing_the_key_is_stored_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    ds = _ds(tmp_path)
    with Loopback() as srv:
        reply = json.dumps({"reasoning": f"you sent Bearer {KEY}", "pred": "R1"})
        srv.script.extend([Scripted(body=_chat(reply))] * 100)
        code, out = _run(ds, tmp_path / "run", srv)
        sent = [r["headers"].get("Authorization") for r in srv.requests]
    assert code == 0, out
    assert sent and all(h == f"Bearer {KEY}" for h in sent)  # the key went where it belongs
    stored = _bytes_under(tmp_path / "run")
    assert KEY.encode() not in stored and KEY not in out
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").open()]
    assert rows and all(r["status"] == "ok" for r in rows)  # the answer itself still counts


def test_an_error_echoing_the_key_is_printed_and_stored_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    ds = _ds(tmp_path)
    with Loopback() as srv:
        bad = {"error": {"message": f"Incorrect API key provided: {KEY}."}}
        srv.script.extend([Scripted(status=401, body=bad)] * 100)
        code, out = _run(ds, tmp_path / "run", srv)
    assert code == 1 and "authentication failed" in out and "Traceback" not in out, out
    assert KEY not in out
    assert not (tmp_path / "run").exists() or KEY.encode() not in _bytes_under(tmp_path / "run")


def test_a_200_carrying_an_error_is_that_error(tmp_path: Path) -> None:
    ds = _ds(tmp_path)
    with Loopback() as srv:
        srv.script.extend([Scripted(body={"error": {"message": "quota exceeded"}})] * 100)
        code, out = _run(ds, tmp_path / "run", srv)
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert code == 1 and len(errors) == 1, out
    assert "quota exceeded" in errors[0] and "no choices" not in out, out


def test_usage_beyond_physical_bounds_is_recorded_invalid(tmp_path: Path) -> None:
    ds = _ds(tmp_path)
    with Loopback() as srv:
        srv.usage = lambda body: {
            "prompt_tokens": -5,
            "completion_tokens": 3,
            "prompt_tokens_details": {"audio_tokens": 1e308},
        }
        code, out = _run(ds, tmp_path / "run", srv)
    assert code == 0, out
    with sqlite3.connect(tmp_path / "run" / "calls.sqlite") as db:
        usages = [json.loads(u) for (u,) in db.execute("SELECT usage FROM calls")]
    assert usages
    for u in usages:
        assert sorted(u["invalid"]) == [
            "prompt_tokens=-5",
            "prompt_tokens_details.audio_tokens=1e+308",
        ], u
        assert "prompt_tokens" not in u and u["prompt_tokens_details"] == {}, u
        assert u["completion_tokens"] == 3
    code, out = _invoke(
        "report", str(tmp_path / "run"), "--out", str(tmp_path / "rep"), "--replicates", "200"
    )
    assert code == 0, out
    md = (tmp_path / "rep" / "summary.md").read_text()
    assert "inf" not in md.lower().replace("info", ""), md


def test_report_on_a_run_whose_j_calls_all_failed_says_why(tmp_path: Path) -> None:
    ds = _ds(tmp_path)
    run = tmp_path / "run"
    code, out = _invoke(
        "run", str(ds), "--judge", "builtin:random?fail_rate=1&fail_times=100", "--out",
        str(run), "--probes", "J", "--max-attempts", "1",
    )  # fmt: skip
    assert code == 1, out
    before = _snapshot(tmp_path)
    code, out = _invoke("report", str(run), "--out", str(tmp_path / "rep"), "--replicates", "200")
    lines = [line for line in out.splitlines() if line.strip()]
    assert code == 1 and len(lines) == 1 and lines[0].startswith("error:"), out
    n = sum(1 for _ in (run / "results.jsonl").open())
    assert f"every J call failed: {n} errors" in lines[0], out
    assert "rerun 'paraudit run' with the same --out" in lines[0]
    assert _snapshot(tmp_path) == before


def test_compare_names_the_judges_it_could_not_pair(tmp_path: Path) -> None:
    ds = _ds(tmp_path)
    for name, judges in (("a", ["builtin:first", "builtin:random"]), ("b", ["builtin:first"])):
        args = ["run", str(ds), "--out", str(tmp_path / name), "--probes", "J"]
        for j in judges:
            args += ["--judge", j]
        assert _invoke(*args)[0] == 0
    code, out = _invoke("compare", str(tmp_path / "a"), str(tmp_path / "b"))
    assert code == 0, out
    assert "builtin:random not compared" in " ".join(out.split()), out


def test_a_reused_report_folder_is_cleared_of_stale_files(tmp_path: Path) -> None:
    ds = _ds(tmp_path)
    run = tmp_path / "run"
    assert _invoke("run", str(ds), "--judge", "builtin:first", "--out", str(run))[0] == 0
    rep = tmp_path / "rep"
    args = ["report", str(run), "--out", str(rep), "--replicates", "200"]
    assert _invoke(*args)[0] == 0
    # What a report of a run with a scaffolded judge wrote, and a user's own notes.
    (rep / "scaffold.json").write_text('{"paraudit_output": "scaffold"}\n')
    (rep / "figures" / "scaffold.svg").write_text("<svg/>")
    (rep / "notes.md").write_text("mine\n")
    code, out = _invoke(*args)
    assert code == 0, out
    assert not (rep / "scaffold.json").exists() and not (rep / "figures" / "scaffold.svg").exists()
    assert (rep / "notes.md").read_text() == "mine\n" and (rep / "summary.json").is_file()


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_source_that_is_not_a_regular_file_is_refused(kind: str, tmp_path: Path) -> None:
    source = tmp_path / "source.jsonl"
    if kind == "fifo":
        os.mkfifo(source)
    else:
        source.symlink_to("/dev/zero")
    before = _snapshot(tmp_path)
    code, out = _invoke(
        "build", "single-turn", "--source", str(source), "--out", str(tmp_path / "x"),
        "--llm", "openai:m@http://127.0.0.1:9/v1",
    )  # fmt: skip
    lines = [line for line in out.splitlines() if line.strip()]
    assert code == 1 and len(lines) == 1, out
    assert ("is a FIFO" if kind == "fifo" else "is a device") in lines[0], out
    assert _snapshot(tmp_path) == before
