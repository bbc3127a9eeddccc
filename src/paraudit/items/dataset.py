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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from paraudit.bounds import json_depth_problem
from paraudit.errors import DatasetError
from paraudit.items.clips import read_clip, resolve_clip
from paraudit.items.guard import recheck
from paraudit.items.names import AUDIO_DIR as AUDIO_DIR  # re-exported: readers import them here
from paraudit.items.names import ITEMS as ITEMS
from paraudit.items.names import MANIFEST as MANIFEST
from paraudit.items.records import SCHEMA_VERSION, AuditItem, DatasetManifest
from paraudit.items.taxonomy import check_manifest, check_tasks, label_mapping, map_item
from paraudit.permissions import follow_umask

# What paraudit writes into a dataset folder beside the three above (builders' dataset card):
# --force replaces a folder holding nothing else, so no run, notes or export kept inside is lost.
OWN_EXTRAS = ("card.json", "CARD.md")


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


class AudioFiles:
    """Audio files by content hash (source file names never reach an item): `name` gives a
    file's dataset name, audio/<sha256><its suffix>, and `files` maps each name to a file
    holding its bytes, as `write_dataset` wants it. Files with the same bytes share one name."""

    def __init__(self) -> None:
        self.files: dict[str, Path] = {}
        self._names: dict[Path, str] = {}

    def name(self, path: Path) -> str:
        # Builds name the same cached rendering many times: each file is hashed once.
        if path not in self._names:
            suffix = path.suffix.lower() or ".wav"
            rel = f"{AUDIO_DIR}/{sha256_file(path)}{suffix}"
            self._names[path] = rel
            self.files[rel] = path
        return self._names[path]


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
    _resolved: dict[str, Path] = field(default_factory=dict, compare=False, repr=False)
    """Clips already checked, so planning thousands of prompts resolves each clip once."""
    _by_id: dict[str, AuditItem] = field(default_factory=dict, compare=False, repr=False)
    clip_parts: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Prompt parts already built per clip (protocols/instances.py): a plan of a million
    questions shares one object per clip instead of building (and holding) one per prompt."""

    def audio_path(self, rel: str) -> Path:
        """The real path of a clip, refused (DatasetError) unless it is a regular file inside the
        dataset folder within the size limit: prompts and exports are built from this, so no
        byte outside the dataset can reach a judge."""
        path = self._resolved.get(rel)
        if path is None:
            path = self._resolved[rel] = resolve_clip(self.root, rel, self._base)
        return path

    @cached_property
    def _base(self) -> Path:
        """The dataset folder's real path, resolved once for all its clips."""
        return self.root.resolve()

    def read_audio(self, rel: str) -> bytes:
        """The bytes of a clip, through the same checks as `audio_path` and a bounded read."""
        return read_clip(self.root, rel)

    def item(self, item_id: str) -> AuditItem:
        if not self._by_id:  # indexed on first use: a runner asks once per perception answer
            self._by_id.update((it.id, it) for it in self.items)
        return self._by_id[item_id]


def foreign_entries(root: Path) -> list[str]:
    """What a dataset folder holds that paraudit did not write there (relative paths): anything
    beside dataset.json, items.jsonl, the card and audio/, and any folder inside audio/."""
    own = {MANIFEST, ITEMS, AUDIO_DIR, *OWN_EXTRAS}
    out = [p.name for p in sorted(root.iterdir()) if p.name not in own]
    if (root / AUDIO_DIR).is_symlink() or (root / AUDIO_DIR).is_file():
        out.append(AUDIO_DIR)
    elif (root / AUDIO_DIR).is_dir():
        out += [
            f"{AUDIO_DIR}/{p.name}"
            for p in sorted((root / AUDIO_DIR).iterdir())
            if p.is_dir() and not p.is_symlink()
        ]
    return out


def refuse_foreign(root: Path, foreign: list[str], what: str) -> None:
    """One line naming what would be lost if `root` were replaced."""
    if foreign:
        more = f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
        shown = ", ".join(foreign[:3]) + more
        raise DatasetError(
            f"{root} holds files paraudit did not write there ({shown}); --force only replaces "
            f"an earlier {what}: move them out or choose a new folder"
        )


def read_manifest(root: Path) -> DatasetManifest:
    path = root / MANIFEST
    if root.exists() and not root.is_dir():
        raise DatasetError(f"{root}: is a file, not a dataset folder; give the folder's path")
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
    check_manifest(manifest, path)
    return manifest


