"""The annotation store: one SQLite file (WAL) holding the study, its links, plays and answers.

Everything a restarted server needs is here: the study options, every annotator's list with
response orders, the opaque clip ids, play events and answers. Answers are keyed by
(annotator, position), so a retried or double-clicked POST can never store two.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import soundfile as sf

from paraudit.annotate.assignment import Assigned, StudyConfig, assign, stimulus
from paraudit.errors import ParauditError
from paraudit.items.dataset import ITEMS, Dataset, load_dataset

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS annotators (
  name TEXT PRIMARY KEY, token TEXT UNIQUE NOT NULL, idx INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
  annotator TEXT NOT NULL, seq INTEGER NOT NULL, item_id TEXT NOT NULL, task TEXT NOT NULL,
  branch INTEGER NOT NULL, kind TEXT NOT NULL, response_order TEXT NOT NULL,
  foil_item TEXT, foil_branch INTEGER, repeat_of INTEGER,
  PRIMARY KEY (annotator, seq));
CREATE TABLE IF NOT EXISTS clips (
  clip_id TEXT PRIMARY KEY, annotator TEXT NOT NULL, seq INTEGER NOT NULL, slot TEXT NOT NULL,
  path TEXT NOT NULL, seconds REAL NOT NULL);
CREATE INDEX IF NOT EXISTS clips_task ON clips (annotator, seq);
CREATE TABLE IF NOT EXISTS plays (
  id INTEGER PRIMARY KEY AUTOINCREMENT, clip_id TEXT NOT NULL, event TEXT NOT NULL,
  at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS plays_clip ON plays (clip_id);
CREATE TABLE IF NOT EXISTS shown (
  annotator TEXT NOT NULL, seq INTEGER NOT NULL, at REAL NOT NULL, PRIMARY KEY (annotator, seq));
CREATE TABLE IF NOT EXISTS answers (
  annotator TEXT NOT NULL, seq INTEGER NOT NULL, choice TEXT NOT NULL, confidence INTEGER,
  comment TEXT NOT NULL, request_id TEXT NOT NULL, answered_at REAL NOT NULL,
  PRIMARY KEY (annotator, seq));
"""


@dataclass(frozen=True)
class Clip:
    clip_id: str
    slot: str
    """'c0'…'cN' for context turns, 'R1'/'R2' for the responses as shown."""
    path: str
    seconds: float


@dataclass(frozen=True)
class Answer:
    annotator: str
    seq: int
    choice: str
    confidence: int | None
    comment: str
    request_id: str
    answered_at: float


