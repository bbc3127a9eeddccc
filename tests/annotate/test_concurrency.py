"""Ten annotators answering at once over loopback HTTP against the real server (the CLI in a
child process), with double submits and a server restart in the middle: no answer is lost,
none is stored twice, and the restarted server resumes every list where it stopped."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from paraudit.annotate.serve import free_port
from paraudit.annotate.simulate import annotators_of, run_annotator
from tests.annotate.conftest import start_cli_server, stop

# --min-listen 0.1: each simulated listener still plays every clip and the server still checks
# the time it listened, but waits 0.04 s a clip, not 0.36 s (at 0.9 the 50 questions of each
# annotator slept 54 s of the test's wall time; the 0.9 rule itself is test_app's).
ARGS = ["--annotators", "10", "--per-annotator", "45", "--overlap", "10", "--repeats", "3",
        "--catch", "2", "--min-listen", "0.1"]  # fmt: skip


def _phase(url: str, store: Path, limit: int | None) -> dict[str, list[tuple[int, str]]]:
    people = annotators_of(store, [0.9, 0.6])
    done: dict[str, list[tuple[int, str]]] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            done[people[i].name] = run_annotator(
                url, store, people[i], limit=limit, seed=i, double_submit=True
            )
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(people))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    return done


def test_ten_concurrent_annotators_with_restart(many_dataset: Path, tmp_path: Path) -> None:
    store = tmp_path / "study.sqlite"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_cli_server([str(many_dataset), "--store", str(store), *ARGS], port)
    try:
        first = _phase(url, store, limit=20)
    finally:
        out1 = stop(server)
    assert "created study" in out1 and "loopback only" in out1
    server = start_cli_server([str(many_dataset), "--store", str(store), *ARGS], port)
    try:
        second = _phase(url, store, limit=None)
    finally:
        out2 = stop(server)
    assert "resuming study" in out2 and "(20 of 45 scored + 5 checks)" in out2

    db = sqlite3.connect(store)
    answers = db.execute("SELECT annotator, seq, choice, request_id FROM answers").fetchall()
    tasks = db.execute("SELECT annotator, seq FROM tasks").fetchall()
    db.close()
    assert len(tasks) == 500 and len(answers) == 500
    assert {(a, s) for a, s, _, _ in answers} == set(tasks)  # every question, once
    assert len({r for *_, r in answers}) == 500  # one request per stored answer
    stored = {(a, s): c for a, s, c, _ in answers}
    for name in first:
        assert len(first[name]) == 20 and len(second[name]) == 30
        confirmed = first[name] + second[name]
        assert [s for s, _ in confirmed] == list(range(50))  # resumed at the right place
        assert all(stored[(name, s)] == c for s, c in confirmed)  # nothing lost or altered
