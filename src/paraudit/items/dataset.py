"""Dataset folders: dataset.json + items.jsonl + audio/ with content-hash file names.

Writes are atomic: everything goes to a sibling temp folder that is renamed into place at the
end, so a crash never leaves a half-written folder that reads as a valid dataset.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from paraudit.errors import DatasetError
from paraudit.items.records import SCHEMA_VERSION, AuditItem, DatasetManifest

MANIFEST = "dataset.json"
ITEMS = "items.jsonl"
AUDIO_DIR = "audio"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def audio_name(data: bytes, suffix: str = ".wav") -> str:
    """The dataset-relative name of an audio file: audio/<sha256 of its bytes><suffix>."""
    return f"{AUDIO_DIR}/{sha256_bytes(data)}{suffix}"


def item_to_json(item: AuditItem) -> str:
    return json.dumps(item.model_dump(mode="json"), ensure_ascii=False, sort_keys=False)


def item_from_json(line: str) -> AuditItem:
    return AuditItem.model_validate_json(line)


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset folder."""

    root: Path
    manifest: DatasetManifest
    items: tuple[AuditItem, ...]

    def audio_path(self, rel: str) -> Path:
        return self.root / rel

    def item(self, item_id: str) -> AuditItem:
        for it in self.items:
            if it.id == item_id:
                return it
        raise KeyError(item_id)


def read_manifest(root: Path) -> DatasetManifest:
    path = root / MANIFEST
    if not root.is_dir():
        raise DatasetError(f"{root}: not a dataset folder (no such directory)")
    if not path.is_file():
        raise DatasetError(f"{path}: missing; a dataset folder needs {MANIFEST}")
    try:
        manifest = DatasetManifest.model_validate_json(path.read_bytes())
    except ValidationError as e:
        first = e.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(root)"
        raise DatasetError(f"{path}: invalid manifest at '{loc}': {first['msg']}") from None
    if manifest.schema_version != SCHEMA_VERSION:
        raise DatasetError(
            f"{path}: schema version {manifest.schema_version} is not supported "
            f"(this paraudit reads version {SCHEMA_VERSION})"
        )
    return manifest


def iter_item_lines(root: Path) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) of every non-blank line of items.jsonl."""
    path = root / ITEMS
    if not path.is_file():
        raise DatasetError(f"{path}: missing; a dataset folder needs {ITEMS}")
    with path.open("rb") as f:
        for n, raw in enumerate(f, start=1):
            text = raw.decode("utf-8", errors="replace")
            if text.strip():
                yield n, text


def load_dataset(root: Path | str) -> Dataset:
    """Read a dataset strictly: the first malformed line raises a DatasetError naming it."""
    root = Path(root)
    manifest = read_manifest(root)
    items: list[AuditItem] = []
    for n, line in iter_item_lines(root):
        try:
            items.append(item_from_json(line))
        except ValidationError as e:
            first = e.errors()[0]
            loc = ".".join(str(p) for p in first["loc"]) or "(line)"
            raise DatasetError(f"{root / ITEMS}:{n}: '{loc}': {first['msg']}") from None
    return Dataset(root=root, manifest=manifest, items=tuple(items))


def write_dataset(
    root: Path | str,
    manifest: DatasetManifest,
    items: Iterable[AuditItem],
    audio: dict[str, Path],
    *,
    overwrite: bool = True,
) -> Path:
    """Write a dataset folder atomically.

    `audio` maps each dataset-relative audio name (audio/<sha>.wav) to a file holding its bytes.
    """
    root = Path(root)
    if root.exists() and not overwrite:
        raise DatasetError(f"{root}: already exists")
    if root.exists() and not (root / MANIFEST).is_file() and any(root.iterdir()):
        raise DatasetError(f"{root}: exists and is not a dataset folder; refusing to replace it")
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{root.name}.tmp-", dir=root.parent))
    try:
        (tmp / AUDIO_DIR).mkdir()
        items = list(items)
        for item in items:
            for rel in item.audio_files():
                if rel not in audio:
                    raise DatasetError(f"item {item.id}: no audio bytes given for {rel}")
        for rel, src in audio.items():
            dst = tmp / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
        _write_text(tmp / ITEMS, "".join(item_to_json(it) + "\n" for it in items))
        _write_text(tmp / MANIFEST, manifest.model_dump_json(indent=2) + "\n")
        _swap_into_place(tmp, root)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return root


def _write_text(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def _swap_into_place(tmp: Path, root: Path) -> None:
    if not root.exists():
        os.replace(tmp, root)
        return
    old = root.with_name(f".{root.name}.old-{os.getpid()}")
    os.replace(root, old)
    os.replace(tmp, root)
    shutil.rmtree(old, ignore_errors=True)
