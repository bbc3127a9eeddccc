"""The runner's side of the run-folder contract: claim `--out`, compare its RunSpec with the
one asked for, and decide whether this is a new run, a resume or an `--extend`."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paraudit.errors import ParauditError
from paraudit.judges.spec import JudgeSpec, parse_judge_spec
from paraudit.runfolder import LOCK, RunSpec, read_run_json
from paraudit.runfolder.names import CALLS, RUN_JSON
from paraudit.runfolder.spec import EXTENDABLE


def unique_judges(given: list[JudgeSpec]) -> tuple[list[JudgeSpec], list[str]]:
    """The judges once each: an exact repeat is dropped with a note, two specs that share a
    label (same judge, different harness options) are refused: which one would be meant?"""
    specs: dict[str, JudgeSpec] = {}
    notes = []
    for s in given:
        text = s.text
        kept = specs.get(s.label)
        if kept is None:
            specs[s.label] = s
        elif kept.options == s.options:
            notes.append(f"--judge {text} given twice; asked once")
        else:
            raise ParauditError(
                f"--judge {kept.text} and --judge {text} are the same judge ({s.label}) with "
                "different harness options; keep one"
            )
    return list(specs.values()), notes


def _label_and_spec(stored: str | dict[str, Any]) -> tuple[str, JudgeSpec]:
    """A judge as run.json stores it: structure, or (folders written before) its spec text."""
    s = JudgeSpec.from_dict(stored) if isinstance(stored, dict) else parse_judge_spec(stored)
    return s.label, s


def check_out(out: Path) -> None:
    """--out must be a folder that is new, empty, or a run folder (checked before any work)."""
    if out.exists() and not out.is_dir():
        raise ParauditError(f"--out {out} is a file; pass a folder for the run")
    parent = next((p for p in [out, *out.parents] if p.exists()), None)
    if parent is not None and not os.access(parent, os.W_OK | os.X_OK):
        raise ParauditError(f"--out {out}: {parent} is not writable; pass a folder you can write")
    old = read_run_json(out) if out.is_dir() else None
    if old is not None and "spec" not in old:
        refuse_foreign_run_json(out, old)  # before the lock file is made
    if out.is_dir() and old is None:
        others = [p.name for p in out.iterdir() if p.name != LOCK]
        if CALLS in others:
            # run.json deleted (or lost): the answers are not, and the user should know.
            raise ParauditError(
                f"--out {out} holds {CALLS} ({_finished_calls(out / CALLS)} finished calls) but "
                f"no {RUN_JSON}, so it cannot be resumed as it is; restore {RUN_JSON} to resume "
                f"(nothing is lost), or pass a new --out (the calls stay in {out / CALLS})"
            )
        if others:
            raise ParauditError(
                f"--out {out} is not empty and holds no run.json (so it is not a run folder); "
                "pass a new or empty folder"
            )


def _finished_calls(path: Path) -> str:
    """How many calls a calls.sqlite holds ('some' if it cannot be read). Opened immutable:
    a refused command must not leave WAL side files behind."""
    try:
        uri = f"file:{path}?mode=ro&immutable=1"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
            return str(db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])
    except sqlite3.Error:
        return "some"


def refuse_foreign_run_json(out: Path, old: dict[str, Any]) -> None:
    """A run.json without a spec is adopted only if it records a run (its judges): a stub
    ('{}') or the human answers annotate-export wrote are not runs to resume."""
    if old.get("source") == "annotate":
        raise ParauditError(
            f"--out {out} holds human answers written by annotate-export, not a judge run; "
            "pass a new --out"
        )
    if not isinstance(old.get("judges"), list) or not old["judges"]:
        raise ParauditError(
            f"--out {out}: {RUN_JSON} records no run (no spec, no judges: a stub or a damaged "
            f"file); pass a new --out, or delete {out / RUN_JSON} if the folder is yours to reuse"
        )


@dataclass(frozen=True)
class Claim:
    """What this invocation will do in the run folder."""

    spec: RunSpec
    """The run's spec after this invocation (grown by --extend)."""
    judges: list[JudgeSpec]
    """Every judge to run, in the run's order (earlier judges re-run from calls.sqlite)."""
    history: list[dict[str, Any]] | None
    """run.json's history to write with a new run.json, or None to leave run.json untouched
    (a plain resume: the run's identity is never rewritten)."""


def claim(out: Path, asked: RunSpec, judges: list[JudgeSpec], extend: bool) -> Claim:
    """Compare the asked-for spec with the folder's; refuse a silent change of run."""
    now = time.strftime("%Y-%m-%dT%H:%M:%S")
    old = read_run_json(out)
    if old is None:
        return Claim(asked, judges, [{"at": now, "event": "created"}])
    if "spec" not in old:
        refuse_foreign_run_json(out, old)
        # A folder written before run specs were recorded: adopt it, noting so.
        return Claim(asked, judges, [{"at": now, "event": "adopted (run.json had no spec)"}])
    stored = RunSpec.from_dict(old["spec"])
    if stored == asked:
        return Claim(asked, judges, None)
    if not extend:
        diffs = stored.differences(asked)
        # Offer --extend only when it can work: it adds judges/probes/protocols/cues, nothing else.
        fixed = [d for d in diffs if d.split(":", 1)[0] not in EXTENDABLE]
        way = (
            "pass a new --out for a separate run"
            if fixed
            else "pass a new --out for a separate run, or --extend to add these "
            f"{'/'.join(EXTENDABLE)} to this one"
        )
        raise ParauditError(f"--out {out} holds a different run ({'; '.join(diffs)}); {way}")
    grown = stored.extended_by(asked)
    by_label = {s.label: s for s in judges}
    for stored_judge in old.get("judge_specs") or old.get("judges", []):
        by_label.setdefault(*_label_and_spec(stored_judge))
    missing = [label for label in grown.judges if label not in by_label]
    if missing:
        raise ParauditError(
            f"run.json names judge(s) {', '.join(missing)} without their spec; pass them "
            "again with --judge"
        )
    if grown == stored:  # nothing new: resume the whole run as it is
        return Claim(stored, [by_label[label] for label in grown.judges], None)
    added = {
        name: [v for v in getattr(grown, name) if v not in getattr(stored, name)]
        for name in EXTENDABLE
    }
    history = [
        *old.get("history", []),
        {"at": now, "event": "extended", "added": {k: v for k, v in added.items() if v}},
    ]
    return Claim(grown, [by_label[label] for label in grown.judges], history)