MAX_LINE_BYTES = 8 * 1024 * 1024
"""An item is a few kilobytes (texts and clip names); a line beyond this is not an item, and
reading it whole could take all memory."""


def iter_raw_item_lines(root: Path) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, bytes) of every non-blank line of items.jsonl, undecoded; a line
    beyond MAX_LINE_BYTES or nested beyond MAX_DEPTH is one DatasetError naming it."""
    path = root / ITEMS
    if not path.is_file():
        raise DatasetError(f"{path}: missing; a dataset folder needs {ITEMS}")
    with path.open("rb") as f:
        n = 0
        while raw := f.readline(MAX_LINE_BYTES + 1):
            n += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                raise DatasetError(
                    f"{path}:{n}: line longer than {MAX_LINE_BYTES // 2**20} MiB; an item is a "
                    "few kilobytes: this is not an items file"
                )
            if not raw.strip():
                continue
            problem = json_depth_problem(raw)
            if problem is not None:
                raise DatasetError(f"{path}:{n}: {problem}; this is not an item")
            yield n, raw


def decode_line(raw: bytes) -> str:
    """A line of items.jsonl as text; invalid UTF-8 raises UnicodeDecodeError (never U+FFFD)."""
    return raw.decode("utf-8")


def utf8_problem(e: UnicodeDecodeError) -> str:
    """One line naming the first bad byte and the fix."""
    bad = e.object[e.start : e.start + 1].hex()
    return f"not valid UTF-8 (byte 0x{bad} at byte {e.start + 1}); re-save {ITEMS} as UTF-8"


def iter_item_lines(root: Path) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) of every non-blank line of items.jsonl, decoded strictly."""
    for n, raw in iter_raw_item_lines(root):
        try:
            yield n, decode_line(raw)
        except UnicodeDecodeError as e:
            raise DatasetError(f"{root / ITEMS}:{n}: {utf8_problem(e)}") from None


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
    check_tasks(enumerate(items, start=1), manifest, root / ITEMS)
    # A source's own label set loads mapped onto the dimension's values (dataset.json says how).
    mapping = label_mapping(manifest, root / MANIFEST)
    return Dataset(root=root, manifest=manifest, items=tuple(map_item(it, mapping) for it in items))


def write_dataset(
    root: Path | str,
    manifest: DatasetManifest,
    items: Iterable[AuditItem],
    audio: dict[str, Path],
    *,
    overwrite: bool = True,
    verify: Callable[[Path], None] | None = None,
) -> Path:
    """Write a dataset folder atomically.

    `audio` maps each dataset-relative audio name (audio/<sha>.wav) to a file holding its bytes.
    `verify(folder)` runs on the complete temporary folder before it replaces `root`; whatever
    it raises leaves `root` untouched and nothing half-written behind.
    """
    root = Path(root)
    try:
        return _write_dataset(root, manifest, items, audio, overwrite, verify)
    except OSError as e:
        where = e.filename or root
        raise DatasetError(f"{root}: cannot write the dataset ({e.strerror}: {where})") from None


def _write_dataset(
    root: Path,
    manifest: DatasetManifest,
    items: Iterable[AuditItem],
    audio: dict[str, Path],
    overwrite: bool,
    verify: Callable[[Path], None] | None,
) -> Path:
    if root.exists() and not root.is_dir():
        raise DatasetError(f"{root}: is a file; give a folder path for the dataset")
    nonempty = root.exists() and any(root.iterdir())
    if nonempty and not overwrite:
        raise DatasetError(f"{root}: already exists")
    if nonempty and not (root / MANIFEST).is_file():
        raise DatasetError(f"{root}: exists and is not a dataset folder; refusing to replace it")
    if nonempty:
        refuse_foreign(root, foreign_entries(root), "dataset")
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{root.name}.tmp-", dir=root.parent))
    follow_umask(tmp)
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
        if verify is not None:
            verify(tmp)
        swap_into_place(tmp, root)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return root


def _write_text(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def swap_into_place(tmp: Path, root: Path) -> None:
    """Put the finished folder `tmp` at `root`, replacing what was there (a sibling rename),
    after the output guard's re-check (a dataset or run folder made around `root` meanwhile)."""
    recheck(root, "the output")
    if not root.exists():
        os.replace(tmp, root)
        return
    old = root.with_name(f".{root.name}.old-{os.getpid()}")
    os.replace(root, old)
    os.replace(tmp, root)
    shutil.rmtree(old, ignore_errors=True)
