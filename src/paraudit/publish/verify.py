"""`paraudit verify`: a card against the run folder it attests.

Every subject digest is recomputed from the files (a changed, missing or added clip is named),
the Statement's own digest is checked against the card, and the summary is recomputed from the
run's results with the card's bootstrap settings and compared with the card's summary.json.
The first mismatch of each kind is reported as one line naming the file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from paraudit.bounds import json_depth_problem, not_regular
from paraudit.errors import ParauditError
from paraudit.publish.card import (
    CARD_JSON,
    CARD_MD,
    STATEMENT,
    SUMMARY_JSON,
    Audit,
    card_markdown,
    card_record,
    read_audit,
    summary_text,
)
from paraudit.publish.digests import resolve_subject, sha256_file, subjects


class VerifyError(ParauditError):
    """A card that cannot be read at all (not a mismatch): a usage mistake, exit 2."""

    exit_code = 2


def read_card(card: Path) -> dict[str, Any]:
    path = card / CARD_JSON if card.is_dir() else card
    kind = not_regular(path)
    if kind is not None:  # a FIFO's read waits for ever
        raise VerifyError(f"{path} is {kind}, not an audit card")
    try:
        text = path.read_text(encoding="utf-8")
        deep = json_depth_problem(text)  # json recurses per level: 100,000 was a traceback
        if deep is not None:
            raise ValueError(deep)
        raw = json.loads(text)
    except (OSError, ValueError) as e:
        raise VerifyError(f"{path} is not a readable audit card ({e})") from None
    if not isinstance(raw, dict) or not str(raw.get("schema", "")).startswith("paraudit.card/"):
        raise VerifyError(f"{path} is not a paraudit audit card (no paraudit.card schema)")
    major = str(raw["schema"]).split("/", 1)[1]
    if major != "1":
        raise VerifyError(f"{path} is card schema {raw['schema']}; this paraudit reads version 1")
    bad = _shape_problem(raw)
    if bad is not None:  # verify indexes these: a card missing one was a KeyError traceback
        raise VerifyError(
            f"{path} is not a complete audit card ({bad}); make it again with paraudit card"
        )
    return raw


# The fields verify reads, by their path in card.json, and the type each must have (created
# and paraudit are left out of the comparison with a fresh card, but card.md prints them).
_SHAPE: tuple[tuple[tuple[str, ...], type | tuple[type, ...]], ...] = (
    (("created",), str),
    (("paraudit",), str),
    (("run", "path"), str),
    (("dataset", "path"), str),
    (("subjects",), dict),
    (("statement", "sha256"), str),
    (("summary", "sha256"), str),
    (("summary", "replicates"), int),
    (("summary", "seed"), int),
)


def _shape_problem(raw: dict[str, Any]) -> str | None:
    for keys, kind in _SHAPE:
        value: Any = raw
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"{'.'.join(keys)} missing or not a {getattr(kind, '__name__', kind)}"
    if not all(isinstance(v, str) for v in raw["subjects"].values()):
        return "subjects must map each file to its sha256"
    if not isinstance(raw.get("signature", {}), dict):
        return "signature must be an object"
    return None


def mismatches(card_dir: Path, run: Path | None = None, dataset: Path | None = None) -> list[str]:
    """One line per mismatch (empty: the card holds)."""
    card = read_card(card_dir)
    folder = card_dir if card_dir.is_dir() else card_dir.parent
    run = run if run is not None else Path(card["run"]["path"])
    dataset = dataset if dataset is not None else Path(card["dataset"]["path"])
    if not run.is_dir():
        raise VerifyError(f"the run folder {run} is not here; pass it: paraudit verify CARD RUN")
    if not dataset.is_dir():
        raise VerifyError(f"the dataset {dataset} is not here; pass it with --dataset DIR")
    out: list[str] = []
    want: dict[str, str] = card["subjects"]
    for name, digest in want.items():
        path = resolve_subject(name, run, dataset)
        if not path.is_file():
            out.append(f"{path}: missing (the card lists it as {name})")
        elif sha256_file(path) != digest:
            out.append(f"{path}: sha256 differs from the card's ({name})")
    extra = sorted(set(subjects(run, dataset)) - set(want)) if not out else []
    out += [f"{resolve_subject(n, run, dataset)}: not in the card (added after it)" for n in extra]
    stmt = folder / STATEMENT
    if not stmt.is_file():
        out.append(f"{stmt}: missing")
    elif hashlib.sha256(stmt.read_bytes()).hexdigest() != card["statement"]["sha256"]:
        out.append(f"{stmt}: sha256 differs from the card's")
    stored = folder / SUMMARY_JSON
    if not stored.is_file():
        out.append(f"{stored}: missing")
        return out
    text = stored.read_text(encoding="utf-8")
    if hashlib.sha256(text.encode()).hexdigest() != card["summary"]["sha256"]:
        out.append(f"{stored}: sha256 differs from the card's")
    if out:
        return out  # a changed input would change the summary too: name the input, once
    audit = read_audit(run, dataset, card["summary"]["replicates"], card["summary"]["seed"])
    if summary_text(audit.summary) != text:
        out.append(f"{stored}: differs from the summary recomputed from {run} (different "
                   "results, or a paraudit whose statistics changed)")  # fmt: skip
        return out
    return claim_mismatches(card, audit, folder)


# What a card may say differently from a fresh one over the same run: when and by which
# paraudit it was made, and where the run and dataset lay then (a moved card still verifies).
_LOCAL = (("created",), ("paraudit",), ("run", "path"), ("dataset", "path"))


def _without_local(card: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(card))
    for path in _LOCAL:
        holder: Any = out
        for key in path[:-1]:
            holder = holder.get(key) if isinstance(holder, dict) else None
        if isinstance(holder, dict):
            holder.pop(path[-1], None)
    return out


def claim_mismatches(card: dict[str, Any], audit: Audit, folder: Path) -> list[str]:
    """Everything card.json says, checked against a card made afresh from the same run (its
    statement digest and signature record taken as stored: those are checked above), and card.md
    against card.json. A card edited to read "reliable" once passed as verified while every
    digest still held."""
    path = folder / CARD_JSON
    fresh = card_record(audit, card["statement"]["sha256"], card.get("signature", {}))
    fresh = {"paraudit_output": "card", **fresh}
    stored, made = _without_local(card), _without_local(fresh)
    if stored != made:
        keys = sorted(k for k in set(stored) | set(made) if stored.get(k) != made.get(k))
        return [f"{path}: {', '.join(keys)} differ from a card made afresh from the run"]
    md = folder / CARD_MD
    kind = not_regular(md)
    if kind is not None:  # a FIFO's read waits for ever
        return [f"{md}: is {kind}, not the card's Markdown"]
    try:
        written = md.read_text(encoding="utf-8")
    except OSError:
        return [f"{md}: missing"]
    if written != card_markdown(card):
        return [f"{md}: differs from what {CARD_JSON} says"]
    return []
