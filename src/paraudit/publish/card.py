"""The audit card: one JSON record and its Markdown reading, from a finished run folder.

The card holds what a reader needs to trust and reuse the audit: the dataset (fingerprint,
its builder's card when it has one), each judge's identity (spec, backend, model, options —
the decoding — and the models the provider said answered), the plan, every verdict with its
steps and item-level intervals, the controls (text-only preference, null audio, audio
delivery), the software version, and the sha256 of every file its numbers come from. The
summary the verdicts come from is written beside it (`summary.json`), computed as `paraudit
report` computes it, so `paraudit verify` can recompute it and compare.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paraudit import __version__
from paraudit.publish.digests import Finished, finished_run, run_dataset_path, subjects
from paraudit.publish.summary import REPLICATES, SEED, run_summary
from paraudit.runfolder.names import CALLS
from paraudit.runfolder.spec import read_run_json
from paraudit.stats.summary_model import Summary

SCHEMA = "paraudit.card/1"
CARD_JSON = "card.json"
CARD_MD = "card.md"
SUMMARY_JSON = "summary.json"
STATEMENT = "statement.intoto.json"
HASH_ONLY = (
    "hash-only: the in-toto Statement lists the sha256 of every subject but is not signed; "
    "sign it with --sign (an installed signer) or an external tool"
)


@dataclass(frozen=True)
class Audit:
    """Everything a card is made from, read once."""

    run: Path
    dataset: Path
    record: dict[str, Any]
    """run.json."""
    finished: Finished
    summary: Summary
    subjects: dict[str, str]
    served: dict[str, list[str]]
    """Judge label → the model names its provider reported (empty when none reported)."""


def read_audit(
    run: Path, dataset: Path | None = None, replicates: int = REPLICATES, seed: int = SEED
) -> Audit:
    finished = finished_run(run)
    ds = run_dataset_path(run, dataset)
    record = read_run_json(run) or {}
    return Audit(
        run,
        ds,
        record,
        finished,
        run_summary(run, replicates, seed),
        subjects(run, ds),
        served_models(run),
    )


def served_models(run: Path) -> dict[str, list[str]]:
    """The model each reply named, per judge: the calls' `served` column (calls.sqlite schema
    4: judges.base.Reply.served), and a provider usage's `model` where a store has it (read
    only, in SQL: the store of a large run is not loaded). A store older than the column
    still gives what its usage says."""
    queries = (
        "SELECT DISTINCT judge, json_extract(served, '$.model') FROM calls "
        "WHERE served IS NOT NULL AND json_valid(served)",
        "SELECT DISTINCT judge, json_extract(usage, '$.model') FROM calls WHERE json_valid(usage)",
    )
    got: list[tuple[str, object]] = []
    try:
        db = sqlite3.connect(f"file:{(run / CALLS).absolute()}?mode=ro", uri=True)
    except sqlite3.Error:
        return {}
    try:
        for query in queries:
            try:
                got += db.execute(query).fetchall()
            except sqlite3.Error:  # no such column in an older store
                continue
    finally:
        db.close()
    out: dict[str, set[str]] = {}
    for judge, model in got:
        if isinstance(model, str):
            out.setdefault(judge, set()).add(model)
    return {k: sorted(v) for k, v in out.items()}


def summary_text(summary: Summary) -> str:
    return summary.to_json()


def summary_sha256(summary: Summary) -> str:
    return hashlib.sha256(summary_text(summary).encode()).hexdigest()


def run_identity(a: Audit) -> str:
    """A fingerprint of the audit (dataset, spec, results): equal for the same audit wherever
    it is copied (Every Eval Ever's de-duplication key)."""
    spec = a.record.get("spec", {})
    blob = json.dumps([spec, a.finished.results_sha256], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _dataset_card(dataset: Path) -> dict[str, Any] | None:
    path = dataset / "card.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    except (OSError, ValueError):
        return None
    return raw if isinstance(raw, dict) else None


def judges(a: Audit) -> list[dict[str, Any]]:
    details = a.record.get("judge_details") or [
        {"label": j, "spec": j} for j in a.record.get("judges", [])
    ]
    out = []
    for d in details:
        ident = d.get("identity") or {}
        out.append({
            "label": d.get("label"),
            "spec": d.get("spec"),
            "backend": ident.get("backend"),
            "model": ident.get("model"),
            "base_url": ident.get("base_url"),
            "decoding": ident.get("options", {}),
            "served_models": a.served.get(str(d.get("label")), []),
        })  # fmt: skip
    return out


def card_record(a: Audit, statement_sha256: str, signature: dict[str, Any]) -> dict[str, Any]:
    s = a.summary
    ds_name = a.record.get("dataset_name") or a.record.get("spec", {}).get("dataset_name")
    return {
        "schema": SCHEMA,
        "paraudit": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "run": {
            "path": str(a.run.absolute()),
            "identity": run_identity(a),
            "spec": a.record.get("spec"),
            "plan": a.record.get("plan"),
            "history": a.record.get("history", []),
            "rows": a.finished.rows,
            "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(a.finished.finished_at)),
            "run_by": a.record.get("paraudit"),
        },
        "dataset": {
            "name": ds_name,
            "fingerprint": a.record.get("spec", {}).get("dataset_fingerprint"),
            "path": str(a.dataset.absolute()),
            "card": _dataset_card(a.dataset),
        },
        "judges": judges(a),
        "verdicts": [v.model_dump(mode="json") for v in s.verdicts],
        "controls": {
            "transcript_control": s.section("transcript_control"),
            "null_audio": s.section("null_audio"),
            "delivery": s.section("delivery"),
        },
        "summary": {
            "file": SUMMARY_JSON,
            "sha256": summary_sha256(s),
            "replicates": s.bootstrap.replicates,
            "seed": s.bootstrap.seed,
            "unit": "item",
        },
        "subjects": a.subjects,
        "statement": {"file": STATEMENT, "sha256": statement_sha256},
        "signature": signature,
    }


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.1%}"


def card_markdown(card: dict[str, Any]) -> str:
    ds, run = card["dataset"], card["run"]
    lines = [
        f"# Audit card: {ds['name']}",
        "",
        f"paraudit {card['paraudit']} · card {card['schema']} · made {card['created']}",
        "",
        "## Dataset",
        f"- name: {ds['name']}; fingerprint `{ds['fingerprint']}`",
        f"- builder's card: {'included in card.json' if ds['card'] else 'none in the folder'}",
        "",
        "## Judges",
    ]
    for j in card["judges"]:
        served = ", ".join(j["served_models"]) or "none reported"
        lines.append(f"- `{j['label']}` (backend {j['backend']}, model {j['model']}, decoding "
                     f"{json.dumps(j['decoding'])}; served: {served})")  # fmt: skip
    plan = run.get("plan") or {}
    lines += [
        "",
        "## Plan",
        f"- probes {', '.join(plan.get('probes', []))}; protocols "
        f"{', '.join(plan.get('protocols', []))}; cues {', '.join(plan.get('cues', []))}; "
        f"orders {plan.get('orders')}; {run['rows']:,} result rows",
        "",
        "## Verdicts",
        f"Item-level intervals: {card['summary']['replicates']:,} bootstrap replicates of whole "
        "items (95 %; steps decide by 99 %).",
        "",
    ]
    for v in card["verdicts"]:
        lines.append(f"### {v['judge']} · {v['task']} ({v['items']} item(s)): {v['diagnosis']}")
        lines.append("")
        lines.append(v["headline"])
        lines.append("")
        _, said, sequential = v.get("text", "").partition("Sequential run: ")
        if said:  # a sequential run: how many items each step used (stats/sequential_record)
            lines.append(f"- sequential: {sequential}")
        for name in ("native", "recoverable", "cue"):
            step = v[name]
            ev = "; ".join(
                f"{k} {_pct(e.get('rate'))} [{_pct(e.get('ci_low'))}, {_pct(e.get('ci_high'))}]"
                for k, e in step.get("evidence", {}).items()
            )
            lines.append(f"- {name}: {step['outcome']}{f' ({ev})' if ev else ''}")
        for c in v["components"]:
            lines.append(f"- components at cue {c['cue']}: {c['pattern']}")
        for b in v["behaviours"]:
            lines.append(f"- behaviour: {b['text']}")
        lines.append("")
    lines += [
        "## Attestation",
        f"- {len(card['subjects'])} subjects (run.json, results.jsonl, the dataset's manifest, "
        f"items and clips) in `{card['statement']['file']}`",
        f"- signature: {card['signature']['note']}",
        "- check with `paraudit verify CARD [RUN]`",
        "",
    ]
    return "\n".join(lines)