class AnswerRefused(Exception):
    """An answer the server will not store; `reason` is shown to the annotator."""

    def __init__(self, reason: str, stored: Answer | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stored = stored


def dataset_fingerprint(ds: Dataset) -> str:
    return hashlib.sha256((ds.root / ITEMS).read_bytes()).hexdigest()


class AnnotationStore:
    """Thread-safe access to one store file (one connection behind a lock; WAL on disk)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        # Re-entrant: submit() holds it across its reads and its insert (one answer, no race).
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ opening

    @classmethod
    def open_or_create(cls, path: Path, dataset: Path, cfg: StudyConfig) -> AnnotationStore:
        """Open the store at `path`, creating the study there if it does not exist yet.

        An existing store must have been made from the same dataset and options, so a restart
        with the same command line resumes, and a changed one is refused instead of silently
        reassigning half-annotated lists.
        """
        ds = load_dataset(dataset)
        if path.exists():
            store = cls.open(path)
            if store.meta("dataset_sha256") != dataset_fingerprint(ds):
                where = store.meta("dataset")
                store.close()
                raise ParauditError(
                    f"{path} holds a study of another dataset ({where}), or the items changed "
                    f"since; pass a new --store for {dataset}"
                )
            if store.config() != cfg:
                store.close()
                raise ParauditError(
                    f"{path} holds a study made with other options ({store_options(path)}); "
                    "rerun with those options or pass a new --store"
                )
            return store
        if path.parent and not path.parent.is_dir():
            raise ParauditError(f"{path.parent}: no such folder for the store")
        tmp = path.with_name(path.name + ".creating")
        tmp.unlink(missing_ok=True)
        store = cls(tmp)
        try:
            store._create(ds, cfg)
        except BaseException:
            store.close()
            for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
                leftover.unlink(missing_ok=True)
            raise
        store.close()
        tmp.replace(path)
        return cls.open(path)

    @classmethod
    def open(cls, path: Path) -> AnnotationStore:
        if path.is_dir():
            raise ParauditError(
                f"{path} is a folder, not an annotation store; give the study's SQLite file "
                "(the --store given to 'paraudit annotate', e.g. annotations.sqlite)"
            )
        if not path.is_file():
            raise ParauditError(
                f"{path}: no annotation store here; create the study with 'paraudit annotate "
                "DATASET --store FILE' (or check the path)"
            )
        try:
            store = cls(path)
            version = store._db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in store._db.execute("SELECT name FROM sqlite_master")}
        except sqlite3.DatabaseError as e:
            raise ParauditError(f"{path}: not an annotation store ({e})") from None
        if "meta" not in tables:
            store.close()
            # A run's calls.sqlite (or any other SQLite file) is not a study: say what it is.
            what = "a run's calls.sqlite" if "calls" in tables else "another SQLite file"
            raise ParauditError(
                f"{path} is {what}, not an annotation store; pass the study's store "
                "(the --store given to 'paraudit annotate')"
            )
        if version != SCHEMA_VERSION:
            store.close()
            raise ParauditError(
                f"{path}: store schema version {version}, this paraudit reads {SCHEMA_VERSION}"
            )
        return store

    def _create(self, ds: Dataset, cfg: StudyConfig) -> None:
        assigned = assign(ds.items, cfg)
        items = {it.id: it for it in ds.items}
        seconds: dict[str, float] = {}
        db = self._db
        db.executescript(SCHEMA)
        db.execute("BEGIN")
        meta = {
            "dataset": str(ds.root.resolve()),
            "dataset_name": ds.manifest.name,
            "dataset_sha256": dataset_fingerprint(ds),
            "config": json.dumps(asdict(cfg)),
            "admin_token": secrets.token_urlsafe(24),
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        for i, name in enumerate(cfg.annotators):
            db.execute(
                "INSERT INTO annotators VALUES (?, ?, ?)", (name, secrets.token_urlsafe(24), i)
            )
        for a in assigned:
            db.execute(
                "INSERT INTO tasks VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    a.annotator,
                    a.seq,
                    a.item_id,
                    a.task,
                    a.branch,
                    a.kind,
                    a.order,
                    a.foil_item,
                    a.foil_branch,
                    a.repeat_of,
                ),
            )
            st = stimulus(items, a)
            slots = [(f"c{i}", p) for i, (_, _, p) in enumerate(st.context)]
            slots += [("R1", st.responses[0][1]), ("R2", st.responses[1][1])]
            for slot, rel in slots:
                if rel not in seconds:
                    try:
                        seconds[rel] = float(sf.info(str(ds.audio_path(rel))).duration)
                    except (RuntimeError, OSError) as e:
                        raise ParauditError(f"{ds.root / rel}: unreadable audio ({e})") from None
                # A fresh opaque id per showing: a repeat cannot be recognised by its URLs.
                db.execute(
                    "INSERT INTO clips VALUES (?,?,?,?,?,?)",
                    (secrets.token_urlsafe(12), a.annotator, a.seq, slot, rel, seconds[rel]),
                )
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------------ reading

    def _one(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        with self._lock:
            return self._db.execute(sql, args).fetchone()

    def _all(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def meta(self, key: str) -> str:
        row = self._one("SELECT value FROM meta WHERE key = ?", (key,))
        if row is None:
            raise ParauditError(f"{self.path}: store has no '{key}' (damaged?)")
        return str(row[0])

    def config(self) -> StudyConfig:
        raw = json.loads(self.meta("config"))
        return StudyConfig(
            **{k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}  # type: ignore[arg-type]
        )

    def dataset(self) -> Dataset:
        """The study's dataset, refused if items.jsonl changed since the study was made."""
        ds = load_dataset(Path(self.meta("dataset")))
        if dataset_fingerprint(ds) != self.meta("dataset_sha256"):
            raise ParauditError(
                f"{ds.root}: items.jsonl changed since the study was created; "
                "answers would not match the items"
            )
        return ds

    def annotators(self) -> list[tuple[str, str]]:
        """(name, token) in creation order."""
        return [(r[0], r[1]) for r in self._all("SELECT name, token FROM annotators ORDER BY idx")]

    def tasks(self, annotator: str | None = None) -> list[Assigned]:
        sql = "SELECT * FROM tasks" + (" WHERE annotator = ?" if annotator else "")
        rows = self._all(sql + " ORDER BY annotator, seq", (annotator,) if annotator else ())
        return [
            Assigned(
                annotator=r[0],
                seq=r[1],
                item_id=r[2],
                task=r[3],
                branch=r[4],
                kind=r[5],
                order=r[6],
                foil_item=r[7],
                foil_branch=r[8],
                repeat_of=r[9],
            )
            for r in rows
        ]

    def task(self, annotator: str, seq: int) -> Assigned | None:
        return next((t for t in self.tasks(annotator) if t.seq == seq), None)

    def next_seq(self, annotator: str) -> int | None:
        """The first position without an answer (None when the list is finished)."""
        row = self._one(
            "SELECT MIN(t.seq) FROM tasks t LEFT JOIN answers a "
            "ON a.annotator = t.annotator AND a.seq = t.seq "
            "WHERE t.annotator = ? AND a.seq IS NULL",
            (annotator,),
        )
        return None if row is None or row[0] is None else int(row[0])

    def count(self, annotator: str) -> tuple[int, int]:
        """(answered, total) for one annotator."""
        done = self._one("SELECT COUNT(*) FROM answers WHERE annotator = ?", (annotator,))[0]
        total = self._one("SELECT COUNT(*) FROM tasks WHERE annotator = ?", (annotator,))[0]
        return int(done), int(total)

    def kinds(self, annotator: str) -> dict[str, int]:
        """How many of one annotator's stimuli are of each kind (own, overlap, repeat, catch)."""
        rows = self._all(
            "SELECT kind, COUNT(*) FROM tasks WHERE annotator = ? GROUP BY kind", (annotator,)
        )
        return {str(k): int(n) for k, n in rows}

    def clips(self, annotator: str, seq: int) -> list[Clip]:
        rows = self._all(
            "SELECT clip_id, slot, path, seconds FROM clips WHERE annotator = ? AND seq = ? "
            "ORDER BY rowid",
            (annotator, seq),
        )
        return [Clip(*r) for r in rows]

    def clip(self, annotator: str, clip_id: str) -> tuple[Clip, int] | None:
        """The clip and its position, if it belongs to this annotator."""
        r = self._one(
            "SELECT clip_id, slot, path, seconds, seq FROM clips "
            "WHERE clip_id = ? AND annotator = ?",
            (clip_id, annotator),
        )
        return None if r is None else (Clip(r[0], r[1], r[2], r[3]), int(r[4]))

    def heard(self, clips: list[Clip], min_listen: float) -> set[str]:
        """Clip ids played to their end: an 'ended' event at least `min_listen` × duration
        after the first 'play' event before it (server clock), so seeking to the end or a
        forged 'ended' alone does not count."""
        out = set()
        for c in clips:
            events = self._all(
                "SELECT event, at FROM plays WHERE clip_id = ? ORDER BY id", (c.clip_id,)
            )
            first_play: float | None = None
            for event, at in events:
                if event == "play" and first_play is None:
                    first_play = at
                elif event == "ended" and first_play is not None:
                    if at - first_play >= min_listen * c.seconds:
                        out.add(c.clip_id)
                        break
        return out

    def mark_shown(self, annotator: str, seq: int) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO shown VALUES (?, ?, ?)", (annotator, seq, time.time())
            )

    def answer(self, annotator: str, seq: int) -> Answer | None:
        r = self._one("SELECT * FROM answers WHERE annotator = ? AND seq = ?", (annotator, seq))
        return None if r is None else Answer(*r)

    # ------------------------------------------------------------------ writing

    def log_play(self, clip_id: str, event: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO plays (clip_id, event, at) VALUES (?, ?, ?)",
                (clip_id, event, time.time()),
            )

    def submit(
        self,
        annotator: str,
        seq: int,
        choice: str,
        confidence: int | None,
        comment: str,
        request_id: str,
        min_listen: float,
    ) -> tuple[Answer, bool]:
        """Store an answer once. Returns (answer, created); a retry with the same request id
        returns the stored answer with created=False. Raises AnswerRefused otherwise."""
        with self._lock:  # check, then insert, as one step for every thread
            existing = self.answer(annotator, seq)
            if existing is not None:
                if existing.request_id == request_id:
                    return existing, False
                raise AnswerRefused("this question is already answered", existing)
            if self.next_seq(annotator) != seq:
                raise AnswerRefused("this is not the current question; reload the page")
            clips = self.clips(annotator, seq)
            missing = len(clips) - len(self.heard(clips, min_listen))
            if missing:
                raise AnswerRefused(f"listen to every clip to the end first ({missing} left)")
            ans = Answer(annotator, seq, choice, confidence, comment, request_id, time.time())
            # The primary key also guards against another process writing the same store.
            cur = self._db.execute(
                "INSERT OR IGNORE INTO answers VALUES (?,?,?,?,?,?,?)",
                (annotator, seq, choice, confidence, comment, request_id, ans.answered_at),
            )
            created = cur.rowcount == 1
            if not created:
                stored = self.answer(annotator, seq)
                assert stored is not None
                if stored.request_id != request_id:
                    raise AnswerRefused("this question is already answered", stored)
                return stored, False
            return ans, True

    def answers(self) -> list[Answer]:
        return [Answer(*r) for r in self._all("SELECT * FROM answers ORDER BY annotator, seq")]

    def shown_at(self) -> dict[tuple[str, int], float]:
        return {(r[0], r[1]): r[2] for r in self._all("SELECT annotator, seq, at FROM shown")}

    def last_activity(self) -> dict[str, float]:
        rows = self._all("SELECT annotator, MAX(answered_at) FROM answers GROUP BY annotator")
        return {r[0]: r[1] for r in rows}


def store_options(path: Path) -> str:
    s = AnnotationStore.open(path)
    try:
        c = s.config()
    finally:
        s.close()
    return (
        f"--annotators {','.join(c.annotators)} --per-annotator {c.per_annotator} "
        f"--overlap {c.overlap} --repeats {c.repeats} --catch {c.catch} --seed {c.seed}"
        + (f" --tasks {','.join(c.tasks)}" if c.tasks else "")
        + f" --min-listen {c.min_listen}"
    )
