"""`paraudit build` user paths that need no rendering: refusals, dry runs, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders.conftest import cli
from tests.builders.fakes import write_emocf, write_od3
from tests.judges.loopback import free_port


@pytest.fixture
def src(tmp_path: Path) -> tuple[Path, Path]:
    return write_emocf(tmp_path / "e.jsonl"), write_od3(tmp_path / "o.jsonl")


def test_output_is_checked_before_any_work(tmp_path: Path, src: tuple[Path, Path]) -> None:
    a_file = tmp_path / "f"
    a_file.write_text("x")
    base = ("build", "single-turn", "--source", str(src[0]), "--llm", "openai:gpt-4o")
    code, out = cli(*base, "--out", str(a_file))
    assert code == 1 and "is a file" in out
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    code, out = cli(*base, "--out", str(full))
    assert code == 1 and "--force" in out
    code, out = cli(*base, "--out", str(full), "--force")
    assert code == 1 and "not an earlier output (no dataset.json)" in out
    assert (full / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("build", "positionl"), "unknown source 'positionl'"),
        (("build", "positional"), "needs --source"),
        (("build", "positional", "--source", "{o}"), "--llm SPEC is required"),
        (("build", "positional", "--source", "{o}", "--llm", "hf:x"), "unknown LLM backend"),
        (
            ("build", "positional", "--source", "{o}", "--llm", "openai:m", "--preset", "emocf"),
            "emocf preset holds single sentences",
        ),
        (
            ("build", "single-turn", "--source", "{e}", "--llm", "openai:m", "--preset", "od3"),
            "use --preset emocf",
        ),
        (
            ("build", "positional", "--source", "{o}", "--llm", "openai:m", "--audio", "source"),
            "only single-turn",
        ),
        (
            ("build", "positional", "--source", "{o}", "--llm", "openai:m", "--tts", "espeak"),
            "unknown TTS backend 'espeak'",
        ),
        (  # a dry run refuses what the build would refuse
            (
                "build",
                "positional",
                "--source",
                "{o}",
                "--llm",
                "openai:m",
                "--tts",
                "foo",
                "--dry-run",
            ),
            "unknown TTS backend 'foo'",
        ),
        (
            (
                "build",
                "single-turn",
                "--source",
                "{e}",
                "--llm",
                "openai:m",
                "--audio",
                "source",
                "--audio-root",
                "{e}-nope",
                "--dry-run",
            ),
            "is not a folder",
        ),
        (
            ("build", "single-turn", "--source", "{e}", "--llm", "openai:m", "--map", "sentence"),
            "FIELD=COLUMN",
        ),
        (
            ("build", "single-turn", "--source", "{e}", "--llm", "openai:m", "--pairs", "joy/fear"),
            "no source pair matches",
        ),
    ],
)
def test_clear_one_line_errors(
    tmp_path: Path, src: tuple[Path, Path], args: tuple[str, ...], words: str
) -> None:
    filled = [a.format(e=src[0], o=src[1]) for a in args]
    code, out = cli(*filled, "--out", str(tmp_path / "ds"), "--n", "2")
    assert code == 1 and words in out, out
    assert not (tmp_path / "ds").exists()


def test_dry_run_counts_calls_characters_audio_and_cost(
    tmp_path: Path, src: tuple[Path, Path]
) -> None:
    code, out = cli(
        "build",
        "positional",
        "--source",
        str(src[1]),
        "--llm",
        "openai:gpt-4o",
        "--tts",
        "piper",
        "--out",
        str(tmp_path / "ds"),
        "--n",
        "10",
        "--dry-run",
    )
    assert code == 0, out
    for words in ("records to try", "LLM calls", "characters sent", "audio seconds", "$"):
        assert words in out
    assert "│ 20 " in out.replace("┃", "│") or " 20 " in out  # 10 pairs at 50 % → 20 tries
    assert not (tmp_path / "ds").exists()
    # A local server costs nothing and is never called by a dry run.
    local = f"openai:m@http://127.0.0.1:{free_port()}/v1"
    code, out = cli(
        "build",
        "conversations",
        "--source",
        str(src[1]),
        "--llm",
        local,
        "--out",
        str(tmp_path / "ds"),
        "--dry-run",
    )
    assert code == 0 and "no API charge" in out and "$0.00" in out


@pytest.mark.parametrize(
    ("option", "spec", "words"),
    [
        ("--llm", "openai:m?temperature=0@http://127.0.0.1:{port}/v1", "write it as 'openai:m@"),
        ("--llm", "openai:m?api_key=sk-SECRET123", "key_env"),
        ("--llm", "openai:m?temperature=1e400", "must be a finite number"),
        ("--tts", "openai:gpt-4o-mini-tts?voices=a,b@http://127.0.0.1:{port}/v1", "write it as"),
        ("--tts", "openai:gpt-4o-mini-tts@notaurl", "is not an http(s) URL"),
    ],
)
def test_generator_and_tts_specs_share_the_grammar(
    tmp_path: Path, src: tuple[Path, Path], option: str, spec: str, words: str
) -> None:
    """A malformed --llm or --tts is a usage mistake: exit 2, one line, nothing written (also
    under --dry-run), and a secret is never echoed."""
    given = spec.format(port=free_port())
    llm = given if option == "--llm" else "openai:m"
    args = ["build", "positional", "--source", str(src[1]), "--llm", llm]
    args += ["--tts", given] if option == "--tts" else []
    code, out = cli(*args, "--out", str(tmp_path / "ds"), "--n", "2", "--dry-run")
    lines = [line for line in out.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and words in lines[0], out
    assert "sk-SECRET123" not in out
    assert not (tmp_path / "ds").exists()
