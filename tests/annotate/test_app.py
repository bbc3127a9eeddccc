"""The app through its HTTP interface (in-process client): tokens, traversal, validation,
must-listen, idempotent answers, nothing secret in what an annotator receives, admin export."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from paraudit.annotate.app import create_app
from paraudit.annotate.assignment import StudyConfig
from paraudit.annotate.store import AnnotationStore
from paraudit.errors import ParauditError
from paraudit.items.dataset import load_dataset

CFG = StudyConfig(annotators=("ann", "bob"), per_annotator=2, overlap=1, repeats=1, catch=1)


@pytest.fixture
def study(tiny_dataset: Path, tmp_path: Path) -> tuple[TestClient, AnnotationStore]:
    path = tmp_path / "study.sqlite"
    store = AnnotationStore.open_or_create(path, tiny_dataset, CFG)
    return TestClient(create_app(path)), store


def secrets_of(dataset: Path) -> list[str]:
    """Words that must never reach an annotator's browser."""
    ds = load_dataset(dataset)
    words = ["gold", "branch", "emotion", "item_id", "kind"]
    words += list(ds.manifest.emotions)
    for it in ds.items:
        words.append(it.id)
        for rel in it.audio_files():
            words += [rel, Path(rel).name, Path(rel).stem]
        for key, value in it.meta.items():
            words += [key, str(value)]
    return words


def assert_clean(text: str, words: list[str]) -> None:
    for w in words:
        assert not re.search(rf"(?<![A-Za-z0-9]){re.escape(w)}(?![A-Za-z0-9])", text, re.I), w


def listen(client: TestClient, token: str, question: dict, wait: float) -> None:
    clips = [c["clip"] for c in question["context"] + question["responses"]]
    for c in clips:
        assert (
            client.post(f"/a/{token}/api/play", json={"clip": c, "event": "play"}).status_code
            == 200
        )
    time.sleep(wait)
    for c in clips:
        client.post(f"/a/{token}/api/play", json={"clip": c, "event": "ended"})


def test_wrong_token_is_403_everywhere(study: tuple[TestClient, AnnotationStore]) -> None:
    client, store = study
    ann_token = store.annotators()[0][1]
    bad = "x" * 32
    for path in ("", "/listen.js", "/style.css", "/api/next", "/audio/AAAAAAAAAAAAAAAA"):
        assert client.get(f"/a/{bad}{path}").status_code == 403, path
    assert client.post(f"/a/{bad}/api/answer", json={}).status_code in (403, 422)
    assert (
        client.post(
            f"/a/{bad}/api/answer", json={"seq": 0, "choice": "R1", "request_id": "abcdefgh"}
        ).status_code
        == 403
    )
    for path in ("", "/answers.jsonl", "/answers.csv", "/summary.json"):
        assert client.get(f"/admin/{ann_token}{path}").status_code == 403, path


def test_path_traversal_is_404(study: tuple[TestClient, AnnotationStore]) -> None:
    client, store = study
    (name, token), (other, _) = store.annotators()
    foreign = store.clips(other, 0)[0].clip_id
    for path in (
        "/audio/..%2F..%2Fitems.jsonl",
        "/audio/%2e%2e%2f%2e%2e%2fdataset.json",
        "/audio/....//....//dataset.json",
        "/audio/%2Fetc%2Fpasswd",
        f"/audio/{foreign}",  # another annotator's clip
        "/static/listen.html",
        "/api/../../../dataset.json",
    ):
        r = client.get(f"/a/{token}{path}")
        assert r.status_code == 404, (path, r.status_code)


