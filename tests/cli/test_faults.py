"""CLI fault injection: every user mistake ends in exit 1 or 2, one line naming the problem and
the fix, no traceback, and a file system exactly as it was before the command.

Each case builds its fixture under tmp_path, runs the real CLI (typer's CliRunner, in process)
and checks, beyond its own expectations, the invariants every case shares (`_check`).

Case list (add a `Case` to CASES for a new fault; run/report faults belong to the contract
branch, which owns those commands):
  validate   dataset path is a file · missing folder · symlinked clip to a file outside ·
             symlink to /dev/zero · FIFO clip · stereo clip · 0-byte wav · non-UTF-8 text ·
             4 kHz clip among 16 kHz · identical audio in both branches · unknown option
  export-hf  OUT is a file · OUT non-empty · --force over foreign files · OUT under a file ·
             OUT read-only (not as root) · dataset with a clip linked outside · OUT is the
             dataset itself (--force)
  import-hf  over an existing dataset · SRC not an export · export that makes an invalid
             dataset (new OUT, and --force over a dataset, which must survive) · OUT is a
             file · OUT is SRC (--force)
  demo       --out a file · invalid OUT/starter (no --force) · foreign OUT/starter (--force) ·
             --cache a file · OUT/report a file · --out read-only (not as root)
  build      unknown source · --cache a file (paths checked only after rendering are listed in
             the hostile branch report: build.py belongs to the sources branch)
  compare    --out a folder · --out with a missing parent · a run folder that does not exist ·
             the same run twice · --judge with a label the run does not have
  judges     an unexpected argument
  run        clip symlinked outside the dataset (refused before any judge call) · --dry-run
             on an undecodable clip
  run specs  (SPEC_CASES: exit 2, one line, no connection to the judge's server) the URL after
             the options · a key in the spec · an option with no name · a number that is not
             finite · --rpm inf · a base URL that is not a URL (also with --dry-run) or not
             http(s) · a near miss of a hosted option's name
Positive controls (exit 0) sit beside them: --force over an earlier output, mixed formats
allowed, compare of runs on different datasets (a warning), report without matplotlib noise.

Friends, same rows and invariants (issue 19): test_faults_outputs.py (nothing replaced that
paraudit did not write), test_faults_replies.py (provider reply shapes, waits),
test_faults_audio.py (a clip is what its name says), test_faults_messages.py (messages and
numbers), test_interrupt.py (Ctrl-C during a hung call), tests/engines/test_ray_faults.py
(a lost Ray node).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.items.dataset import load_dataset
from tests.conftest import make_dataset
from tests.judges.loopback import Silent

cli = CliRunner()


def _permissions_bypassed() -> bool:
    """Whether this process writes into read-only folders anyway (root with CAP_DAC_OVERRIDE),
    so read-only faults cannot be made here."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        ro = Path(d) / "ro"
        ro.mkdir(mode=0o555)
        try:
            (ro / "probe").write_text("")
        except PermissionError:
            return False
        finally:
            ro.chmod(0o755)
        return True


PERMISSIONS_BYPASSED = _permissions_bypassed()


