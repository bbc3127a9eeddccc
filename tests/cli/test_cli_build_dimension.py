"""`build starter --dimension`: bad input refused in one line before anything is written, and
`--dimension emotion` is today's starter build byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.dimensions import registry


def cli(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert "Traceback" not in r.output, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def _one_error(output: str) -> str:
    lines = [x for x in output.splitlines() if x.strip()]
    errors = [x for x in lines if x.startswith("error:")]
    assert len(errors) == 1, output
    return " ".join(lines)


def test_an_unknown_dimension_names_the_closest(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    code, output = cli("build", "starter", "--dimension", "urgncy", "--out", str(out))
    assert code == 2
    text = _one_error(output)
    assert "unknown dimension 'urgncy'" in text and "did you mean 'urgency'?" in text
    assert not out.exists()


def test_dimension_with_another_builder_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    src = tmp_path / "src.jsonl"
    src.write_text("{}\n")
    code, output = cli(
        "build", "single-turn", "--dimension", "whisper", "--source", str(src), "--out", str(out)
    )
    assert code == 2
    assert "build starter --dimension whisper" in _one_error(output)
    assert not out.exists()


def test_a_renderer_not_installed_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The espeak extra's module as if it were not installed: the registry's own check answers.
    monkeypatch.setitem(
        registry.EXTRAS, "espeak", (("no_such_module_here",), "pip install 'paraudit[espeak]'")
    )
    out = tmp_path / "ds"
    code, output = cli("build", "starter", "--dimension", "emphasis", "--out", str(out))
    assert code == 2
    text = _one_error(output)
    assert "emphasis" in text and "espeak" in text and "pip install 'paraudit[espeak]'" in text
    assert not out.exists()


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_dimension_emotion_is_todays_build_byte_for_byte(
    render_cache: Path, tmp_path: Path
) -> None:
    plain, named = tmp_path / "plain", tmp_path / "named"
    base = ("build", "starter", "--limit", "3", "--cache", str(render_cache))
    code, output = cli(*base, "--out", str(plain))
    assert code == 0, output
    code, output = cli(*base, "--dimension", "emotion", "--out", str(named))
    assert code == 0, output
    a, b = _files(plain), _files(named)
    assert a == b
    assert sum(k.startswith("audio/") for k in a) > 6
    assert b'"dimension"' not in a["dataset.json"]  # an emotion dataset says nothing new
