"""Shared fixtures: tiny datasets made in the test, and one small real starter build.

The suite runs in two processes (pytest-xdist, `scripts/test.sh`): session fixtures that render
speech are built once per run, not once per worker — the first worker to need one builds it
under a file lock in the run's shared temporary folder and the other reuses it — and
`pytest_collection_modifyitems` below keeps together what must not be split or run twice."""

from __future__ import annotations

import fcntl
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from paraudit.items.dataset import audio_name, write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn


def needs(module: str, extra: str) -> pytest.MarkDecorator:
    """A test module's mark that skips it when `module` (of `extra`) is not installed, found
    without importing it: `pytest.importorskip` at the top of a module imported datasets,
    openai and google-genai while every worker collected, about 1.5 CPU-seconds each time,
    where only the worker that runs the module needs them."""
    try:
        found = find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent package is missing
        found = False
    return pytest.mark.skipif(not found, reason=f"the '{extra}' extra is not installed")


def tone(path: Path, freq: float = 150.0, seconds: float = 1.0, amp: float = 0.3) -> bytes:
    """A short voiced-like WAV (harmonic tone with a little noise) written to `path`."""
    rate = 16000
    t = np.arange(int(rate * seconds)) / rate
    rng = np.random.default_rng(int(freq * 10))
    x = amp * (np.sin(2 * np.pi * freq * t) + 0.3 * np.sin(4 * np.pi * freq * t))
    x = x + 0.01 * rng.standard_normal(t.size)
    sf.write(str(path), x, rate, subtype="PCM_16")
    return path.read_bytes()


class ToneClips:
    """Tone clips written into one folder for a dataset being made: calling it with a frequency
    (and length, and amplitude) writes the clip once and returns its dataset name; `audio` maps
    every name to its file, as `write_dataset` wants it."""

    def __init__(self, folder: Path, prefix: str = "", seconds: float = 1.0) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.prefix, self.seconds = folder, prefix, seconds
        self.audio: dict[str, Path] = {}

    def __call__(self, freq: float, seconds: float | None = None, amp: float | None = None) -> str:
        length = self.seconds if seconds is None else seconds
        # A quieter tone of the same pitch and length is another file, not an overwrite.
        loud = "" if amp is None else f"-{amp}"
        p = self.folder / f"{self.prefix}{freq}-{length}{loud}.wav"
        rel = audio_name(tone(p, freq, length) if amp is None else tone(p, freq, length, amp))
        self.audio[rel] = p
        return rel


def make_dataset(
    root: Path, tmp: Path, *, positional: bool = False
) -> tuple[DatasetManifest, list[AuditItem], dict[str, Path]]:
    """Write a valid two-item dataset (one single-turn, optionally one positional)."""
    clip = ToneClips(tmp)

    items = [
        AuditItem(
            id="st-1",
            task="single-turn-emotions",
            context=(Turn(speaker="human", text="They moved the meeting to Friday."),),
            branches=(
                Branch(
                    emotions=("angry",),
                    audio=(clip(180),),
                    response=Response(
                        text="That is not okay.", emotion="empathetic", audio=clip(200)
                    ),
                ),
                Branch(
                    emotions=("sad",),
                    audio=(clip(110),),
                    response=Response(
                        text="That is a letdown.", emotion="empathetic", audio=clip(210)
                    ),
                ),
            ),
            meta={"pair": "angry/sad"},
        )
    ]
    tasks: tuple[str, ...] = ("single-turn-emotions",)
    if positional:
        ctx = (
            Turn(speaker="human", text="Book a table for two."),
            Turn(speaker="assistant", text="Booked for four."),
            Turn(speaker="human", text="Order a taxi for six."),
            Turn(speaker="assistant", text="Taxi at seven."),
            Turn(speaker="human", text="Send me the details."),
        )
        a, n1, n2, x1, x2 = clip(120), clip(130), clip(140), clip(250), clip(260)
        items.append(
            AuditItem(
                id="pos-1",
                task="positional-emotion",
                context=ctx,
                branches=(
                    Branch(
                        emotions=("neutral", "neutral", "angry", "neutral", "angry"),
                        audio=(n1, a, x1, a, x2),
                        response=Response(
                            text="Fixed the party size.", emotion="empathetic", audio=clip(220)
                        ),
                    ),
                    Branch(
                        emotions=("neutral", "neutral", "neutral", "neutral", "angry"),
                        audio=(n1, a, n2, a, x2),
                        response=Response(
                            text="Fixed the taxi time.", emotion="empathetic", audio=clip(230)
                        ),
                    ),
                ),
            )
        )
        tasks = (*tasks, "positional-emotion")
    manifest = DatasetManifest(name="tiny", tasks=tasks)
    write_dataset(root, manifest, items, clip.audio)
    return manifest, items, clip.audio


