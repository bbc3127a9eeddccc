"""Simulated annotators that use the app exactly as a browser does, over HTTP.

They exist to exercise the app and the statistics offline (the demo, load tests), not to stand
in for people. A simulated listener cannot learn the answer from the API (nothing there tells
it), so the simulation reads the answer key from the store on the server side and answers right
with the annotator's `skill` probability; catch items are passed with probability `attention`.
Each clip is "played" by posting its play event, waiting `min_listen` × its duration (as the
server demands) and posting its ended event.
"""

from __future__ import annotations

import json
import random
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paraudit.annotate.assignment import StudyConfig, stimulus
from paraudit.annotate.store import AnnotationStore


@dataclass(frozen=True)
class SimulatedAnnotator:
    name: str
    token: str
    skill: float
    """Probability of choosing the right response on a scored or repeated stimulus."""
    attention: float = 0.97
    """Probability of passing a catch item."""


def http_json(method: str, url: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw or b"null")
        except json.JSONDecodeError:
            return e.code, raw.decode(errors="replace")


def run_annotator(
    base_url: str,
    store_path: Path,
    who: SimulatedAnnotator,
    *,
    limit: int | None = None,
    seed: int = 0,
    double_submit: bool = False,
) -> list[tuple[int, str]]:
    """Answer up to `limit` questions (all by default); returns (position, choice) of every
    answer the server confirmed.

    With `double_submit`, every answer is posted twice with the same request id, as a double
    click or a network retry would.
    """
    store = AnnotationStore.open(store_path)
    try:
        cfg = store.config()
        items = {it.id: it for it in store.dataset().items}
        rng = random.Random(f"{seed}:{who.name}")
        root = f"{base_url}/a/{who.token}/api"
        stored: list[tuple[int, str]] = []
        while limit is None or len(stored) < limit:
            status, state = http_json("GET", f"{root}/next")
            if status != 200:
                raise RuntimeError(f"{who.name}: GET next → {status} {state}")
            q = state["question"]
            if q is None:
                break
            task = store.task(who.name, q["seq"])
            assert task is not None
            seconds = {c.clip_id: c.seconds for c in store.clips(who.name, q["seq"])}
            for clip in [*q["context"], *q["responses"]]:
                http_json("POST", f"{root}/play", {"clip": clip["clip"], "event": "play"})
                time.sleep(cfg.min_listen * seconds[clip["clip"]])
                http_json("POST", f"{root}/play", {"clip": clip["clip"], "event": "ended"})
            gold = stimulus(items, task).gold
            p = who.attention if task.kind == "catch" else who.skill
            choice = gold if rng.random() < p else ("R2" if gold == "R1" else "R1")
            body = {
                "seq": q["seq"],
                "choice": choice,
                "confidence": rng.randint(1, 5),
                "request_id": uuid.uuid4().hex,
            }
            for _ in range(2 if double_submit else 1):
                status, reply = http_json("POST", f"{root}/answer", body)
                if status != 200:
                    raise RuntimeError(f"{who.name}: answer refused: {reply}")
            stored.append((q["seq"], choice))
        return stored
    finally:
        store.close()


def annotators_of(store_path: Path, skills: Sequence[float]) -> list[SimulatedAnnotator]:
    """One simulated annotator per link in the store, with skills taken in turn from `skills`."""
    store = AnnotationStore.open(store_path)
    try:
        pairs = store.annotators()
    finally:
        store.close()
    return [
        SimulatedAnnotator(name, token, skills[i % len(skills)])
        for i, (name, token) in enumerate(pairs)
    ]


def simulate(
    base_url: str,
    store_path: Path,
    annotators: Sequence[SimulatedAnnotator],
    *,
    seed: int = 0,
    limit: int | None = None,
) -> dict[str, int]:
    """All annotators at once (one thread each, like people at their own screens)."""
    done: dict[str, int] = {}
    errors: list[BaseException] = []

    def work(a: SimulatedAnnotator) -> None:
        try:
            done[a.name] = len(run_annotator(base_url, store_path, a, seed=seed, limit=limit))
        except BaseException as e:  # surfaced below, after every thread has finished
            errors.append(e)

    threads = [threading.Thread(target=work, args=(a,)) for a in annotators]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return done


def simulate_study(
    dataset: Path,
    store_path: Path,
    cfg: StudyConfig,
    skills: Sequence[float] = (0.95, 0.85, 0.75, 0.9, 0.65),
    *,
    seed: int = 0,
) -> dict[str, int]:
    """Create (or reopen) a study, serve it on a free loopback port, let simulated annotators
    finish it, stop the server. Returns answers stored per annotator."""
    from paraudit.annotate.serve import background

    AnnotationStore.open_or_create(store_path, dataset, cfg).close()
    with background(store_path) as url:
        return simulate(url, store_path, annotators_of(store_path, skills), seed=seed)


DEMO_LABEL = "simulated-humans"


def demo_humans(dataset: Path, out: Path, annotators: int, *, seed: int = 0) -> Path:
    """The demo's optional human row: `annotators` simulated listeners finish a fresh study on
    the dataset through the real app; returns the run folder of their answers, labelled
    'simulated-humans' so no report mistakes it for people."""
    import shutil

    from paraudit.annotate.export import write_run
    from paraudit.items.dataset import load_dataset

    n_items = len(load_dataset(dataset).items)
    per = min(20, n_items)
    cfg = StudyConfig(
        annotators=tuple(f"sim{i + 1}" for i in range(annotators)),
        per_annotator=per,
        overlap=min(5, per),
        repeats=min(2, per),
        catch=2 if n_items > 1 else 0,
        seed=seed,
        min_listen=0.0,  # simulated listeners need not wait out the clips
    )
    store, run = out / "annotations.sqlite", out / "human"
    for stale in (store, Path(f"{store}-wal"), Path(f"{store}-shm")):
        stale.unlink(missing_ok=True)  # the demo may have rebuilt the dataset
    simulate_study(dataset, store, cfg, seed=seed)
    shutil.rmtree(run, ignore_errors=True)
    write_run(store, run, label=DEMO_LABEL)
    return run