def _invoke(*args: str) -> tuple[int, str]:
    r = cli.invoke(app, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def _snapshot(root: Path) -> dict[str, str]:
    """Every path under root with its kind and content hash (links and FIFOs are not read)."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = "link→" + os.readlink(p)
        elif p.is_fifo():
            out[rel] = "fifo"
        elif p.is_dir():
            out[rel] = f"dir {oct(p.stat().st_mode & 0o777)}"
        else:
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


# -- fixtures made in the case ----------------------------------------------------------------


def _ds(tmp: Path, name: str = "ds") -> Path:
    make_dataset(tmp / name, tmp / f"{name}-src", positional=True)
    return tmp / name


def _clip(ds: Path) -> Path:
    """The first item's branch-0 human clip."""
    return ds / load_dataset(ds).items[0].branches[0].audio[0]


def _swap_tone(ds: Path, *, rate: int = 16000, channels: int = 1) -> None:
    """Replace the first clip by another tone, stored under its own content-hash name (so only
    the rule under test can object)."""
    old = _clip(ds)
    x = 0.3 * np.sin(2 * np.pi * 170 * np.arange(rate) / rate)
    sf.write(str(old), np.stack([x] * channels, axis=1), rate, subtype="PCM_16", format="WAV")
    new = old.with_name(hashlib.sha256(old.read_bytes()).hexdigest() + ".wav")
    old.rename(new)
    items = ds / "items.jsonl"
    items.write_text(items.read_text().replace(old.name, new.name))


def _export(tmp: Path) -> Path:
    pytest.importorskip("datasets", reason="the 'datasets' extra is not installed")
    from paraudit.items.hf import export_hf

    export_hf(_ds(tmp, "src-ds"), tmp / "hf")
    return tmp / "hf"


def _bad_export(t: Path) -> Path:
    """An export whose manifest no longer lists the items' emotion labels: it loads, but the
    dataset it makes does not validate."""
    hf = _export(t)
    info = json.loads((hf / "dataset_info.json").read_text())
    manifest = json.loads(info["description"])
    manifest["emotions"] = ["neutral"]
    info["description"] = json.dumps(manifest)
    (hf / "dataset_info.json").write_text(json.dumps(info))
    return hf


def _read_only(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o555)
    return path


# -- the cases --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    id: str
    setup: Callable[[Path], list[str]]
    """Builds the fault under tmp_path and returns the CLI arguments."""
    expect: str
    """A fragment naming the problem or the fix: in the error line, or (validate) in the
    problem lines listed above it."""
    code: int = 1
    as_root_ok: bool = True
    """False: the fault cannot be made as root (root writes anywhere)."""


def _validate_symlink_outside(t: Path) -> list[str]:
    ds = _ds(t)
    secret = t / "secret.wav"
    secret.write_bytes(_clip(ds).read_bytes())  # a valid clip: only containment refuses it
    clip = _clip(ds)
    clip.unlink()
    clip.symlink_to(secret)
    return ["validate", str(ds)]


def _validate_dev_zero(t: Path) -> list[str]:
    ds = _ds(t)
    clip = _clip(ds)
    clip.unlink()
    clip.symlink_to("/dev/zero")
    return ["validate", str(ds)]


def _validate_fifo(t: Path) -> list[str]:
    ds = _ds(t)
    clip = _clip(ds)
    clip.unlink()
    os.mkfifo(clip)
    return ["validate", str(ds)]


def _validate_stereo(t: Path) -> list[str]:
    ds = _ds(t)
    _swap_tone(ds, channels=2)
    return ["validate", str(ds)]


def _validate_empty(t: Path) -> list[str]:
    ds = _ds(t)
    _clip(ds).write_bytes(b"")
    return ["validate", str(ds)]


def _validate_latin1(t: Path) -> list[str]:
    ds = _ds(t)
    items = ds / "items.jsonl"
    items.write_bytes(items.read_bytes().replace(b"Friday", b"Fr\xe9day", 1))
    return ["validate", str(ds)]


def _validate_4khz(t: Path) -> list[str]:
    ds = _ds(t)
    _swap_tone(ds, rate=4000)
    return ["validate", str(ds)]


def _validate_identical(t: Path) -> list[str]:
    ds = _ds(t)
    items = ds / "items.jsonl"
    rows = [json.loads(line) for line in items.read_text().splitlines()]
    rows[0]["branches"][1]["audio"] = rows[0]["branches"][0]["audio"]
    items.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return ["validate", str(ds)]


def _undecodable(t: Path) -> Path:
    ds = _ds(t)
    _clip(ds).write_bytes(b"RIFF\x24\x00\x00\x00WAVEjunk")
    return ds


def _file(t: Path, name: str = "afile") -> Path:
    (t / name).write_text("mine\n")
    return t / name


def _full_folder(t: Path, name: str = "full") -> Path:
    (t / name).mkdir(parents=True)
    (t / name / "precious.txt").write_text("keep me\n")
    return t / name


def _invalid_starter(t: Path) -> Path:
    """OUT with a starter set that no longer validates (a label outside the vocabulary)."""
    ds = _ds(t / "out", "starter")
    m = json.loads((ds / "dataset.json").read_text())
    m["emotions"] = ["neutral"]
    (ds / "dataset.json").write_text(json.dumps(m))
    return t / "out"


def _demo_report_file(t: Path) -> Path:
    (t / "out").mkdir()
    return _file(t / "out", "report").parent


def _compare_run(t: Path, name: str = "tiny") -> Path:
    ds = _ds(t)
    manifest = ds / "dataset.json"  # another dataset name: another fingerprint
    manifest.write_text(manifest.read_text().replace('"tiny"', json.dumps(name)))
    code, out = _invoke("run", str(ds), "--judge", "builtin:first", "--out", str(t / "run"))
    assert code == 0, out
    return t / "run"


CASES = [
    # validate
    Case("validate-file", lambda t: ["validate", str(_file(t))], "is a file"),
    Case("validate-missing", lambda t: ["validate", str(t / "nope")], "no such directory"),
    Case("validate-symlink-out", _validate_symlink_outside, "points outside the dataset folder"),
    Case("validate-dev-zero", _validate_dev_zero, "/dev/zero"),
    Case("validate-fifo", _validate_fifo, "is a FIFO"),
    Case("validate-stereo", _validate_stereo, "must be mono"),
    Case("validate-empty-wav", _validate_empty, "is empty (0 bytes)"),
    Case("validate-latin1", _validate_latin1, "not valid UTF-8 (byte 0xe9"),
    Case("validate-4khz", _validate_4khz, "4000 Hz differs"),
    Case("validate-identical", _validate_identical, "byte-identical"),
    Case("validate-bad-option", lambda t: ["validate", str(_ds(t)), "--nope"], "--nope", 2),
    # export-hf
    Case("export-out-file", lambda t: ["export-hf", str(_ds(t)), str(_file(t))], "is a file"),
    Case(
        "export-out-full",
        lambda t: ["export-hf", str(_ds(t)), str(_full_folder(t))],
        "pass --force",
    ),
    Case(
        "export-force-foreign",
        lambda t: ["export-hf", str(_ds(t)), str(_full_folder(t)), "--force"],
        "not an earlier output",
    ),
    Case(
        "export-out-under-file",
        lambda t: ["export-hf", str(_ds(t)), str(_file(t) / "hf")],
        "is a file",
    ),
    Case(
        "export-out-read-only",
        lambda t: ["export-hf", str(_ds(t)), str(_read_only(t / "ro") / "hf")],
        "not writable",
        as_root_ok=False,
    ),
    Case(
        "export-symlink-out",
        lambda t: ["export-hf", _validate_symlink_outside(t)[1], str(t / "hf")],
        "points outside",
    ),
    Case(
        "export-onto-dataset",
        lambda t: ["export-hf", str(_ds(t)), str(t / "ds"), "--force"],
        "is the command's own input",
    ),
    # import-hf
    Case(
        "import-over-dataset",
        lambda t: ["import-hf", str(_export(t)), str(_ds(t))],
        "pass --force",
    ),
    Case("import-not-export", lambda t: ["import-hf", str(t), str(t / "new")], "not a saved"),
    Case(
        "import-invalid-result",
        lambda t: ["import-hf", str(_bad_export(t)), str(t / "new")],
        "does not validate",
    ),
    Case(
        "import-invalid-over-dataset",
        lambda t: ["import-hf", str(_bad_export(t)), str(_ds(t)), "--force"],
        "unknown emotion label",
    ),
    Case("import-out-file", lambda t: ["import-hf", str(_export(t)), str(_file(t))], "is a file"),
    Case(
        "import-onto-source",
        lambda t: ["import-hf", str(_export(t)), str(t / "hf"), "--force"],
        "is the command's own input",
    ),
    # demo (every check happens before any rendering)
    Case("demo-out-file", lambda t: ["demo", "--out", str(_file(t))], "is a file"),
    Case("demo-invalid-starter", lambda t: ["demo", "--out", str(_invalid_starter(t))], "--force"),
    Case(
        "demo-foreign-starter",
        lambda t: ["demo", "--out", str(_full_folder(t / "out", "starter").parent), "--force"],
        "not a dataset",
    ),
    Case(
        "demo-cache-file",
        lambda t: ["demo", "--out", str(t / "out"), "--cache", str(_file(t))],
        "--cache",
    ),
    Case("demo-report-file", lambda t: ["demo", "--out", str(_demo_report_file(t))], "is a file"),
    Case(
        "demo-out-read-only",
        lambda t: ["demo", "--out", str(_read_only(t / "ro") / "out")],
        "not writable",
        as_root_ok=False,
    ),
    # build (only faults found before rendering)
    Case("build-unknown-source", lambda t: ["build", "startr", "--out", str(t / "x")], "unknown"),
    Case(
        "build-cache-file",
        lambda t: ["build", "starter", "--out", str(t / "x"), "--cache", str(_file(t))],
        "afile",
    ),
    # compare
    Case(
        "compare-out-folder",
        lambda t: ["compare", str(_compare_run(t)), str(t / "run"), "--out", str(t)],
        "is a folder",
    ),
    Case(
        "compare-out-no-parent",
        lambda t: ["compare", str(_compare_run(t)), str(t / "run"), "--out", str(t / "a/c.json")],
        "does not exist",
    ),
    Case("compare-missing-run", lambda t: ["compare", str(t / "a"), str(t / "b")], "results.jsonl"),
    Case(
        "compare-same-run",
        lambda t: ["compare", str(_compare_run(t)), str(t / "ds" / ".." / "run")],
        "are the same run",
    ),
    Case(
        "compare-unknown-judge",
        lambda t: (
            ["compare", str(_compare_run(t / "a")), str(_compare_run(t / "b"))]
            + ["--judge", "builtin:last=builtin:first", "--out", str(t / "c.json")]
        ),
        "has no judge 'builtin:last' (its judges: builtin:first)",
    ),
    # judges
    Case("judges-extra-arg", lambda t: ["judges", "surprise"], "surprise", 2),
    # run: containment is checked before any judge is called
    Case(
        "run-dry-run-undecodable",
        lambda t: (
            ["run", str(_undecodable(t)), "--judge", "builtin:first", "--out", str(t / "r")]
            + ["--dry-run"]
        ),
        "does not decode as audio",
    ),
    Case(
        "run-symlink-out",
        lambda t: [
            "run",
            _validate_symlink_outside(t)[1],
            "--judge",
            "builtin:first",
            "--out",
            str(t / "run"),
        ],
        "points outside",
    ),
]


def _check(code: int, out: str, case: Case, command: str, unchanged: bool) -> None:
    """What every fault shares: its exit code, one error line with the expected words, no
    traceback, and nothing written, moved or deleted."""
    assert "Traceback" not in out and "BytesIO" not in out, out
    assert code == case.code, out
    lines = [line for line in out.splitlines() if line.strip()]
    if case.code == 1:
        errors = [line for line in lines if line.startswith("error:")]
        assert len(errors) == 1 and errors[0] == lines[-1], out
        shown = out if command == "validate" else errors[0]
        assert case.expect in shown, out
    else:
        assert case.expect in out, out
    assert unchanged, "a failing command changed the file system"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fault(case: Case, tmp_path: Path) -> None:
    if PERMISSIONS_BYPASSED and not case.as_root_ok:
        pytest.skip("this process writes into read-only folders (root): fault cannot be made")
    args = case.setup(tmp_path)
    before = _snapshot(tmp_path)
    try:
        code, out = _invoke(*args)
        after = _snapshot(tmp_path)
    finally:
        for p in tmp_path.rglob("*"):  # let pytest remove the read-only folders
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o755)
    _check(code, out, case, args[0], after == before)