@pytest.fixture
def tiny_dataset(tmp_path: Path) -> Path:
    root = tmp_path / "ds"
    make_dataset(root, tmp_path / "src", positional=True)
    return root


def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every worker of this test run sees (pytest's own base folder without xdist).

    `scripts/test.sh` runs pytest twice (the parallel pass, then the Ray tests in one process)
    and names one fresh folder for both in PARAUDIT_TEST_SHARED, so the second pass reuses the
    first one's builds and renders (the starter build the Ray tests read) instead of making
    them again; the script removes the folder when it ends."""
    named = os.environ.get("PARAUDIT_TEST_SHARED")
    if named:
        Path(named).mkdir(parents=True, exist_ok=True)
        return Path(named)
    base = tmp_path_factory.getbasetemp()
    # Under xdist each worker's base is RUN/popen-gwN; RUN belongs to this run alone.
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def run_lock(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Path]:
    """Hold an exclusive lock named `name` for this test run; yields the shared root."""
    root = shared_root(tmp_path_factory)
    with open(root / f"{name}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield root
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]
) -> Path:
    """`make(folder)` once per test run, whichever worker asks first; the folder after.

    A build that raised leaves no marker, so the next worker that asks tries again (and
    fails in its own tests, as a per-worker build would)."""
    with run_lock(tmp_path_factory, name) as root:
        out = root / "shared" / name
        done = out.with_name(f"{name}.done")
        if not done.exists():
            if out.exists():  # a half-made one from a build that raised
                import shutil

                shutil.rmtree(out)
            out.mkdir(parents=True)  # empty, as tmp_path_factory.mktemp gives it
            make(out)
            done.touch()
        return out


@pytest.fixture(scope="session")
def render_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One render cache for every worker: renders are content-keyed and written by atomic
    rename, so two workers rendering the same clip is safe and the second one is a hit."""
    path = shared_root(tmp_path_factory) / "render-cache"
    path.mkdir(exist_ok=True)
    return path


def starter_small_sources() -> dict[str, Any]:
    """`build_starter`'s arguments that choose `starter_small`'s sources."""
    from paraudit.compose.starter import quick_ids

    return {"limit": 2, "ids": quick_ids(0)}


@pytest.fixture(scope="session")
def starter_small(tmp_path_factory: pytest.TempPathFactory, render_cache: Path) -> Path:
    """A real starter build (Piper + Praat), two items per task; read-only for the tests.

    The two of each task are taken from the demo's quick subset (`quick_ids(0)`, the sources
    `paraudit demo` builds), so the demo's done-criteria test and this set render their shared
    clips once between them through `render_cache` (measured: after the demo's build, all 47 of
    this set's renders are hits, 1.8 CPU-seconds against 21.4 cold; the first two sources of
    each task made 11 renders of their own). The swaps are the whole set's either way."""
    from paraudit.compose.starter import build_starter

    def make(folder: Path) -> None:
        build_starter(folder / "ds", cache_dir=render_cache, **starter_small_sources())

    return built_once(tmp_path_factory, "starter-small", make) / "ds"


DIMENSION_LIMIT = 4
"""Texts per new dimension in `dimension_small`: few renders, both values of each."""


def dimension_small(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A real `build starter --dimension NAME --limit 4` set, built once per test run for every
    worker and module that asks (renders shared through one cache); read-only for the tests."""
    from paraudit.builders.dimension_starter import build_dimension_starter
    from paraudit.dimensions import registry

    def make(folder: Path) -> None:
        cache = shared_root(tmp_path_factory) / "render-cache"
        cache.mkdir(exist_ok=True)
        build_dimension_starter(
            registry.get(name),
            folder / "ds",
            limit=DIMENSION_LIMIT,
            cache_dir=cache,
            positional=False,
        )

    return built_once(tmp_path_factory, f"dimension-{name}", make) / "ds"


# Fixtures whose tests must share one worker: the builds from the sample sources (one chat
# server and render run each, tests/builders/conftest.py) and the one local Ray cluster
# (two would fight for the two cores).
GROUP_BY_FIXTURE = {
    "chat": "builds",
    "sources": "builds",
    "positional_set": "builds",
    "single_turn_set": "builds",
    "conversations_set": "builds",
    "recordings": "builds",
    "ray_cluster": "ray",
}
BROWSER_MODULES = ("test_browser", "test_report_browser", "test_report_generators")


def starts_ray(module: str) -> bool:
    """Whether a test file (path from the repository root) starts Ray clusters: marked
    ray_serial here; scripts/test.sh's `find` names the same files (test_suite_script.py)."""
    return module.startswith("tests/engines/") or "ray" in Path(module).stem


def pytest_configure(config: pytest.Config) -> None:
    # xdist registers it too; without xdist the mark must still be known (no warning).
    config.addinivalue_line("markers", "xdist_group(name): tests that share one xdist worker")
    config.addinivalue_line(
        "markers", "ray_serial: starts Ray clusters; scripts/test.sh runs these in one process"
    )
    # A suite started in the background of a non-interactive shell (`scripts/test.sh &`)
    # inherits Ctrl-C ignored, and so would every process a test starts: the Ctrl-C tests
    # (tests/cli/test_faults_stop.py, test_interrupt.py, runner/test_runner.py) then saw no
    # interrupt at all (measured: 5 failures). A handler set here is reset to the default in
    # the processes the tests start, as a terminal would give them.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # The CLI's own collector settings (paraudit/collector.py), in every test process (each
    # xdist worker, the Ray pass) from the start: the tests run audits and reports in-process,
    # where the defaults' collections cost about 12 % of the suite's CPU (measured).
    from paraudit.collector import tune

    tune()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under `--dist loadgroup` (scripts/test.sh): every test goes with the others of its file
    (module-scoped fixtures are built once, as without xdist), except that the groups above
    and the chromium tests (one browser at a time: memory and timing) gather across files.
    Without xdist the marks change nothing."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        group = next((g for f, g in GROUP_BY_FIXTURE.items() if f in names), None)
        module = item.nodeid.split("::", 1)[0]
        if group is None and Path(module).stem in BROWSER_MODULES:
            group = "browser"
        elif group is None and starts_ray(module):
            group = "ray"  # tests that start Ray clusters of their own: one at a time
        item.add_marker(pytest.mark.xdist_group(group or module))
        if starts_ray(module):
            # Beside another worker at the same priority, a Ray Data actor of the
            # out-of-restarts test died before its first answer in two fresh-clone runs (it
            # never does alone): scripts/test.sh runs these in one process of their own, beside
            # a lower-priority parallel pass, and any that fail there again alone.
            item.add_marker(pytest.mark.ray_serial)


def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """Stop when `--dist loadgroup` has stopped grouping, rather than run slowly.

    xdist tells its scheduler an item's group by adding '@GROUP' to the node id on the worker
    (every test here has a group: `pytest_collection_modifyitems`); pytest 9.2's structured
    node ids ignore that write (pytest-xdist issue #1386), and the suite then ran every file
    split across both workers: module fixtures built twice, the shared builds and chromium on
    both at once. pyproject.toml keeps pytest below 9.2 until xdist passes groups another way;
    this says so if an install lands on one that drops them."""
    config: pytest.Config = node.config
    grouped = config.getvalue("dist") == "loadgroup" and (config.option.numprocesses or 0) > 1
    if grouped and ids and not any("@" in i for i in ids):
        raise pytest.UsageError(
            f"--dist loadgroup is not grouping under pytest {pytest.__version__} ({ids[0]} "
            "has no '@group' suffix: pytest-xdist issue #1386); install pytest<9.2 "
            "(pip install -e '.[dev]') or run with PARAUDIT_TEST_WORKERS=1"
        )
