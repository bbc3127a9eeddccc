"""Export a dataset folder to a Hugging Face `datasets` dataset with Audio columns, and back.

One row per item. Audio columns hold the exact WAV bytes (Audio(decode=False)), so an
export/import round-trip gives back byte-identical files and hence identical content-hash names.
The table is built with pyarrow directly: `datasets` 4+ needs torchcodec merely to *encode*
audio, which would pull torch into a light install; decoding stays available to users who
cast the columns to Audio(decode=True).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from paraudit.errors import DatasetError, MissingExtraError
from paraudit.items.dataset import audio_name, load_dataset, write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn


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


def export_hf(dataset_dir: Path | str, out: Path | str) -> int:
    """Write the dataset as a `datasets` folder (save_to_disk); returns the number of rows."""
    ds = _datasets()
    import pyarrow as pa
    from datasets.table import InMemoryTable

    data = load_dataset(dataset_dir)

    def clip(rel: str) -> dict[str, Any]:
        return {"bytes": data.audio_path(rel).read_bytes(), "path": Path(rel).name}

    rows: dict[str, list[Any]] = {k: [] for k in _features(ds)}
    for it in data.items:
        rows["id"].append(it.id)
        rows["task"].append(it.task)
        rows["context_speaker"].append([t.speaker for t in it.context])
        rows["context_text"].append([t.text for t in it.context])
        rows["meta_json"].append(json.dumps(it.meta, sort_keys=True))
        for b, br in enumerate(it.branches):
            rows[f"branch{b}_emotions"].append(list(br.emotions))
            rows[f"branch{b}_audio"].append([clip(a) for a in br.audio])
            rows[f"branch{b}_response_text"].append(br.response.text)
            rows[f"branch{b}_response_emotion"].append(br.response.emotion)
            rows[f"branch{b}_response_audio"].append(clip(br.response.audio))
    features = _features(ds)
    table = pa.Table.from_pydict(rows, schema=features.arrow_schema)
    info = ds.DatasetInfo(features=features, description=data.manifest.model_dump_json())
    ds.Dataset(InMemoryTable(table), info=info).save_to_disk(str(out))
    return len(data.items)


def import_hf(src: Path | str, out: Path | str) -> int:
    """Read a folder written by export_hf back into a paraudit dataset folder."""
    ds = _datasets()
    try:
        hf = ds.load_from_disk(str(src))
    except (FileNotFoundError, ValueError) as e:
        raise DatasetError(f"{src}: not a saved Hugging Face dataset ({e})") from None
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
            rel = audio_name(data)
            if rel not in audio:
                path = Path(tmp) / Path(rel).name
                path.write_bytes(data)
                audio[rel] = path
            return rel

        items: list[AuditItem] = []
        for row in hf:
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
            items.append(
                AuditItem(
                    id=row["id"],
                    task=row["task"],
                    context=tuple(
                        Turn(speaker=s, text=t)
                        for s, t in zip(row["context_speaker"], row["context_text"], strict=True)
                    ),
                    branches=(branches[0], branches[1]),
                    meta=json.loads(row["meta_json"]),
                )
            )
        write_dataset(out, manifest, items, audio)
    return len(items)
