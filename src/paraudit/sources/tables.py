"""Read source rows from JSONL, CSV/TSV or a saved Hugging Face dataset, with a column mapping.

`--map sentence=text,expected_emotions=pair,turns.is_agent=from_agent` renames the source's
columns to the names a preset reads (left: the preset's field, right: the source's column;
`turns.X=Y` renames a field inside each turn). Columns not named keep their own name.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paraudit.errors import ParauditError


@dataclass(frozen=True)
class ColumnMap:
    top: dict[str, str] = field(default_factory=dict)
    """preset field → source column"""
    turn: dict[str, str] = field(default_factory=dict)
    """turn field → source field inside each turn"""

    @classmethod
    def parse(cls, text: str | None) -> ColumnMap:
        top: dict[str, str] = {}
        turn: dict[str, str] = {}
        for part in (text or "").split(","):
            if not part.strip():
                continue
            if "=" not in part:
                raise ParauditError(
                    f"--map entry '{part.strip()}' must read FIELD=COLUMN "
                    "(e.g. --map sentence=text,expected_emotions=pair)"
                )
            name, col = (s.strip() for s in part.split("=", 1))
            if not name or not col:
                raise ParauditError(f"--map entry '{part.strip()}' has an empty side")
            if name.startswith("turns."):
                turn[name.removeprefix("turns.")] = col
            else:
                top[name] = col
        return cls(top, turn)

    def describe(self) -> dict[str, str]:
        return {**self.top, **{f"turns.{k}": v for k, v in self.turn.items()}}

    def apply(self, row: dict[str, Any]) -> dict[str, Any]:
        out = dict(row)
        for name, col in self.top.items():
            if col in row:
                out[name] = row[col]
        if self.turn and isinstance(out.get("turns"), list):
            out["turns"] = [
                {**t, **{n: t[c] for n, c in self.turn.items() if c in t}}
                if isinstance(t, dict)
                else t
                for t in out["turns"]
            ]
        return out


def _not_utf8(path: Path, line: int, e: UnicodeDecodeError, offset: int = 0) -> ParauditError:
    """One line naming the line and byte of a source that is not UTF-8, and the fix."""
    bad = e.object[e.start : e.start + 1].hex()
    return ParauditError(
        f"{path}:{line}: not valid UTF-8 (byte 0x{bad} at byte {offset + e.start + 1} of the "
        "file); re-save the source as UTF-8"
    )


def _jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open("rb") as f:
        offset = 0
        for n, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise _not_utf8(path, n, e, offset) from None
            offset += len(raw)
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise ParauditError(f"{path}:{n}: not valid JSON ({e.msg})") from None
            except RecursionError:  # json recurses once per level: a 100,000-deep array
                raise ParauditError(f"{path}:{n}: nested too deeply to be a record") from None
            if not isinstance(row, dict):
                raise ParauditError(f"{path}:{n}: expected a JSON object per line")
            yield n, row


def _csv(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _not_utf8(path, data.count(b"\n", 0, e.start) + 1, e) from None
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    for n, row in enumerate(reader, start=2):
        yield n, dict(row)


def _saved_hf(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        import datasets
    except ImportError:
        raise ParauditError(
            f"{path} is a saved Hugging Face dataset; reading it needs "
            "pip install 'paraudit[datasets]'"
        ) from None
    ds: Any = datasets.load_from_disk(str(path))
    if isinstance(ds, datasets.DatasetDict):
        split = "train" if "train" in ds else next(iter(ds))
        ds = ds[split]
    for n, row in enumerate(ds, start=1):
        yield n, dict(row)


def read_rows(path: Path, mapping: ColumnMap | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line or row number, row with mapped column names) for every record of a source."""
    if not path.exists():
        raise ParauditError(f"{path}: no such source file")
    if path.is_dir():
        if not any((path / n).is_file() for n in ("dataset_info.json", "dataset_dict.json")):
            raise ParauditError(f"{path}: a folder source must be a saved Hugging Face dataset")
        rows = _saved_hf(path)
    elif path.suffix.lower() in (".csv", ".tsv"):
        rows = _csv(path)
    elif path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        rows = _jsonl(path)
    else:
        raise ParauditError(f"{path}: unknown source format (use .jsonl, .csv, .tsv or a folder)")
    m = mapping or ColumnMap()
    for n, row in rows:
        yield n, m.apply(row)


def need(path: Path, n: int, row: dict[str, Any], name: str) -> Any:
    if name not in row or row[name] is None or row[name] == "":
        raise ParauditError(
            f"{path}:{n}: no '{name}' field (columns: {', '.join(sorted(row)) or 'none'}); "
            f"name the source column with --map {name}=COLUMN"
        )
    return row[name]
