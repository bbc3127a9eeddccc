"""Assemble a card folder's files (name → text) from a finished run; nothing is written here."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from paraudit.publish.card import (
    CARD_JSON,
    CARD_MD,
    HASH_ONLY,
    STATEMENT,
    SUMMARY_JSON,
    Audit,
    card_markdown,
    card_record,
    judges,
    run_identity,
    summary_text,
)
from paraudit.publish.formats import eee_record, hf_entries, slug, statement

EEE_DIR = "every_eval_ever"
HF_DIR = "eval_results"


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def card_files(
    a: Audit,
    *,
    organization: str = "unknown",
    relationship: str = "third_party",
    hf_dataset: str | None = None,
    signature: dict[str, Any] | None = None,
) -> dict[str, str]:
    """Every file of the card folder, by relative name."""
    identity = run_identity(a)
    now = int(time.time())
    finished = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(a.finished.finished_at))
    summary = summary_text(a.summary)
    config = {
        "run/run.json": a.subjects["run/run.json"],
        f"card/{SUMMARY_JSON}": hashlib.sha256(summary.encode()).hexdigest(),
    }
    stmt = _json(statement(a.subjects, a.summary.verdicts, identity, config))
    sig = signature or {"signed": False, "note": HASH_ONLY}
    card = card_record(a, hashlib.sha256(stmt.encode()).hexdigest(), sig)
    files = {
        CARD_JSON: json.dumps({"paraudit_output": "card", **card}, indent=2, ensure_ascii=False)
        + "\n",
        CARD_MD: card_markdown(card),
        SUMMARY_JSON: summary,
        STATEMENT: stmt,
    }
    for j in judges(a):
        name = slug(str(j["label"]))
        files[f"{EEE_DIR}/{name}.json"] = _json(
            eee_record(a.summary, j, card["dataset"], identity, a.finished.results_sha256,
                       a.finished.rows, now, finished, organization, relationship)
        )  # fmt: skip
        entries = hf_entries(a.summary, str(j["label"]), hf_dataset, finished, identity)
        files[f"{HF_DIR}/{name}.yaml"] = yaml_list(entries)
    return files


def yaml_list(entries: list[dict[str, Any]]) -> str:
    """A YAML list of mappings of scalars (the eval_results shape), without a YAML library:
    every scalar is written as JSON, which YAML reads as the same value (a double-quoted
    string with JSON's escapes, or a number)."""
    lines: list[str] = []

    def mapping(d: dict[str, Any], indent: int, first: str) -> None:
        for n, (k, v) in enumerate(d.items()):
            lead = first if n == 0 else " " * indent
            if isinstance(v, dict):
                lines.append(f"{lead}{k}:")
                mapping(v, indent + 2, " " * (indent + 2))
            else:
                lines.append(f"{lead}{k}: {json.dumps(v)}")

    for e in entries:
        mapping(e, 2, "- ")
    return "\n".join(lines) + "\n" if lines else "[]\n"


def write_card(out: Path, files: dict[str, str]) -> None:
    """Write the folder beside `out` and swap it in complete (an interrupted card leaves the
    old one, or nothing)."""
    import os
    import shutil
    import tempfile

    parent = out.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=parent))
    try:
        for name, text in files.items():
            path = tmp / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        old = None
        if out.exists():
            old = parent / f".{out.name}.old.{os.getpid()}"
            os.replace(out, old)
        os.replace(tmp, out)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
