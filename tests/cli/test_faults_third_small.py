"""Fault injection, third hostile pass (issue 30), the smaller cases: each one row, through the
CLI (the listening app through its HTTP interface, on a real store), same invariants as
test_faults.py where a command is refused (exit 1, one error line, nothing changed).

Case list:
  annotate-export  --label '' (rows with an empty judge)
  annotate   --catch 1000 on a 2-item dataset
  build      --response-tone furious (refused before any LLM call: the LLM is a port that
             would hang) · --source a FIFO / a /dev/zero link (test_faults_third_replies.py)
  validate   a clip named by its sha256 in upper case
  app        a 20 MB comment (422 that echoes nothing) · "confidence": NaN (422, not 500) ·
             Range: bytes=-0 (416, not the whole file with 200)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_faults import Case, Listener, _check, _clip, _ds, _invoke, _snapshot


def _study(t: Path) -> Path:
    ds = _ds(t, "study-ds")
    store = t / "study.sqlite"
    code, out = _invoke(
        "annotate-simulate", str(ds), "--store", str(store), "--annotators", "2",
        "--per-annotator", "2", "--overlap", "1", "--repeats", "0", "--catch", "0",
    )  # fmt: skip
    assert code == 0, out
    return store


def _upper_case_clip(t: Path) -> list[str]:
    ds = _ds(t)
    old = _clip(ds)
    new = old.with_name(old.stem.upper() + old.suffix)
    old.rename(new)
    items = ds / "items.jsonl"
    items.write_text(items.read_text().replace(old.name, new.name))
    return ["validate", str(ds)]


CASES = [
    Case(
        "export-empty-label",
        lambda t: ["annotate-export", str(_study(t)), "--run", str(t / "human"), "--label", ""],
        "--label '' is empty or unprintable",
    ),
    Case(
        "annotate-catch-1000",
        lambda t: [
            "annotate",
            str(_ds(t)),
            "--store",
            str(t / "s.sqlite"),
            "--annotators",
            "a",
            "--per-annotator",
            "2",
            "--overlap",
            "1",
            "--repeats",
            "0",
            "--catch",
            "1000",
            "--no-serve",
        ],  # fmt: skip
        "--catch 1000 exceeds the 2 items available",
    ),
    Case("validate-upper-case-sha", _upper_case_clip, "in upper case"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fault(case: Case, tmp_path: Path) -> None:
    args = case.setup(tmp_path)
    before = _snapshot(tmp_path)
    code, out = _invoke(*args)
    _check(code, out, case, args[0], _snapshot(tmp_path) == before)


def test_an_unknown_response_tone_is_refused_before_any_llm_call(tmp_path: Path) -> None:
    pytest.importorskip("openai", reason="the 'openai' extra is not installed")
    from tests.builders.fakes import write_emocf

    source = write_emocf(tmp_path / "e.jsonl")
    with Listener() as srv:  # accepts, never answers: an LLM call would hang here
        before = _snapshot(tmp_path)
        code, out = _invoke(
            "build", "single-turn", "--source", str(source), "--out", str(tmp_path / "x"),
            "--llm", f"openai:m@{srv.url}/v1?timeout=2", "--cache", str(tmp_path / "c"),
            "--response-tone", "furious", "--no-dnsmos", "--no-balance",
        )  # fmt: skip
        sent = srv.connections()
    lines = [line for line in out.splitlines() if line.strip()]
    assert code == 1 and lines[-1].startswith("error: --response-tone 'furious'"), out
    assert sent == 0, "the LLM was called before the tone was checked"
    assert not (tmp_path / "x").exists()
    changed = {k for k, v in _snapshot(tmp_path).items() if before.get(k) != v}
    assert all(k == "c" or k.startswith("c/") for k in changed), changed  # the cache only


@pytest.fixture
def app_client(tmp_path: Path):  # type: ignore[no-untyped-def]
    pytest.importorskip("fastapi", reason="the 'annotate' extra is not installed")
    from fastapi.testclient import TestClient

    from paraudit.annotate.app import create_app
    from paraudit.annotate.store import AnnotationStore

    store_path = tmp_path / "fresh.sqlite"  # a study nobody has answered yet
    code, out = _invoke(
        "annotate", str(_ds(tmp_path)), "--store", str(store_path), "--annotators", "a",
        "--per-annotator", "1", "--catch", "0", "--repeats", "0", "--overlap", "0", "--no-serve",
    )  # fmt: skip
    assert code == 0, out
    store = AnnotationStore.open(store_path)
    token = store.annotators()[0][1]
    store.close()
    return TestClient(create_app(store_path)), token


def test_the_app_answers_bad_posts_with_a_short_422(app_client) -> None:  # type: ignore[no-untyped-def]
    client, token = app_client
    url = f"/a/{token}/api/answer"
    big = {"seq": 0, "choice": "R1", "request_id": "abcdefgh", "comment": "x" * 20_000_000}
    r = client.post(url, json=big)
    assert r.status_code == 422 and len(r.content) < 2000, len(r.content)
    assert "comment" in r.text and "xxxx" not in r.text
    nan = b'{"seq": 0, "choice": "R1", "request_id": "abcdefgh", "confidence": NaN}'
    r = client.post(url, content=nan, headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert json.loads(r.text)["detail"][0]["loc"][-1] == "confidence"


def test_the_app_refuses_an_empty_suffix_range(app_client) -> None:  # type: ignore[no-untyped-def]
    client, token = app_client
    q = client.get(f"/a/{token}/api/next").json()["question"]
    clip = q["context"][0]["clip"]
    whole = client.get(f"/a/{token}/audio/{clip}")
    assert whole.status_code == 200
    r = client.get(f"/a/{token}/audio/{clip}", headers={"Range": "bytes=-0"})
    assert r.status_code == 416 and r.headers["Content-Range"] == f"bytes */{len(whole.content)}"
    r = client.get(f"/a/{token}/audio/{clip}", headers={"Range": "bytes=-10"})
    assert r.status_code == 206 and r.content == whole.content[-10:]