# -- malformed judge specs: a usage mistake, refused before anything is sent or written -------


class Listener(Silent):
    """A loopback port that accepts connections and never answers, to prove that a refused
    spec sent nothing: after the command, no connection may be waiting."""

    def connections(self) -> int:
        self.sock.setblocking(False)
        n = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return n
            conn.close()
            n += 1


@dataclass(frozen=True)
class SpecCase:
    id: str
    judge: str
    """The --judge value; {url} is the listener's base URL."""
    expect: str
    extra: tuple[str, ...] = ()
    absent: str | None = None
    """Text that must not appear in the output (a secret)."""


SPEC_CASES = [
    SpecCase(
        "url-after-options",
        "openai:test-model?temprature=0@{url}/v1",
        "write it as 'openai:test-model@{url}/v1?temprature=0'",
    ),
    SpecCase(
        "key-in-spec",
        "openai:test-model@{url}/v1?api_key=sk-SECRET123",
        "key_env",
        absent="sk-SECRET123",
    ),
    SpecCase("option-without-name", "openai:test-model@{url}/v1?=1", "'=1' is not name=value"),
    SpecCase(
        "infinite-number",
        "openai:test-model@{url}/v1?temperature=1e400",
        "temperature='1e400' must be a finite number",
    ),
    SpecCase(
        "rpm-inf",
        "openai:test-model@{url}/v1",
        "--rpm must be a finite number",
        ("--rpm", "inf"),
    ),
    SpecCase("not-a-url", "openai:test-model@notaurl", "is not an http(s) URL"),
    SpecCase(
        "not-a-url-dry-run", "openai:test-model@notaurl", "is not an http(s) URL", ("--dry-run",)
    ),
    SpecCase("not-http", "openai:test-model@ftp://127.0.0.1/v1", "is not an http(s) URL"),
    SpecCase(
        "hosted-near-miss",
        "openai:test-model@{url}/v1?temprature=0",
        "did you mean 'temperature'?",
    ),
]


