"""The card's results in the formats other tools read.

- Every Eval Ever (schema 0.3.0, `evaleval/every_eval_ever` `eval.schema.json`): one record
  per judge — the judge is the evaluated model; each result an accuracy with its item-level
  bootstrap interval and method; the run's identity as the de-duplication key; the checksum
  of results.jsonl as the detailed results.
- Hugging Face `.eval_results/*.yaml` (`huggingface/hub-docs` `eval_results.yaml`): one entry
  per task per judge, native (pointwise, no cue) J accuracy; `dataset.id` is a Hub id only when
  the user gives one (`--hf-dataset`).
- in-toto Statement v1 with the test-result predicate v0.1: subjects are the digests of the
  run's files, checks are the verdicts (native J above chance passes, at or below fails;
  habits and small samples warn).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from paraudit import __version__
from paraudit.stats.model import Verdict
from paraudit.stats.summary_model import AccuracyCell, Summary

EEE_VERSION = "0.3.0"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
TEST_RESULT = "https://in-toto.io/attestation/test-result/v0.1"
CI_METHOD = "paired item bootstrap: whole counterfactual items resampled with replacement"
REPORTED = (("J", "pointwise"), ("J", "pairwise"), ("P", "pointwise"), ("O", "pointwise"))


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "judge"


def _uuid4_from(hexdigest: str) -> str:
    """A stable UUID (version-4 layout) derived from a digest: the same audit, the same name."""
    return str(uuid.UUID(hex=hexdigest[:32], version=4))


def _cells(summary: Summary, judge: str) -> list[AccuracyCell]:
    return [
        c for c in summary.accuracy
        if c.judge == judge and (c.probe, c.protocol) in REPORTED and c.cue == "none"
        and c.accuracy is not None
    ]  # fmt: skip


def eee_record(
    summary: Summary,
    judge: dict[str, Any],
    dataset: dict[str, Any],
    identity: str,
    results_sha256: str,
    rows: int,
    created_epoch: int,
    finished_iso: str,
    organization: str,
    relationship: str,
) -> dict[str, Any]:
    label = str(judge["label"])
    source = {
        "dataset_name": str(dataset["name"]),
        "source_type": "other",
        "additional_details": {"fingerprint": str(dataset["fingerprint"]), "format": "paraudit"},
    }
    results = []
    for c in _cells(summary, label):
        results.append({
            "evaluation_result_id": f"{c.task}/{c.probe}/{c.protocol}/{c.cue}",
            "evaluation_name": f"{c.task} {c.probe} {c.protocol} (cue {c.cue})",
            "source_data": source,
            "evaluation_timestamp": finished_iso,
            "metric_config": {
                "evaluation_description": f"probe {c.probe}, {c.protocol} protocol, cue {c.cue}:"
                " share of answered instances right (paraudit counterfactual audit)",
                "metric_id": "accuracy",
                "metric_name": "Accuracy",
                "metric_kind": "accuracy",
                "metric_unit": "proportion",
                "lower_is_better": False,
                "score_type": "continuous",
                "min_score": 0.0,
                "max_score": 1.0,
                "metric_parameters": {"chance": c.chance},
            },
            "score_details": {
                "score": float(c.accuracy or 0.0),
                "details": {
                    "items": str(c.items),
                    "answered_instances": str(c.n),
                    "unparsed": str(c.unparsed),
                    "refused": str(c.refused),
                    "failed_calls": str(c.errors),
                    "above_chance": str(c.above_chance).lower(),
                },
                "uncertainty": {
                    "confidence_interval": {
                        "lower": float(c.ci_low if c.ci_low is not None else c.accuracy or 0.0),
                        "upper": float(c.ci_high if c.ci_high is not None else c.accuracy or 0.0),
                        "confidence_level": 0.95,
                        "method": CI_METHOD,
                    },
                    "num_samples": c.items,
                    "num_bootstrap_samples": summary.bootstrap.replicates,
                },
            },
        })  # fmt: skip
    verdicts = {f"verdict {v.task}": v.diagnosis for v in summary.verdicts if v.judge == label}
    backend, model = str(judge.get("backend") or ""), str(judge.get("model") or label)
    hosted = backend in ("openai", "gemini") and not judge.get("base_url")
    return {
        "schema_version": EEE_VERSION,
        "evaluation_id": f"paraudit-{slug(str(dataset['name']))}/{slug(label)}/{created_epoch}",
        "evaluation_timestamp": finished_iso,
        "retrieved_timestamp": str(created_epoch),
        "source_metadata": {
            "source_name": "paraudit counterfactual audit",
            "source_type": "evaluation_run",
            "source_organization_name": organization,
            "evaluator_relationship": relationship,
            "additional_details": {"dedupe_identity": identity, **verdicts},
        },
        "eval_library": {"name": "paraudit", "version": __version__},
        "model_info": {
            "name": label,
            "id": f"{backend}/{model}" if backend else model,
            "inference_platform": backend or "unknown",
            "additional_details": {
                "deployment_type": "externally_managed"
                if hosted
                else "self_deployed"
                if backend not in ("builtin", "")
                else "unknown",
                "model_availability": "unknown",
                "spec": str(judge.get("spec")),
                "served_models": ", ".join(judge.get("served_models", [])) or "none reported",
            },
        },
        "evaluation_results": results,
        "detailed_evaluation_results": {
            "format": "jsonl",
            "file_path": f"data/paraudit/{slug(str(dataset['name']))}/{slug(label)}/"
            f"{_uuid4_from(identity)}_samples.jsonl",
            "hash_algorithm": "sha256",
            "checksum": results_sha256,
            "total_rows": rows,
            "additional_details": {
                "local_file": "run/results.jsonl",
                "row_format": "paraudit ResultRow lines of every judge of the run (not Every "
                "Eval Ever instance records)",
            },
        },
    }


def hf_entries(
    summary: Summary, label: str, hf_dataset: str | None, finished_iso: str, identity: str
) -> list[dict[str, Any]]:
    """`.eval_results/*.yaml` entries: native J accuracy per task for one judge."""
    out = []
    for c in _cells(summary, label):
        if (c.probe, c.protocol) != ("J", "pointwise"):
            continue
        notes = (
            f"paraudit counterfactual audit, J pointwise with no cue: {c.accuracy:.3f} "
            f"[{c.ci_low}, {c.ci_high}] (95 % item bootstrap, {c.items} items); chance "
            f"{c.chance}; audit identity {identity[:16]}"
        )
        if hf_dataset is None:
            notes += "; dataset.id is a placeholder: pass --hf-dataset ORG/NAME for a Hub id"
        out.append({
            "dataset": {"id": hf_dataset or "local/paraudit-dataset", "task_id": c.task},
            "value": round(float(c.accuracy or 0.0), 4),
            "date": finished_iso,
            "notes": notes,
        })  # fmt: skip
    return out


def checks(verdicts: list[Verdict]) -> tuple[list[str], list[str], list[str]]:
    """(passed, warned, failed) check names, from the verdicts."""
    passed: list[str] = []
    warned: list[str] = []
    failed: list[str] = []
    for v in verdicts:
        name = f"{v.judge} · {v.task} · native"
        notes: list[str] = [b.kind for b in v.behaviours]
        if v.small_sample:
            notes.append("small sample")
        if v.failed_calls:
            notes.append(f"{v.failed_calls} failed calls")
        if v.native.outcome in ("usable", "reliable"):
            (warned if notes else passed).append(
                f"{name} {v.native.outcome}" + (f" ({', '.join(notes)})" if notes else "")
            )
        else:
            failed.append(
                f"{name} {v.native.outcome}" + (f" ({', '.join(notes)})" if notes else "")
            )
    return passed, warned, failed


def statement(
    subjects: dict[str, str], verdicts: list[Verdict], identity: str, config: dict[str, str]
) -> dict[str, Any]:
    passed, warned, failed = checks(verdicts)
    result = "FAILED" if failed else "WARNED" if warned else "PASSED"
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": n, "digest": {"sha256": d}} for n, d in subjects.items()],
        "predicateType": TEST_RESULT,
        "predicate": {
            "result": result,
            "configuration": [
                {"name": name, "digest": {"sha256": digest}} for name, digest in config.items()
            ],
            "url": f"urn:paraudit:audit:{identity}",
            "passedTests": passed,
            "warnedTests": warned,
            "failedTests": failed,
        },
    }
