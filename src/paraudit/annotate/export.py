"""Human answers out of the store: export rows, agreement inputs, a run folder for the report,
and the list of items listeners get wrong (`paraudit validate --humans`).

These run on the server side only: they join answers with the answer key.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import time
from pathlib import Path
from typing import Any

from paraudit import __version__
from paraudit.annotate.assignment import stimulus
from paraudit.annotate.store import AnnotationStore
from paraudit.errors import ParauditError
from paraudit.items.dataset import Dataset
from paraudit.runfolder.spec import dataset_fingerprint
from paraudit.stats.agreement import ItemScore, Judgment, item_accuracy

EXPORT_FIELDS = (
    "annotator",
    "seq",
    "kind",
    "item_id",
    "task",
    "branch",
    "response_order",
    "choice",
    "gold",
    "correct",
    "chosen",
    "confidence",
    "comment",
    "shown_at",
    "answered_at",
    "seconds_to_answer",
    "repeat_of",
    "foil_item",
)


def answer_rows(store: AnnotationStore, ds: Dataset) -> list[dict[str, Any]]:
    """One row per stored answer, joined with its assignment and answer key."""
    items = {it.id: it for it in ds.items}
    tasks = {(t.annotator, t.seq): t for t in store.tasks()}
    shown = store.shown_at()
    rows = []
    for a in store.answers():
        t = tasks[(a.annotator, a.seq)]
        st = stimulus(items, t)
        seen = shown.get((a.annotator, a.seq))
        rows.append(
            {
                "annotator": a.annotator,
                "seq": a.seq,
                "kind": t.kind,
                "item_id": t.item_id,
                "task": t.task,
                "branch": t.branch,
                "response_order": t.order,
                "choice": a.choice,
                "gold": st.gold,
                "correct": a.choice == st.gold,
                "chosen": st.identities[0 if a.choice == "R1" else 1],
                "confidence": a.confidence,
                "comment": a.comment,
                "shown_at": seen,
                "answered_at": a.answered_at,
                "seconds_to_answer": round(a.answered_at - seen, 3) if seen else None,
                "repeat_of": t.repeat_of,
                "foil_item": t.foil_item,
            }
        )
    return rows


def export_jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def export_csv(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=EXPORT_FIELDS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def judgments(rows: list[dict[str, Any]]) -> list[Judgment]:
    return [
        Judgment(
            annotator=r["annotator"],
            item_id=r["item_id"],
            task=r["task"],
            unit=f"{r['item_id']}|{r['branch']}",
            category=str(r["chosen"]),
            correct=bool(r["correct"]),
            kind=r["kind"],
        )
        for r in rows
    ]


def result_rows(
    rows: list[dict[str, Any]], annotators: list[str], *, label: str = "human", split: bool = False
) -> list[dict[str, Any]]:
    """Scored answers as result rows (INTERFACES.md keys): probe J, protocol pointwise, cue
    none — the native question the judges get. Catch items and repeats are left out.

    With one pooled label, each annotator is a `sample` of the "human" judge (sample = the
    annotator's index); with `split`, each annotator is its own judge `human:NAME`.
    """
    index = {name: i for i, name in enumerate(annotators)}
    out = []
    for r in rows:
        if r["kind"] not in ("own", "overlap"):
            continue
        raw = {"annotator": r["annotator"], "choice": r["choice"], "confidence": r["confidence"]}
        if r["comment"]:
            raw["comment"] = r["comment"]
        key = hashlib.sha256(f"{r['annotator']}|{r['seq']}|{r['item_id']}".encode()).hexdigest()
        out.append(
            {
                "judge": f"{label}:{r['annotator']}" if split else label,
                "task": r["task"],
                "item_id": r["item_id"],
                "branch": r["branch"],
                "probe": "J",
                "protocol": "pointwise",
                "cue": "none",
                "order": r["response_order"],
                "context_order": None,
                "pred": r["choice"],
                "gold": r["gold"],
                "status": "ok",
                "correct": bool(r["correct"]),
                "raw": json.dumps(raw, ensure_ascii=False),
                "reason": "",
                "latency_s": r["seconds_to_answer"],
                "attempts": 1,
                "usage": {},
                "audio_sent_sha256": [],
                "sample": 0 if split else index[r["annotator"]],
                "key": key,
                "options": {},
            }
        )
    return out


def write_run(store_path: Path, out: Path, *, label: str = "human", split: bool = False) -> int:
    """Write a run folder of human answers (run.json + results.jsonl) that `paraudit report`
    reads beside judge runs. Returns the number of result rows."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ParauditError(f"{out}: exists and is not empty; pick a new folder for the run")
    store = AnnotationStore.open(store_path)
    try:
        ds = store.dataset()
        rows = answer_rows(store, ds)
        names = [n for n, _ in store.annotators()]
        results = result_rows(rows, names, label=label, split=split)
        created = store.meta("created_at")
    finally:
        store.close()
    if not results:
        raise ParauditError(f"{store_path}: no scored answers yet; nothing to export")
    out.mkdir(parents=True, exist_ok=True)
    spec = {
        "paraudit": __version__,
        "source": "annotate",
        "store": str(store_path.resolve()),
        "dataset": str(ds.root.resolve()),
        "dataset_name": ds.manifest.name,
        # What judge runs record too: compare and report then see the same dataset, not two.
        "dataset_fingerprint": dataset_fingerprint(ds.root),
        "judges": sorted({r["judge"] for r in results}),
        "judge_details": [{"label": label, "kind": "human", "annotators": names}],
        "plan": {"probes": ["J"], "protocols": ["pointwise"], "cues": ["none"]},
        "study_created_at": created,
        "exported_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    (out / "run.json").write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    tmp = out / "results.jsonl.tmp"
    tmp.write_text(export_jsonl(results), encoding="utf-8")
    tmp.replace(out / "results.jsonl")
    return len(results)


def hard_items(
    store_path: Path, *, threshold: float = 0.5, min_answers: int = 2
) -> list[ItemScore]:
    """Per-item human accuracy from a store, hardest first (flagged items are below threshold)."""
    store = AnnotationStore.open(store_path)
    try:
        rows = answer_rows(store, store.dataset())
    finally:
        store.close()
    return item_accuracy(judgments(rows), threshold=threshold, min_answers=min_answers)