@pytest.mark.parametrize("case", SPEC_CASES, ids=[c.id for c in SPEC_CASES])
def test_spec_fault(case: SpecCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A key is set, so a spec that slipped through would really try to send (to the hosted
    # default, or to the listener) instead of stopping for the missing key.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    ds = _ds(tmp_path)
    with Listener() as srv:
        judge = case.judge.format(url=srv.url)
        args = ["run", str(ds), "--judge", judge, "--out", str(tmp_path / "run")]
        args += ["--timeout", "3", "--probes", "J", *case.extra]
        before = _snapshot(tmp_path)
        code, out = _invoke(*args)
        sent = srv.connections()
    assert "Traceback" not in out, out
    assert code == 2, out
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), out
    assert case.expect.format(url=srv.url) in lines[0], out
    assert case.absent is None or case.absent not in out, out
    assert sent == 0, "a refused spec made a connection"
    assert _snapshot(tmp_path) == before, "a refused spec changed the file system"


# -- positive controls: the same commands succeed when told to, or only warn -----------------


def test_export_force_replaces_an_earlier_export(tmp_path: Path) -> None:
    hf = _export(tmp_path)
    stale = hf / "data-00001-of-00002.arrow"  # a shard only an older, larger export had
    stale.write_bytes(b"from an older export")
    code, out = _invoke("export-hf", str(_ds(tmp_path)), str(hf), "--force")
    assert code == 0, out
    assert not stale.exists() and (hf / "state.json").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".hf.")]