def test_input_is_validated(study: tuple[TestClient, AnnotationStore]) -> None:
    client, store = study
    token = store.annotators()[0][1]
    url = f"/a/{token}/api/answer"
    ok = {"seq": 0, "choice": "R1", "request_id": "abcdefgh"}
    for bad in (
        {**ok, "choice": "R3"},
        {**ok, "seq": -1},
        {**ok, "confidence": 9},
        {**ok, "comment": "x" * 2001},
        {**ok, "request_id": "../../x"},
        {**ok, "gold": "R1"},
        {"choice": "R1"},
    ):
        assert client.post(url, json=bad).status_code == 422, bad
    assert client.post(url, content=b"not json").status_code == 422
    play = f"/a/{token}/api/play"
    assert (
        client.post(play, json={"clip": "../../dataset.json", "event": "play"}).status_code == 422
    )
    assert client.post(play, json={"clip": "A" * 16, "event": "seek"}).status_code == 422
    assert client.post(play, json={"clip": "A" * 16, "event": "play"}).status_code == 404


def test_answer_needs_every_clip_heard_and_is_stored_once(
    study: tuple[TestClient, AnnotationStore],
) -> None:
    client, store = study
    name, token = store.annotators()[0]
    q = client.get(f"/a/{token}/api/next").json()["question"]
    body = {"seq": q["seq"], "choice": "R2", "request_id": "req-000001"}
    r = client.post(f"/a/{token}/api/answer", json=body)
    assert r.status_code == 409 and "listen" in r.json()["reason"]
    listen(client, token, q, wait=0.0)  # ended right after play: a seek to the end, not heard
    assert client.post(f"/a/{token}/api/answer", json=body).status_code == 409
    assert (
        client.post(f"/a/{token}/api/answer", json={**body, "seq": q["seq"] + 1}).status_code == 409
    )
    longest = max(c.seconds for c in store.clips(name, q["seq"]))
    listen(client, token, q, wait=longest * CFG.min_listen + 0.05)
    first = client.post(f"/a/{token}/api/answer", json=body)
    again = client.post(f"/a/{token}/api/answer", json=body)  # double click / retry
    other = client.post(f"/a/{token}/api/answer", json={**body, "request_id": "req-000002"})
    assert first.status_code == 200 and first.json()["created"] is True
    assert again.status_code == 200 and again.json()["created"] is False
    assert other.status_code == 409
    assert len([a for a in store.answers() if a.annotator == name]) == 1
    nxt = client.get(f"/a/{token}/api/next").json()
    assert nxt["answered"] == 1 and nxt["question"]["seq"] == q["seq"] + 1


def test_nothing_secret_reaches_the_annotator(
    study: tuple[TestClient, AnnotationStore], tiny_dataset: Path
) -> None:
    client, store = study
    words = secrets_of(tiny_dataset)
    for name, token in store.annotators():
        seen = [client.get(f"/a/{token}{p}") for p in ("", "/listen.js", "/style.css")]
        while True:
            r = client.get(f"/a/{token}/api/next")
            seen.append(r)
            q = r.json()["question"]
            if q is None:
                break
            for c in q["context"] + q["responses"]:
                audio = client.get(c["audio"])
                assert audio.status_code == 200 and audio.content[:4] == b"RIFF"
                assert "content-disposition" not in audio.headers
                assert "etag" not in audio.headers and "last-modified" not in audio.headers
                for w in words:  # no name or id hidden in the file's bytes either
                    assert len(w) < 5 or w.encode() not in audio.content, w
                seen.append(audio)
            other = [c.clip_id for c in store.clips(name, q["seq"])]
            assert {c["clip"] for c in q["context"] + q["responses"]} == set(other)
            for c in other:
                client.post(f"/a/{token}/api/play", json={"clip": c, "event": "play"})
            time.sleep(max(c.seconds for c in store.clips(name, q["seq"])) * CFG.min_listen)
            for c in other:
                seen.append(client.post(f"/a/{token}/api/play", json={"clip": c, "event": "ended"}))
            req = {"seq": q["seq"], "choice": "R1", "request_id": f"req-{name}-{q['seq']:04d}"}
            seen.append(client.post(f"/a/{token}/api/answer", json=req))
        for r in seen:
            text = "" if r.headers.get("content-type") == "audio/wav" else r.text
            assert_clean(text + json.dumps(dict(r.headers)) + str(r.url), words)
            if r.headers.get("content-type") == "application/json":
                # nor how a stimulus entered the list (the page's script may say 'catch (e)')
                assert_clean(text, ["catch", "repeat", "overlap", "foil", "own"])


