"""What a card attests: the sha256 of every file that decides its numbers, and whether the
run those files come from finished and is still as the run wrote it.

Subjects are the run's `run.json` and `results.jsonl` and the dataset's `dataset.json`,
`items.jsonl` and every clip under `audio/` (the judge heard those bytes). `calls.sqlite` is
not a subject: SQLite may rewrite its pages (WAL checkpoints) whenever a later command opens
it, and every answer in it is also a line of results.jsonl, whose digest the run itself
recorded when it finished (the store's `completions` table).
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from paraudit.errors import ParauditError
from paraudit.runfolder.names import CALLS, RESULTS, RUN_JSON
from paraudit.runfolder.spec import dataset_fingerprint, read_run_json
from paraudit.stats.sequential_record import RECORD as SEQUENTIAL

RUN_FILES = (RUN_JSON, RESULTS)
DATASET_FILES = ("dataset.json", "items.jsonl")


class CardError(ParauditError):
    """A run that cannot be carded as it is (unfinished, tampered, its dataset missing)."""

    exit_code = 2


def sha256_file(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


@dataclass(frozen=True)
class Finished:
    rows: int
    results_sha256: str
    finished_at: float


def finished_run(run: Path) -> Finished:
    """The run's record of its own finish, checked against results.jsonl as it is now."""
    if read_run_json(run) is None:
        raise CardError(f"{run} has no {RUN_JSON}: not a run folder (run 'paraudit run' first)")
    results, store = run / RESULTS, run / CALLS
    if not results.is_file() or not store.is_file():
        raise CardError(f"{run} is unfinished (no {RESULTS} or {CALLS}); finish the run first")
    try:
        db = sqlite3.connect(f"file:{store.absolute()}?mode=ro", uri=True)
        try:
            last = db.execute(
                "SELECT rows, errors, results_size, results_sha256, finished_at FROM completions"
                " ORDER BY finished_at DESC LIMIT 1"
            ).fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        last = None
    if last is None:
        raise CardError(f"{run} is unfinished (no finished audit recorded); rerun it to finish")
    rows, errors, size, sha, at = last
    if errors:
        raise CardError(
            f"{run} is unfinished: {errors} call(s) ended in errors; rerun the same command to "
            "ask them again, then make the card"
        )
    now = sha256_file(results)
    if results.stat().st_size != size or now != sha:
        raise CardError(
            f"{run}/{RESULTS} was changed after the run finished (sha256 {now[:12]}…, the run "
            f"wrote {sha[:12]}…); a card attests only an untouched run"
        )
    return Finished(int(rows), sha, float(at))


def run_dataset_path(run: Path, given: Path | None) -> Path:
    """The audited dataset folder: `given`, else the path run.json recorded; its fingerprint
    must be the run's."""
    record = read_run_json(run) or {}
    spec = record.get("spec") if isinstance(record.get("spec"), dict) else {}
    want = (spec or {}).get("dataset_fingerprint")
    raw = record.get("dataset")
    path = given if given is not None else Path(raw) if isinstance(raw, str) else None
    if path is None or not path.is_dir():
        raise CardError(
            f"the dataset {path or '(not recorded)'} the run audited is not here; pass "
            "--dataset DIR"
        )
    if want is not None and dataset_fingerprint(path) != want:
        raise CardError(
            f"the dataset at {path} is not the one {run} audited (its fingerprint differs); "
            "pass the audited folder with --dataset DIR"
        )
    return path


def subjects(run: Path, dataset: Path) -> dict[str, str]:
    """'run/NAME' and 'dataset/NAME' → sha256, in a stable order."""
    out = {f"run/{name}": sha256_file(run / name) for name in RUN_FILES}
    if (run / SEQUENTIAL).is_file():  # the verdicts' sequential sentence is read from it
        out[f"run/{SEQUENTIAL}"] = sha256_file(run / SEQUENTIAL)
    for name in DATASET_FILES:
        out[f"dataset/{name}"] = sha256_file(dataset / name)
    audio = dataset / "audio"
    if audio.is_dir():
        for p in sorted(audio.rglob("*")):
            if p.is_file() and not _in_run_folder(p, audio):
                out[f"dataset/{p.relative_to(dataset).as_posix()}"] = sha256_file(p)
    return out


def _in_run_folder(p: Path, audio: Path) -> bool:
    """A run folder an older paraudit let sit inside audio/ is not the dataset's."""
    for parent in p.relative_to(audio).parents:
        folder = audio / parent
        if folder != audio and ((folder / RUN_JSON).exists() or (folder / CALLS).exists()):
            return True
    return False


def resolve_subject(name: str, run: Path, dataset: Path) -> Path:
    side, _, rel = name.partition("/")
    return (run if side == "run" else dataset) / rel