def test_import_force_replaces_a_dataset_and_validates(tmp_path: Path) -> None:
    hf = _export(tmp_path)
    target = _ds(tmp_path, "target")
    code, out = _invoke("import-hf", str(hf), str(target), "--force")
    assert code == 0 and "validated" in out, out
    assert _invoke("validate", str(target))[0] == 0


def test_mixed_formats_warn_and_pass_when_allowed(tmp_path: Path) -> None:
    ds = _ds(tmp_path)
    _swap_tone(ds, rate=4000)
    code, out = _invoke("validate", str(ds), "--mixed-formats")
    assert code == 0, out
    assert "warning:" in out and "branches differ in format" in out and "1 warning" in out


def test_compare_of_runs_on_different_datasets_warns(tmp_path: Path) -> None:
    run_a = _compare_run(tmp_path / "a")
    run_b = _compare_run(tmp_path / "b", "tiny-2")
    code, out = _invoke("compare", str(run_a), str(run_b), "--out", str(tmp_path / "c.json"))
    assert code == 0, out
    assert "warning: the runs audited different datasets" in out
    # The same dataset copied elsewhere has the same fingerprint: no warning.
    run_c = _compare_run(tmp_path / "c")
    code, out = _invoke("compare", str(run_a), str(run_c))
    assert code == 0 and "different datasets" not in out, out
    assert json.loads((tmp_path / "c.json").read_text())["probes"]


def test_report_writes_no_matplotlib_noise(tmp_path: Path) -> None:
    # A fresh process (matplotlib not yet imported) whose config folder cannot be created: the
    # notices matplotlib logs then must not reach the user's terminal.
    run = _compare_run(tmp_path)
    env = {**os.environ, "HOME": "/proc", "XDG_CONFIG_HOME": "/proc", "XDG_CACHE_HOME": "/proc"}
    env.pop("MPLCONFIGDIR", None)
    src = str(Path(__file__).parents[2] / "src")
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")])
    command = ["report", str(run), "--out", str(tmp_path / "r"), "--replicates", "200"]
    r = subprocess.run(
        [sys.executable, "-m", "paraudit.cli.main", *command],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr == "", r.stderr


def test_compare_and_judges_fit_80_columns(tmp_path: Path) -> None:
    run_a = _compare_run(tmp_path / "a")
    run_b = _compare_run(tmp_path / "b")
    for args in (["compare", str(run_a), str(run_b)], ["judges"]):
        r = cli.invoke(app, args, env={"COLUMNS": "80"})
        assert r.exit_code == 0, r.output
        assert all(len(line.rstrip()) <= 80 for line in r.output.splitlines()), r.output
        assert "…" not in r.output.replace("gpt-audio, …", ""), r.output
    # whole, copyable: DeSTA is never installed from PyPI, so its two commands always show
    assert "needs: git clone https://github.com/kehanlu/DeSTA2.5-Audio\n" in r.output
