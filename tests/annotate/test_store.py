"""The store under racing writers: many simultaneous submits of one question store one answer."""

from __future__ import annotations

import threading
from pathlib import Path

from paraudit.annotate.assignment import StudyConfig
from paraudit.annotate.store import AnnotationStore, AnswerRefused

CFG = StudyConfig(annotators=("ann",), per_annotator=2, overlap=0, repeats=0, catch=0, min_listen=0)


def test_racing_submits_store_one_answer(tiny_dataset: Path, tmp_path: Path) -> None:
    store = AnnotationStore.open_or_create(tmp_path / "s.sqlite", tiny_dataset, CFG)
    for clip in store.clips("ann", 0):
        store.log_play(clip.clip_id, "play")
        store.log_play(clip.clip_id, "ended")
    results: list[tuple[str, bool]] = []
    refused: list[str] = []
    barrier = threading.Barrier(16)

    def submit(i: int) -> None:
        barrier.wait()
        try:  # half retry one request, half are different clicks
            rid = "same-req" if i % 2 else f"other-{i}"
            answer, created = store.submit("ann", 0, "R1", None, "", rid, 0.0)
            results.append((answer.request_id, created))
        except AnswerRefused as e:
            refused.append(e.reason)

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stored = [a for a in store.answers() if a.seq == 0]
    assert len(stored) == 1
    assert sum(created for _, created in results) == 1
    assert all(rid == stored[0].request_id for rid, _ in results)  # every success is the winner
    assert all(r == "this question is already answered" for r in refused)
    assert len(results) + len(refused) == 16
    assert store.next_seq("ann") == 1
