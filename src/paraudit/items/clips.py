"""Contained access to a dataset's audio: the only way paraudit opens a clip.

A dataset folder may come from anyone. Its items name clips by relative path, and a clip may be
a symlink, so a shared dataset could otherwise point a judge (or an export) at any local file —
a key, a system file — or at a device such as /dev/zero that never ends. Every clip therefore
resolves (symlinks followed) to a regular file inside the dataset folder, no larger than
MAX_CLIP_BYTES, and is read through one bounded read of the descriptor that was checked.
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

from paraudit.errors import DatasetError

# 60 s (the longest clip validate accepts) of 48 kHz 32-bit audio is 11.5 MB; 32 MiB leaves room
# for richer formats while a runaway file cannot exhaust memory.
MAX_CLIP_BYTES = 32 * 1024 * 1024

# O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the path was resolved, so a
# symlink appearing at the last step after the check is refused rather than followed.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def resolve_clip(root: Path, rel: str, base: Path | None = None) -> Path:
    """The real path of clip `rel` of the dataset at `root`, after every containment rule.
    `base` is `root.resolve()` when the caller has it: a dataset's every clip is resolved, and
    resolving the root again for each is a walk of its whole path.

    Raises DatasetError naming the clip and the rule it breaks.
    """
    if Path(rel).is_absolute() or ".." in Path(rel).parts:
        raise DatasetError(f"{rel}: clip paths must be relative and inside the dataset folder")
    base = root.resolve() if base is None else base
    try:
        real = (root / rel).resolve(strict=True)
    except FileNotFoundError:
        raise DatasetError(f"{rel}: file does not exist") from None
    except (OSError, RuntimeError) as e:  # RuntimeError: a symlink loop on older Pythons
        raise DatasetError(f"{rel}: cannot be resolved ({e})") from None
    if not real.is_relative_to(base):
        raise DatasetError(
            f"{rel}: points outside the dataset folder (to {real}); a dataset may only use "
            "clips stored inside its own folder"
        )
    st = real.stat()
    mode, size = st.st_mode, st.st_size
    if not stat.S_ISREG(mode):
        raise DatasetError(f"{rel}: is {_kind(mode)}, not an audio file")
    if size > MAX_CLIP_BYTES:
        raise DatasetError(f"{rel}: {_mb(size)} exceeds the {_mb(MAX_CLIP_BYTES)} limit per clip")
    return real


def read_clip(root: Path, rel: str, base: Path | None = None) -> bytes:
    """The bytes of clip `rel`, read once from the checked file, never more than the limit
    (`base`: as for resolve_clip)."""
    return read_clip_file(resolve_clip(root, rel, base), rel)


def read_clip_file(path: Path, label: str | None = None) -> bytes:
    """A bounded read of a clip path already returned by `resolve_clip` (e.g. an AudioPart's
    path, as judges get it): a regular file no larger than MAX_CLIP_BYTES, checked on the open
    descriptor, so a file swapped for a link, FIFO or device after the check is still refused."""
    name = label or str(path)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as e:
        raise DatasetError(f"{name}: cannot be opened ({e.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise DatasetError(f"{name}: is {_kind(st.st_mode)}, not an audio file")
        # Asked for its size (+1, to see growth), not for the limit: read(limit) allocates the
        # whole 32 MiB for every clip before shrinking it, most of validate's read time.
        want = min(st.st_size, MAX_CLIP_BYTES) + 1
        data = f.read(want)
        if len(data) == want and want <= MAX_CLIP_BYTES:  # it grew since fstat: read on
            data += f.read(MAX_CLIP_BYTES + 1 - want)
    if len(data) > MAX_CLIP_BYTES:
        raise DatasetError(f"{name}: exceeds the {_mb(MAX_CLIP_BYTES)} limit per clip")
    return data


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MiB"


# The container each clip extension promises (libsndfile's format names). A judge is told the
# format from the extension (hosted APIs declare format=mp3 for a .mp3), so WAV bytes named
# .mp3 would be sent under a false declaration.
EXTENSION_FORMATS: dict[str, frozenset[str]] = {
    ".wav": frozenset({"WAV", "WAVEX", "RF64"}),
    ".mp3": frozenset({"MP3"}),
    ".flac": frozenset({"FLAC"}),
    ".ogg": frozenset({"OGG"}),
    ".opus": frozenset({"OGG"}),
}
_FORMAT_EXTENSION = {"WAV": ".wav", "WAVEX": ".wav", "RF64": ".wav", "MP3": ".mp3"}
_FORMAT_EXTENSION |= {"FLAC": ".flac", "OGG": ".ogg"}

# A RIFF size of 0xFFFFFFFF (or 0) means "unknown length" (streamed writers): not a claim.
_UNKNOWN_SIZES = (0, 0xFFFFFFFF)


def container_problem(rel: str, raw: bytes, detected: str) -> str | None:
    """Why a decoded clip is not what its name says, or None: the container libsndfile found
    (`detected`) must be the one its extension promises, and a WAV's header must not claim
    more audio than the file holds (a truncated copy plays short, or as noise)."""
    suffix = Path(rel).suffix.lower()
    allowed = EXTENSION_FORMATS.get(suffix)
    if allowed is not None and detected not in allowed:
        right = _FORMAT_EXTENSION.get(detected, "its real extension")
        return (
            f"holds {detected} audio but is named {suffix}; rename it to {right} (and its "
            "reference in items.jsonl), or convert it"
        )
    if detected in ("WAV", "WAVEX"):
        return _wav_truncation(raw)
    return None


def _wav_truncation(raw: bytes) -> str | None:
    """The RIFF chunk walk: the data chunk's declared size against the bytes present."""
    if len(raw) < 12 or raw[:4] != b"RIFF" or raw[8:12] != b"WAVE":
        return None  # RIFX / RF64: left to the decoder
    pos = 12
    while pos + 8 <= len(raw):
        cid = raw[pos : pos + 4]
        (size,) = struct.unpack("<I", raw[pos + 4 : pos + 8])
        body = pos + 8
        if cid == b"data":
            present = len(raw) - body
            if size not in _UNKNOWN_SIZES and size > present:
                return (
                    f"is truncated: its WAV header claims {size} bytes of audio but the file "
                    f"holds {present}; re-render or re-export the clip"
                )
            return None
        pos = body + size + (size & 1)  # chunks are padded to an even length
    return None
