"""RunSpec: what makes two runs the same run, so a reused `--out` is resumed, not overwritten.

Two runs with equal RunSpecs ask the same questions of the same judges; anything that changes
the questions or the answers is in it (dataset content, judges' output-changing options, plan,
re-asks). Harness settings (concurrency, rate limits, timeouts, retries) are not: changing them
and rerunning resumes the same run.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import MISSING, asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from paraudit.bounds import json_depth_problem
from paraudit.errors import ParauditError
from paraudit.runfolder.names import CALLS, RUN_JSON

EXTENDABLE = ("judges", "probes", "protocols", "cues")
"""Fields `--extend` may grow (never shrink); every other field must match exactly."""


def dataset_fingerprint(dataset: Path) -> str:
    """sha256 over dataset.json, items.jsonl and the sorted names of the audio files.

    Audio content is covered through items.jsonl, whose rows carry each clip's sha256; the
    names catch clips added or removed without a manifest change.
    """
    h = hashlib.sha256()
    for name in ("dataset.json", "items.jsonl"):
        path = dataset / name
        h.update(name.encode() + b"\0")
        h.update(path.read_bytes() if path.is_file() else b"<missing>")
        h.update(b"\0")
    audio = dataset / "audio"
    names = sorted(_audio_names(audio, audio)) if audio.is_dir() else []
    h.update("\n".join(names).encode())
    return h.hexdigest()


def _audio_names(folder: Path, audio: Path) -> list[str]:
    """Names under audio/, except inside a run folder kept there: a run (or a resume of it)
    writing its files must not change the fingerprint of the dataset it audits."""
    out: list[str] = []
    for p in folder.iterdir():
        if p.is_dir() and not p.is_symlink():
            if (p / RUN_JSON).exists() or (p / CALLS).exists():
                continue
            out += _audio_names(p, audio)
        out.append(p.relative_to(audio).as_posix())
    return out


@dataclass(frozen=True)
class RunSpec:
    dataset_fingerprint: str
    """dataset_fingerprint() of the audited dataset folder."""
    dataset_name: str
    judges: tuple[str, ...]
    """Each judge's label: backend, model, base URL and every output-changing option."""
    probes: tuple[str, ...]
    protocols: tuple[str, ...]
    cues: tuple[str, ...]
    orders: str
    seed: int
    limit: int | None
    parse_retries: int
    """Re-asks of an unparsed reply (they change which answer a row keeps)."""
    parse: str = "strict"
    """The reply parser's preset (protocols.parsing.PARSE_PRESETS): it changes which replies
    are answers. Written to run.json only when not the default, so a default run's run.json
    (and every folder written before the preset existed) reads as before."""
    prompts: str = "paper"
    """The prompt preset (runner.plan.PlanSpec.prompts). Left out of run.json while it is the
    default, so folders written before it existed read back as the same spec."""
    reask: float | None = None
    """`--reask SHARE` (runner.reask): the share of questions asked twice. Left out of
    run.json unless set: a default run's spec, and its run key, are as before the option."""

    def as_dict(self) -> dict[str, Any]:
        out = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}
        if out["parse"] == "strict":
            del out["parse"]
        if out["prompts"] == "paper":
            del out["prompts"]
        if out["reask"] is None:
            del out["reask"]
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> RunSpec:
        try:
            values = {
                f.name: raw[f.name] if f.name in raw or f.default is MISSING else f.default
                for f in fields(cls)
            }
        except KeyError as e:
            raise ParauditError(
                f"run.json's spec lacks {e}; the file was edited or is damaged"
            ) from None
        for name in ("judges", *EXTENDABLE[1:]):
            values[name] = tuple(values[name])
        return cls(**values)

    def differences(self, other: RunSpec) -> list[str]:
        """Human-readable 'field: this → other' for every field that differs."""
        out = []
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if a != b:
                out.append(f"{f.name}: {_show(a)} → {_show(b)}")
        return out

    def extended_by(self, other: RunSpec) -> RunSpec:
        """This spec with `other`'s judges/probes/protocols/cues added (order kept, no
        duplicates); refuses when anything else differs."""
        fixed = [d for d in self.differences(other) if d.split(":", 1)[0] not in EXTENDABLE]
        if fixed:
            raise ParauditError(
                "--extend only adds judges, probes, protocols or cues to the same dataset's "
                f"run, but {'; '.join(fixed)}; use a new --out for a different run"
            )

        def grow(name: str) -> tuple[str, ...]:
            return _union(getattr(self, name), getattr(other, name))

        return replace(
            self,
            judges=grow("judges"),
            probes=grow("probes"),
            protocols=grow("protocols"),
            cues=grow("cues"),
        )


def _union(a: Iterable[str], b: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*a, *b]))


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return ",".join(value) or "(none)"
    if isinstance(value, str) and len(value) == 64:
        return value[:12] + "…"  # a fingerprint
    return str(value)


def read_run_json(run_dir: Path) -> dict[str, Any] | None:
    """RUN_DIR/run.json as a dict, None when there is none; a damaged file is one clear line."""
    path = run_dir / RUN_JSON
    if not path.is_file():
        return None
    try:
        text = path.read_text(encoding="utf-8")
        deep = json_depth_problem(text)
        if deep is not None:
            raise ValueError(deep)
        raw = json.loads(text)
    except (ValueError, OSError) as e:
        raise ParauditError(
            f"{path} is unreadable ({e}); restore it, or use a new --out for a fresh run"
        ) from None
    if not isinstance(raw, dict):
        raise ParauditError(f"{path} is not a run record (a JSON object); use a new --out")
    return raw


def write_run_json(run_dir: Path, record: dict[str, Any]) -> None:
    """Write run.json atomically (temporary file in the folder, then rename)."""
    tmp = run_dir / f".{RUN_JSON}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, run_dir / RUN_JSON)


def run_dataset(run: Path) -> str | None:
    """What identifies the dataset a run audited (fingerprint if recorded, else name and path);
    None when run.json is missing or unreadable (loading the results reports that)."""
    try:
        spec: Any = json.loads((run / RUN_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # a run.json nested 100,000 deep included
        return None
    if not isinstance(spec, dict):
        return None
    ds = spec.get("dataset")
    name = spec.get("dataset_name")
    frozen: dict[str, Any] = spec["spec"] if isinstance(spec.get("spec"), dict) else {}
    holders: list[dict[str, Any]] = [frozen, spec, ds if isinstance(ds, dict) else {}]
    for holder in holders:
        name = holder.get("dataset_name", holder.get("name", name)) if holder is not spec else name
        for key in ("dataset_fingerprint", "fingerprint"):
            if isinstance(holder.get(key), str):
                return f"{name or 'dataset'} {str(holder[key])[:12]}"
    path = ds if isinstance(ds, str) else None
    if name is None and path is None:
        return None
    return f"{name or '?'} at {path or '?'}"
