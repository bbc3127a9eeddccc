"""prepare_output and the CLI's error wrapper."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from paraudit.cli.common import prepare_output, user_errors
from paraudit.errors import ParauditError


def test_new_nested_or_empty_folders_are_fine(tmp_path: Path) -> None:
    assert prepare_output(tmp_path / "a" / "b", force=False, what="--out") == tmp_path / "a" / "b"
    (tmp_path / "empty").mkdir()
    prepare_output(tmp_path / "empty", force=False, what="--out")
    assert not (tmp_path / "a").exists()  # checking creates nothing


def test_a_file_is_refused_even_with_force(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(ParauditError, match="--out .*/f is a file"):
        prepare_output(tmp_path / "f", force=True, what="--out")
    with pytest.raises(ParauditError, match="cannot be created: .*/f is a file"):
        prepare_output(tmp_path / "f" / "sub", force=True, what="--out")


def test_non_empty_folder_needs_force(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x").write_text("x")
    with pytest.raises(ParauditError, match="not empty; pass --force"):
        prepare_output(tmp_path / "d", force=False, what="--out")
    prepare_output(tmp_path / "d", force=True, what="--out")


def test_force_replaces_only_an_earlier_output_of_the_same_kind(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "notes.txt").write_text("mine")
    with pytest.raises(ParauditError, match="no dataset.json"):
        prepare_output(tmp_path / "d", force=True, what="--out", marker="dataset.json")
    (tmp_path / "d" / "dataset.json").write_text("{}")
    # An earlier dataset, but with notes of the user's inside: they would be lost.
    with pytest.raises(ParauditError, match=r"did not write there \(notes.txt\)"):
        prepare_output(tmp_path / "d", force=True, what="--out", marker="dataset.json")
    (tmp_path / "d" / "notes.txt").unlink()
    prepare_output(tmp_path / "d", force=True, what="--out", marker="dataset.json")


def test_broken_symlink_is_refused(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(tmp_path / "gone")
    with pytest.raises(ParauditError, match="broken symlink"):
        prepare_output(tmp_path / "link", force=False, what="--out")


def test_os_errors_become_one_line_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    @user_errors
    def command() -> None:
        raise PermissionError(13, "Permission denied", "/some/where")

    with pytest.raises(typer.Exit) as exit_info:
        command()
    assert exit_info.value.exit_code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: /some/where: Permission denied") and err.count("\n") == 1
