"""ResultRow: one question asked of one judge, as stored in results.jsonl; reader and writer."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from paraudit.errors import ParauditError
from paraudit.permissions import follow_umask
from paraudit.runfolder.names import RESULTS

Status = Literal["ok", "unparsed", "refused", "error", "no-audio"]
Pred = str | dict[str, str]


class ResultRow(BaseModel):
    """One row of results.jsonl. Statistics read nothing else: every number in a report is
    recomputable from these rows."""

    model_config = ConfigDict(frozen=True, extra="allow")

    judge: str
    """The judge's unique label (JudgeSpec.label): backend, model, output-changing options."""
    task: str
    """The dataset task of the item (e.g. single-turn-emotions)."""
    item_id: str
    branch: int | None
    """0 or 1 for a pointwise question (which counterfactual branch); None for pairwise."""
    probe: str
    """J (judgement), P (perception), O (oracle), S (staging), T (transcript only) or N (null
    audio: see `asks` and `null`)."""
    protocol: str
    """pointwise or pairwise."""
    cue: str
    """How explicitly the text states the emotion: none, soft, hard, transition."""
    order: str
    """Response order: 'ab' = R1 is branch 0's response, 'ba' = swapped."""
    context_order: str | None = None
    """Pairwise context order: 'ab' = CA is branch 0's context; None for pointwise."""
    pred: Pred | None
    """The parsed answer (None unless status is ok)."""
    gold: Pred
    """The correct answer in the same form as pred."""
    status: Status
    """ok (parsed), unparsed, refused (by the provider), error (the call failed) or, on probe N
    only, no-audio (the reply says it heard nothing: protocols/no_audio.py)."""
    correct: bool
    """pred == gold; always False unless status is ok."""
    raw: str | None
    """The judge's reply text exactly as received."""
    reason: str = ""
    """Why a row is not ok (parse problem, refusal reason, last error)."""
    latency_s: float | None = None
    attempts: int | None = None
    usage: dict[str, Any] = Field(default_factory=dict)
    """Token usage as reported by the provider."""
    audio_sent_sha256: list[str] = Field(default_factory=list)
    """sha256 of each clip's bytes as actually sent, in prompt order."""
    sample: int = 0
    """Which re-ask of the prompt this answer is (--parse-retries)."""
    key: str = ""
    """The call's cache key in calls.sqlite."""
    options: dict[str, str] = Field(default_factory=dict)
    """Answer label → what it means in this question (e.g. R1 → the branch-0 response)."""
    asks: str | None = None
    """Probe N only: the question asked with null audio, P or J (absent in older rows)."""
    null: str | None = None
    """Probe N only: what replaced the context clips, silence or noise."""
    served: dict[str, str] | None = None
    """Who answered, as the provider's reply says (`model`; `system_fingerprint`,
    `model_version` or `revision` where given); None when it said nothing, and in older rows."""
    finished_at: float | None = None
    """When the call finished (Unix seconds; the stationarity check orders calls by it); None
    in older rows."""


def read_rows(run_dir: Path) -> list[ResultRow]:
    """Every row of RUN_DIR/results.jsonl, validated; a bad row is named by its real line."""
    return list(iter_rows(run_dir))


MAX_ROW_CHARS = 64 * 2**20
"""A row holds at most a few replies of 64 KiB each (runner samples); a line beyond this is not
a row, and reading it whole could take all memory."""


def iter_rows(run_dir: Path) -> Iterator[ResultRow]:
    """The rows of RUN_DIR/results.jsonl one at a time, validated (a bad row is named by its
    real line): readers of a million-row run keep only what they need of each."""
    path = run_dir / RESULTS
    if not path.is_file():
        raise ParauditError(f"{run_dir}: no {RESULTS} (is this a finished 'paraudit run' folder?)")
    fix = f"rerun 'paraudit run' with the same --out to rewrite {RESULTS} from calls.sqlite"
    try:
        with path.open(encoding="utf-8") as f:
            number = 0
            while line := f.readline(MAX_ROW_CHARS + 1):
                number += 1
                if len(line) > MAX_ROW_CHARS and not line.endswith("\n"):
                    raise ParauditError(
                        f"{path} line {number}: longer than {MAX_ROW_CHARS // 2**20} Mi "
                        f"characters, not a result row; {fix}"
                    )
                if not line.strip():
                    continue
                try:
                    row = ResultRow.model_validate_json(line)
                except ValidationError as e:
                    raise ParauditError(
                        f"{path} line {number}: not a result row ({_first_error(e)}); {fix}"
                    ) from None
                yield row
    except UnicodeDecodeError as e:
        raise ParauditError(f"{path}: not UTF-8 text ({e.reason}); {fix}") from None
    except OSError as e:
        raise ParauditError(f"{path}: cannot read ({e.strerror})") from None


def _first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    where = ".".join(str(x) for x in err["loc"])
    if err["type"].startswith("json"):
        return f"broken JSON: {err['msg']}"
    return f"{where}: {err['msg']}" if where else err["msg"]


class RowWriter:
    """results.jsonl written as rows finish: into a private temporary file in the folder,
    renamed into place by `commit`, so a reader sees the old file or the new one, never half of
    one, and the writer holds no row after writing it. Every row is checked against the
    contract (the writer keeps it, not the reader)."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / RESULTS
        fd, tmp = tempfile.mkstemp(prefix=f".{RESULTS}.", suffix=".tmp", dir=run_dir)
        follow_umask(tmp)
        self._tmp = Path(tmp)
        self._file = os.fdopen(fd, "wb")
        self._hash = hashlib.sha256()
        self.rows = 0
        self.size = 0

    def write(self, row: dict[str, Any] | ResultRow) -> dict[str, Any]:
        """Write one row; the row as written (JSON types), for a caller that tallies it
        without converting it again."""
        if isinstance(row, ResultRow):
            data = row.model_dump(mode="json")
        else:
            ResultRow.model_validate(row)
            data = row
        line = (json.dumps(data, ensure_ascii=False) + "\n").encode()
        self._file.write(line)
        self._hash.update(line)
        self.rows += 1
        self.size += len(line)
        return data

    @property
    def sha256(self) -> str:
        """sha256 of the bytes written so far (the committed file's hash)."""
        return self._hash.hexdigest()

    def commit(self) -> Path:
        self._file.close()
        os.replace(self._tmp, self.path)
        return self.path

    def discard(self) -> None:
        self._file.close()
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> RowWriter:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        if kind is not None:
            self.discard()
        elif not self._file.closed:
            self.commit()


def write_rows(run_dir: Path, rows: Iterable[dict[str, Any]] | Iterable[ResultRow]) -> Path:
    """Write results.jsonl atomically (see RowWriter)."""
    with RowWriter(run_dir) as out:
        for r in rows:
            out.write(r)
    return out.path
