"""Export a dataset folder to a Hugging Face `datasets` dataset with Audio columns, and back.

One row per item. Audio columns hold the exact WAV bytes (Audio(decode=False)), so an
export/import round-trip gives back byte-identical files and hence identical content-hash names.
The table is built with pyarrow directly: `datasets` 4+ needs torchcodec merely to *encode*
audio, which would pull torch into a light install; decoding stays available to users who
cast the columns to Audio(decode=True).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from paraudit.errors import DatasetError, MissingExtraError
from paraudit.items.clips import EXTENSION_FORMATS
from paraudit.items.dataset import (
    MANIFEST,
    audio_name,
    foreign_entries,
    load_dataset,
    refuse_foreign,
    swap_into_place,
    write_dataset,
)
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn
from paraudit.items.validate import Problem, errors_of, validate_dataset, warnings_of
from paraudit.permissions import follow_umask

# save_to_disk always writes this file: its presence marks a folder as an earlier export.
HF_STATE = "state.json"

OnWarning = Callable[[Problem], None]


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise MissingExtraError("Hugging Face export", "datasets", "datasets") from None
    return datasets


def _features(ds: Any) -> Any:
    audio = ds.Audio(decode=False)
    strings = ds.List(ds.Value("string"))
    cols: dict[str, Any] = {
        "id": ds.Value("string"),
        "task": ds.Value("string"),
        "context_speaker": strings,
        "context_text": strings,
        "meta_json": ds.Value("string"),
    }
    for b in (0, 1):
        cols[f"branch{b}_emotions"] = strings
        cols[f"branch{b}_audio"] = ds.List(audio)
        cols[f"branch{b}_response_text"] = ds.Value("string")
        cols[f"branch{b}_response_emotion"] = ds.Value("string")
        cols[f"branch{b}_response_audio"] = audio
    return ds.Features(cols)


def _checked(root: Path, on_warning: OnWarning | None, what: str) -> None:
    """Refuse a dataset with errors (naming the first); hand its warnings to `on_warning`."""
    problems = validate_dataset(root)
    errors = errors_of(problems)
    if errors:
        raise DatasetError(
            f"{what} does not validate ({len(errors)} problem(s), first: {errors[0]}); "
            "run 'paraudit validate' on it"
        )
    for w in warnings_of(problems):
        if on_warning is not None:
            on_warning(w)


def _refuse_to_clobber(out: Path, overwrite: bool, marker: str) -> None:
    if out.exists() and not out.is_dir():
        raise DatasetError(f"{out}: is a file; give a folder path")
    if out.is_dir() and any(out.iterdir()):
        if not overwrite:
            raise DatasetError(f"{out}: is not empty; choose a new folder (or overwrite it)")
        if not (out / marker).exists():
            raise DatasetError(f"{out}: holds other files (no {marker}); refusing to replace it")
        if marker == HF_STATE:
            refuse_foreign(out, hf_foreign_entries(out), "export")
        else:
            refuse_foreign(out, foreign_entries(out), "dataset")


def hf_foreign_entries(root: Path) -> list[str]:
    """What an export folder holds beyond what save_to_disk writes (state.json,
    dataset_info.json and the .arrow shards)."""
    own = {HF_STATE, "dataset_info.json"}
    return [
        p.name
        for p in sorted(root.iterdir())
        if not (p.name in own or (p.suffix == ".arrow" and p.is_file() and not p.is_symlink()))
    ]


def export_hf(
    dataset_dir: Path | str,
    out: Path | str,
    *,
    overwrite: bool = False,
    on_warning: OnWarning | None = None,
) -> int:
    """Write the dataset as a `datasets` folder (save_to_disk); returns the number of rows.

    Only a dataset that validates is exported, and every clip is read through the dataset's
    containment checks, so no byte from outside its folder can end up in the export. The
    export is written beside `out` and swapped in when complete.
    """
    ds = _datasets()
    import pyarrow as pa
    from datasets.table import InMemoryTable

    out = Path(out)
    _refuse_to_clobber(out, overwrite, HF_STATE)
    _checked(Path(dataset_dir), on_warning, str(dataset_dir))
    data = load_dataset(dataset_dir)

    def clip(rel: str) -> dict[str, Any]:
        return {"bytes": data.read_audio(rel), "path": Path(rel).name}

    rows: dict[str, list[Any]] = {k: [] for k in _features(ds)}
    for it in data.items:
        rows["id"].append(it.id)
        rows["task"].append(it.task)
        rows["context_speaker"].append([t.speaker for t in it.context])
        rows["context_text"].append([t.text for t in it.context])
        # Keys keep their order: items.jsonl, and so the dataset fingerprint that runs record,
        # must come back byte-identical from an import.
        rows["meta_json"].append(json.dumps(it.meta))
        for b, br in enumerate(it.branches):
            rows[f"branch{b}_emotions"].append(list(br.emotions))
            rows[f"branch{b}_audio"].append([clip(a) for a in br.audio])
            rows[f"branch{b}_response_text"].append(br.response.text)
            rows[f"branch{b}_response_emotion"].append(br.response.emotion)
            rows[f"branch{b}_response_audio"].append(clip(br.response.audio))
    features = _features(ds)
    table = pa.Table.from_pydict(rows, schema=features.arrow_schema)
    info = ds.DatasetInfo(features=features, description=data.manifest.model_dump_json())
    out.absolute().parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.absolute().parent))
    follow_umask(tmp)
    bars = ds.is_progress_bar_enabled()
    ds.disable_progress_bars()  # its bars would interleave with the CLI's one-line output
    try:
        ds.Dataset(InMemoryTable(table), info=info).save_to_disk(str(tmp))
        swap_into_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if bars:
            ds.enable_progress_bars()
    return len(data.items)


def import_hf(
    src: Path | str,
    out: Path | str,
    *,
    overwrite: bool = False,
    on_warning: OnWarning | None = None,
) -> int:
    """Read a folder written by export_hf back into a paraudit dataset folder.

    The result is validated before it replaces `out`: an export that does not make a valid
    dataset raises DatasetError and leaves `out` as it was, with nothing half-written.
    """
    ds = _datasets()
    out = Path(out)
    _refuse_to_clobber(out, overwrite, MANIFEST)
    try:
        hf = ds.load_from_disk(str(src))
    except Exception as e:  # datasets and pyarrow raise many types for a damaged folder
        first = (str(e).splitlines() or [type(e).__name__])[0]
        raise DatasetError(f"{src}: not a saved Hugging Face dataset ({first})") from None
    missing = set(_features(ds)) - set(hf.column_names)
    if missing:
        raise DatasetError(f"{src}: not a paraudit export (missing columns: {sorted(missing)})")
    try:
        manifest = DatasetManifest.model_validate_json(hf.info.description or "")
    except ValueError:
        raise DatasetError(f"{src}: the export carries no paraudit manifest") from None
    with tempfile.TemporaryDirectory() as tmp:
        audio: dict[str, Path] = {}

        def put(entry: dict[str, Any]) -> str:
            data: bytes = entry["bytes"]
            # The export keeps each clip's file name: its extension (an .mp3 source recording)
            # must survive, or validation rightly refuses MP3 bytes named .wav.
            suffix = Path(str(entry.get("path") or "")).suffix.lower()
            rel = audio_name(data, suffix if suffix in EXTENSION_FORMATS else ".wav")
            if rel not in audio:
                path = Path(tmp) / Path(rel).name
                path.write_bytes(data)
                audio[rel] = path
            return rel

        items: list[AuditItem] = []
        for n, row in enumerate(hf, start=1):
            try:
                items.append(_item(row, put))
            except (ValidationError, ValueError, TypeError, KeyError) as e:
                why = (str(e).splitlines() or [type(e).__name__])[0]
                raise DatasetError(
                    f"{src}: row {n} is not a paraudit item ({type(e).__name__}: {why})"
                ) from None
        write_dataset(
            out,
            manifest,
            items,
            audio,
            overwrite=overwrite,
            verify=lambda tmp_root: _checked(tmp_root, on_warning, f"the import of {src}"),
        )
    return len(items)


def _item(row: dict[str, Any], put: Callable[[dict[str, Any]], str]) -> AuditItem:
    """One exported row back as an item; malformed values raise (the caller names the row)."""
    branches = []
    for b in (0, 1):
        branches.append(
            Branch(
                emotions=tuple(row[f"branch{b}_emotions"]),
                audio=tuple(put(a) for a in row[f"branch{b}_audio"]),
                response=Response(
                    text=row[f"branch{b}_response_text"],
                    emotion=row[f"branch{b}_response_emotion"],
                    audio=put(row[f"branch{b}_response_audio"]),
                ),
            )
        )
    return AuditItem(
        id=row["id"],
        task=row["task"],
        context=tuple(
            Turn(speaker=s, text=t)
            for s, t in zip(row["context_speaker"], row["context_text"], strict=True)
        ),
        branches=(branches[0], branches[1]),
        meta=json.loads(row["meta_json"]),
    )
