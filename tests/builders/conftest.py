"""Session-wide builds from the sample sources (loopback LLM + Piper), shared by the tests."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.render.profiles import profile_for
from paraudit.render.renderer import Renderer
from paraudit.sources.emocf import read_emocf
from paraudit.sources.od3 import Dialogue, weighted_order
from tests.builders.fakes import ChatServer, od3_records, write_emocf, write_od3

# The scripted generator answers these badly, one kind of rejection each; they go to the
# dialogues the seeded draw tries first, so every kind is met however many pairs are asked for.
BAD = ("impossible", "malformed", "mismatch", "back-and-forth", "vocabulary")
SEED = 1


def _tags() -> dict[str, str]:
    ds = [Dialogue(r["sample_id"], r["source_dataset"], ()) for r in od3_records()]
    first = [d.id for d in weighted_order(ds, SEED)[: len(BAD)]]
    return dict(zip(first, BAD, strict=True))


def cli(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert "Traceback" not in r.output, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


@dataclass
class Sources:
    root: Path
    emocf: Path
    od3: Path
    cache: Path
    """LLM replies and renders for every build of the session."""


@pytest.fixture(scope="session")
def chat() -> Iterator[ChatServer]:
    with ChatServer() as s:
        yield s


@pytest.fixture(scope="session")
def sources(tmp_path_factory: pytest.TempPathFactory, render_cache: Path) -> Sources:
    root = tmp_path_factory.mktemp("sources")
    return Sources(
        root,
        write_emocf(root / "emocf.jsonl"),
        write_od3(root / "od3.jsonl", _tags()),
        render_cache,
    )


def build(chat: ChatServer, src: Sources, kind: str, source: Path, out: Path, *extra: str) -> str:
    code, output = cli(
        "build",
        kind,
        "--source",
        str(source),
        "--llm",
        chat.spec,
        "--out",
        str(out),
        "--cache",
        str(src.cache),
        "--max-accepted",
        "1",
        *extra,
    )
    assert code == 0, output
    return output


@pytest.fixture(scope="session")
def positional_set(
    chat: ChatServer, sources: Sources, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    out = tmp_path_factory.mktemp("pos") / "ds"
    build(
        chat,
        sources,
        "positional",
        sources.od3,
        out,
        "--n",
        "22",
        "--seed",
        str(SEED),
        "--no-dnsmos",
        # The starter set's direction check (Piper only, render processes): the largest set
        # stays within the CI budget, and both voicers are built end to end.
        "--qc",
        "direction",
    )
    return out


@pytest.fixture(scope="session")
def single_turn_set(
    chat: ChatServer, sources: Sources, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    out = tmp_path_factory.mktemp("st") / "ds"
    build(chat, sources, "single-turn", sources.emocf, out, "--no-dnsmos")
    return out


@pytest.fixture(scope="session")
def conversations_set(
    chat: ChatServer, sources: Sources, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    out = tmp_path_factory.mktemp("conv") / "ds"
    build(
        chat,
        sources,
        "conversations",
        sources.od3,
        out,
        "--n",
        "4",
        "--seed",
        str(SEED),
        "--no-dnsmos",
    )
    return out


@pytest.fixture(scope="session")
def recordings(sources: Sources) -> Path:
    """'Human recordings' for the EmoCF sample: Piper renderings pushed further than the TTS
    build's, written under the file names the source lists (which carry the label)."""
    r = Renderer(None, sources.cache)
    for pair in read_emocf(sources.emocf):
        for emotion, path in zip(pair.emotions, pair.recordings, strict=True):
            assert path is not None
            # A different speaker tempo and a stronger profile: not the TTS build's clips.
            profile = profile_for("human", emotion).scaled(1.25)
            profile = replace(profile, length_scale=profile.length_scale * 1.1)
            clip = r.render(pair.sentence, "human", profile)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(clip.path.read_bytes())
    return sources.root / "clips"


STARTER_LIMIT = 2
"""Texts per item kind in `starter_built`: both values (and, where the dimension has them, two
positional conversations with both changes)."""


def starter_built(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """`build starter --dimension NAME --limit 2` through the CLI, once per test run for every
    module and worker that asks (renders shared through one cache); read-only for the tests."""
    from tests.conftest import built_once, shared_root

    def make(folder: Path) -> None:
        cache = shared_root(tmp_path_factory) / "render-cache"
        cache.mkdir(exist_ok=True)
        code, output = cli(
            "build", "starter", "--dimension", name, "--limit", str(STARTER_LIMIT),
            "--out", str(folder / "ds"), "--cache", str(cache),
        )  # fmt: skip
        assert code == 0, output
        assert "dataset validates" in output

    return built_once(tmp_path_factory, f"dimension-starter-{name}", make) / "ds"


def starter_built_fixture(names: tuple[str, ...]) -> Any:
    """A module-scoped fixture `built`, one parameter per dimension of `names`: its
    `starter_built` set. A test module takes it as `built = starter_built_fixture(NAMES)`."""

    @pytest.fixture(scope="module", params=names)
    def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
        return starter_built(tmp_path_factory, request.param)

    return built
