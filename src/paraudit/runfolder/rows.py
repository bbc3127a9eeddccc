"""ResultRow: one question asked of one judge, as stored in results.jsonl; reader and writer."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from paraudit.errors import ParauditError
from paraudit.permissions import follow_umask
from paraudit.runfolder.names import RESULTS

Status = Literal["ok", "unparsed", "refused", "error"]
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
    """J (judgement), P (perception), O (oracle), S (staging) or T (transcript only)."""
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
    """ok (parsed), unparsed, refused (by the provider) or error (the call failed)."""
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


def read_rows(run_dir: Path) -> list[ResultRow]:
    """Every row of RUN_DIR/results.jsonl, validated; a bad row is named by its real line."""
    path = run_dir / RESULTS
    if not path.is_file():
        raise ParauditError(f"{run_dir}: no {RESULTS} (is this a finished 'paraudit run' folder?)")
    rows = []
    fix = f"rerun 'paraudit run' with the same --out to rewrite {RESULTS} from calls.sqlite"
    try:
        with path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    rows.append(ResultRow.model_validate_json(line))
                except ValidationError as e:
                    raise ParauditError(
                        f"{path} line {number}: not a result row ({_first_error(e)}); {fix}"
                    ) from None
    except UnicodeDecodeError as e:
        raise ParauditError(f"{path}: not UTF-8 text ({e.reason}); {fix}") from None
    except OSError as e:
        raise ParauditError(f"{path}: cannot read ({e.strerror})") from None
    return rows


def _first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    where = ".".join(str(x) for x in err["loc"])
    if err["type"].startswith("json"):
        return f"broken JSON: {err['msg']}"
    return f"{where}: {err['msg']}" if where else err["msg"]


def write_rows(run_dir: Path, rows: list[dict[str, Any]] | list[ResultRow]) -> Path:
    """Write results.jsonl atomically: a private temporary file in the folder, then rename, so
    a reader sees the old file or the new one, never half of one."""
    path = run_dir / RESULTS
    fd, tmp = tempfile.mkstemp(prefix=f".{RESULTS}.", suffix=".tmp", dir=run_dir)
    follow_umask(tmp)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for r in rows:
                if isinstance(r, ResultRow):
                    data = r.model_dump(mode="json")
                else:
                    ResultRow.model_validate(r)  # the writer keeps the contract, not the reader
                    data = r
                f.write(json.dumps(data, ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
