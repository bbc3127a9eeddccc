"""Containment: no clip path of a dataset reaches a byte outside its folder, a device or a FIFO."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paraudit.errors import DatasetError
from paraudit.items import clips
from paraudit.items.clips import read_clip, read_clip_file, resolve_clip
from paraudit.items.dataset import load_dataset
from paraudit.items.validate import errors_of, validate_dataset
from tests.conftest import tone


def _first_clip(root: Path) -> str:
    """The first human clip of the first item (what a judge would hear first)."""
    return load_dataset(root).items[0].branches[0].audio[0]


def _replace_with_symlink(root: Path, rel: str, target: Path) -> None:
    (root / rel).unlink()
    (root / rel).symlink_to(target)


def test_clip_inside_the_folder_reads_its_bytes(tiny_dataset: Path) -> None:
    rel = _first_clip(tiny_dataset)
    assert read_clip(tiny_dataset, rel) == (tiny_dataset / rel).read_bytes()
    assert resolve_clip(tiny_dataset, rel) == (tiny_dataset / rel).resolve()


def test_symlink_to_a_file_outside_the_dataset_is_refused_everywhere(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    # The outside file is a perfectly valid clip with the right name: only containment stops it.
    rel = _first_clip(tiny_dataset)
    secret = tmp_path / "outside" / "secret.wav"
    secret.parent.mkdir()
    secret.write_bytes((tiny_dataset / rel).read_bytes())
    _replace_with_symlink(tiny_dataset, rel, secret)

    problems = errors_of(validate_dataset(tiny_dataset))
    assert len(problems) == 1 and "points outside the dataset folder" in problems[0].message
    ds = load_dataset(tiny_dataset)  # loading reads no audio; using a clip is what is refused
    with pytest.raises(DatasetError, match="points outside"):
        ds.audio_path(rel)
    with pytest.raises(DatasetError, match="points outside"):
        ds.read_audio(rel)


def test_symlink_to_dev_zero_is_refused_without_reading(tiny_dataset: Path) -> None:
    rel = _first_clip(tiny_dataset)
    _replace_with_symlink(tiny_dataset, rel, Path("/dev/zero"))
    problems = errors_of(validate_dataset(tiny_dataset))
    assert any("points outside" in p.message and "/dev/zero" in p.message for p in problems)
    with pytest.raises(DatasetError):
        load_dataset(tiny_dataset).audio_path(rel)


def test_fifo_inside_the_dataset_is_refused_without_blocking(tiny_dataset: Path) -> None:
    rel = _first_clip(tiny_dataset)
    (tiny_dataset / rel).unlink()
    os.mkfifo(tiny_dataset / rel)  # opening it for reading would wait forever for a writer
    problems = errors_of(validate_dataset(tiny_dataset))
    assert any(f"{rel}: is a FIFO" in p.message for p in problems)
    with pytest.raises(DatasetError, match="FIFO"):
        read_clip(tiny_dataset, rel)


def test_symlinked_audio_folder_pointing_outside_is_refused(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    moved = tmp_path / "elsewhere"
    (tiny_dataset / "audio").rename(moved)
    (tiny_dataset / "audio").symlink_to(moved)
    problems = errors_of(validate_dataset(tiny_dataset))
    assert problems and all("points outside" in p.message for p in problems)


def test_symlink_to_another_clip_inside_the_dataset_is_allowed(tiny_dataset: Path) -> None:
    rel = _first_clip(tiny_dataset)
    keep = tiny_dataset / "audio" / "store" / "kept.wav"
    keep.parent.mkdir()
    (tiny_dataset / rel).rename(keep)
    (tiny_dataset / rel).symlink_to(Path("store") / "kept.wav")
    assert validate_dataset(tiny_dataset) == []
    assert load_dataset(tiny_dataset).audio_path(rel) == keep.resolve()


def test_folder_in_place_of_a_clip(tiny_dataset: Path) -> None:
    rel = _first_clip(tiny_dataset)
    (tiny_dataset / rel).unlink()
    (tiny_dataset / rel).mkdir()
    with pytest.raises(DatasetError, match="is a folder"):
        resolve_clip(tiny_dataset, rel)


def test_clip_over_the_size_limit_is_refused(
    tiny_dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rel = _first_clip(tiny_dataset)
    monkeypatch.setattr(clips, "MAX_CLIP_BYTES", (tiny_dataset / rel).stat().st_size - 1)
    problems = errors_of(validate_dataset(tiny_dataset))
    assert any("limit per clip" in p.message for p in problems)
    with pytest.raises(DatasetError, match="limit per clip"):
        read_clip(tiny_dataset, rel)


@pytest.mark.parametrize("rel", ["/etc/passwd", "audio/../../x.wav"])
def test_paths_that_leave_the_folder_by_name(tiny_dataset: Path, rel: str) -> None:
    with pytest.raises(DatasetError, match="relative and inside"):
        resolve_clip(tiny_dataset, rel)


def test_dangling_symlink_is_missing(tiny_dataset: Path, tmp_path: Path) -> None:
    rel = _first_clip(tiny_dataset)
    gone = tmp_path / "gone.wav"
    tone(gone)
    _replace_with_symlink(tiny_dataset, rel, gone)
    gone.unlink()
    with pytest.raises(DatasetError, match="does not exist"):
        resolve_clip(tiny_dataset, rel)


def test_checked_path_swapped_for_a_fifo_is_refused_on_read(tiny_dataset: Path) -> None:
    # A judge reads the path it was given later than planning checked it: the read re-checks.
    rel = _first_clip(tiny_dataset)
    real = load_dataset(tiny_dataset).audio_path(rel)
    real.unlink()
    os.mkfifo(real)
    with pytest.raises(DatasetError, match="FIFO"):
        read_clip_file(real)


def test_checked_path_swapped_for_a_symlink_is_not_followed(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    rel = _first_clip(tiny_dataset)
    real = load_dataset(tiny_dataset).audio_path(rel)
    secret = tmp_path / "secret.txt"
    secret.write_text("private")
    real.unlink()
    real.symlink_to(secret)
    with pytest.raises(DatasetError, match="cannot be opened"):
        read_clip_file(real)


def test_a_read_sized_by_fstat_still_reads_a_clip_that_grew(
    tiny_dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read asks for the clip's size, not the limit; a file longer than fstat said (it
    grew meanwhile) is still read whole, and still refused past the limit."""
    real = load_dataset(tiny_dataset).audio_path(_first_clip(tiny_dataset))
    whole = real.read_bytes()
    true_fstat = os.fstat

    def shrunk(fd: int) -> os.stat_result:
        st = list(true_fstat(fd))
        st[6] = 10  # st_size
        return os.stat_result(st)

    monkeypatch.setattr(clips.os, "fstat", shrunk)
    assert read_clip_file(real) == whole
    monkeypatch.setattr(clips, "MAX_CLIP_BYTES", len(whole) - 1)
    with pytest.raises(DatasetError, match="limit per clip"):
        read_clip_file(real)