def test_admin_exports_answers(study: tuple[TestClient, AnnotationStore]) -> None:
    client, store = study
    name, token = store.annotators()[0]
    q = client.get(f"/a/{token}/api/next").json()["question"]
    listen(client, token, q, wait=max(c.seconds for c in store.clips(name, q["seq"])))
    body = {"seq": q["seq"], "choice": "R1", "request_id": "req-admin-1", "comment": "<b>hm</b>"}
    assert client.post(f"/a/{token}/api/answer", json=body).status_code == 200
    base = f"/admin/{store.meta('admin_token')}"
    page = client.get(base)
    assert page.status_code == 200 and "ann" in page.text and "answers.csv" in page.text
    rows = [json.loads(line) for line in client.get(f"{base}/answers.jsonl").text.splitlines()]
    assert len(rows) == 1 and rows[0]["annotator"] == name and rows[0]["comment"] == "<b>hm</b>"
    assert rows[0]["gold"] in ("R1", "R2") and rows[0]["correct"] == (rows[0]["gold"] == "R1")
    csv = client.get(f"{base}/answers.csv").text.splitlines()
    assert csv[0].startswith("annotator,seq,kind") and len(csv) == 2
    assert client.get(f"{base}/summary.json").json()["progress"][name]["answered"] == 1


def test_store_refuses_other_options_and_changed_dataset(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    path = tmp_path / "s.sqlite"
    AnnotationStore.open_or_create(path, tiny_dataset, CFG).close()
    AnnotationStore.open_or_create(path, tiny_dataset, CFG).close()  # same options: resumes
    with pytest.raises(ParauditError, match="other options"):
        AnnotationStore.open_or_create(
            path, tiny_dataset, StudyConfig(annotators=("x",), per_annotator=1)
        )
    items = tiny_dataset / "items.jsonl"
    items.write_text(items.read_text().replace("Friday", "Monday"))
    with pytest.raises(ParauditError, match="changed"):
        create_app(path)
    with pytest.raises(ParauditError, match="another dataset"):
        AnnotationStore.open_or_create(path, tiny_dataset, CFG)
    (tmp_path / "junk.sqlite").write_bytes(b"not a database at all" * 10)
    with pytest.raises(ParauditError):
        AnnotationStore.open(tmp_path / "junk.sqlite")


def test_audio_answers_range_requests(study: tuple[TestClient, AnnotationStore]) -> None:
    """Phones (Safari) play media only from servers that answer byte ranges with 206."""
    client, store = study
    name, token = store.annotators()[0]
    clip = store.clips(name, 0)[0].clip_id
    full = client.get(f"/a/{token}/audio/{clip}")
    size = len(full.content)
    assert full.headers["accept-ranges"] == "bytes"
    part = client.get(f"/a/{token}/audio/{clip}", headers={"Range": "bytes=0-99"})
    assert part.status_code == 206 and part.content == full.content[:100]
    assert part.headers["content-range"] == f"bytes 0-99/{size}"
    tail = client.get(f"/a/{token}/audio/{clip}", headers={"Range": "bytes=-10"})
    assert tail.status_code == 206 and tail.content == full.content[-10:]
    open_end = client.get(f"/a/{token}/audio/{clip}", headers={"Range": "bytes=100-"})
    assert open_end.content == full.content[100:]
    past = client.get(f"/a/{token}/audio/{clip}", headers={"Range": f"bytes={size}-"})
    assert past.status_code == 416
    junk = client.get(f"/a/{token}/audio/{clip}", headers={"Range": "bytes=x-y"})
    assert junk.status_code == 200 and junk.content == full.content
