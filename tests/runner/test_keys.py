"""Call keys derive from the judge's identity; folders written before keep their own keys.

`data/legacy_call_keys.json` holds keys computed by main at b7a08da (each backend's `params()`,
since removed) for 18 judges over every backend, two prompts and two samples: the frozen formula
in runner.keys must give exactly those, or every old folder would re-ask all its calls."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import paraudit.judges.builtin.common as builtin_common
import paraudit.judges.scaffold as scaffold
from paraudit.cli.main import app
from paraudit.judges.registry import load_judge
from paraudit.judges.spec import parse_judge_spec
from paraudit.protocols.parts import AudioPart, Prompt, TextPart
from paraudit.runner.calls import call_key, prompt_record
from paraudit.runner.keys import IDENTITY_KEYS, PARAMS_KEYS, folder_call_keys, legacy_params

FIXTURE = json.loads((Path(__file__).parent / "data" / "legacy_call_keys.json").read_text())
PROMPTS: list[Prompt] = [
    tuple(TextPart(v) if kind == "text" else AudioPart(Path(f"/x/{v}.wav"), v) for kind, v in rec)
    for rec in FIXTURE["prompts"]
]
NOT_INSTALLED = ("vllm:", "desta:")
"""Backends whose SDK this machine lacks: their judges cannot be built, only their formula run."""


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    # Hosted judges read a key when built (never used: nothing is called here).
    for name in ("OPENAI_API_KEY", "GEMINI_API_KEY", "MY_KEY"):
        monkeypatch.setenv(name, "not-a-real-key")


@pytest.mark.parametrize("text", sorted(FIXTURE["keys"]))
def test_the_old_formula_gives_the_keys_old_folders_hold(text: str) -> None:
    s = parse_judge_spec(text).with_call_keys(PARAMS_KEYS)
    want = FIXTURE["keys"][text]
    if text.startswith(NOT_INSTALLED):
        # call_key's serialisation is pinned by the other cases; here the params alone.
        def key(p: Prompt, n: int) -> str:
            record = {"judge": s.head, "params": legacy_params(s)}
            blob = {**record, "prompt": prompt_record(p), "sample": n}
            text_ = json.dumps(blob, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            return hashlib.sha256(text_.encode()).hexdigest()

        got = [[key(p, n) for n in (0, 1)] for p in PROMPTS]
    else:
        judge = load_judge(s)
        got = [[call_key(judge, p, n) for n in (0, 1)] for p in PROMPTS]
    assert got == want


def test_identity_keys_follow_spec_and_state_never_harness_options() -> None:
    p = PROMPTS[0]
    base = load_judge("builtin:random?seed=1")
    key = call_key(base, p, 0)
    assert call_key(load_judge("builtin:random?seed=1&delay=0&rpm=60"), p, 0) == key
    assert call_key(load_judge("builtin:random?seed=2"), p, 0) != key
    assert call_key(base, p, 1) != key
    # The same judge in an older folder is keyed the old way: never the same key.
    old = load_judge(parse_judge_spec("builtin:random?seed=1").with_call_keys(PARAMS_KEYS))
    assert call_key(old, p, 0) != key and old.label == base.label
    ident = base.identity().as_dict()
    assert ident == {
        "backend": "builtin",
        "model": "random",
        "base_url": None,
        "options": {"seed": "1"},
        "state": {"builtin": builtin_common.BUILTIN_VERSION},
    }


def test_declared_state_is_part_of_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    p = PROMPTS[1]
    judge = load_judge("scaffold:builtin:random?seed=3")
    assert judge.identity().as_dict()["state"] == {
        "scaffold": scaffold.SCAFFOLD_VERSION,
        "wrapped": {"builtin": builtin_common.BUILTIN_VERSION},
    }
    key = call_key(judge, p, 0)
    assert call_key(load_judge("scaffold:builtin:random?seed=3"), p, 0) == key
    with monkeypatch.context() as m:
        m.setattr(scaffold, "SCAFFOLD_VERSION", scaffold.SCAFFOLD_VERSION + 1)
        again = load_judge("scaffold:builtin:random?seed=3")
        assert call_key(again, p, 0) != key  # the scaffold asks differently: another judge
    monkeypatch.setattr(builtin_common, "BUILTIN_VERSION", builtin_common.BUILTIN_VERSION + 1)
    again = load_judge("scaffold:builtin:random?seed=3")
    assert call_key(again, p, 0) != key  # so does the judge it wraps


def test_hosted_defaults_are_declared_state() -> None:
    s = parse_judge_spec("openai:m@http://127.0.0.1:9/v1?temperature=0.2")
    state = load_judge(s).identity().as_dict()["state"]
    assert state == {
        "defaults": {"audio_part": "input_audio", "max_tokens": 1024, "temperature": 0.0}
    }


# -- a run folder written before: resumed and extended with its calls found ------------------

cli = CliRunner()
SMALL = ["--probes", "J", "--protocols", "pointwise", "--cues", "none"]


def _run(*args: str) -> str:
    r = cli.invoke(app, ["run", *args])
    assert r.exit_code == 0, r.output
    return r.output


def _calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


@dataclass(frozen=True)
class OldFolder:
    out: Path
    log: Path
    """The judge's call log (one line per call it made)."""
    judge: str
    args: tuple[str, ...]
    """`paraudit run` arguments that resume it."""


@pytest.fixture
def old(tiny_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> OldFolder:
    """A folder as main at b7a08da left it: keys by the old formula (the first test pins it to
    that code's keys) and a run.json that does not say which formula."""
    import paraudit.runner.run as run

    out, log = tmp_path / "r", tmp_path / "calls.log"
    judge = f"builtin:random?seed=1&calllog={log}"
    args = (str(tiny_dataset), "--out", str(out), *SMALL, "--judge", judge)
    with monkeypatch.context() as m:
        m.setattr(run, "folder_call_keys", lambda out: PARAMS_KEYS)
        _run(*args)
    record = json.loads((out / "run.json").read_text())
    assert record.pop("call_keys") == PARAMS_KEYS
    (out / "run.json").write_text(json.dumps(record))
    assert folder_call_keys(out) == PARAMS_KEYS and _calls(log) > 0
    return OldFolder(out, log, judge, args)


def _stored_keys(out: Path) -> set[str]:
    with sqlite3.connect(out / "calls.sqlite") as db:
        return {k for (k,) in db.execute("SELECT key FROM calls")}


def test_an_older_folder_resumes_and_extends_without_asking_again(
    old: OldFolder, tiny_dataset: Path, tmp_path: Path
) -> None:
    out, log = old.out, old.log
    asked, keys = _calls(log), _stored_keys(out)
    rows = (out / "results.jsonl").read_text()
    (out / "results.jsonl").unlink()  # so the resume replays the plan through the store
    _run(*old.args)
    assert _calls(log) == asked, "a call stored under the old formula was asked again"
    assert (out / "results.jsonl").read_text() == rows and _stored_keys(out) == keys
    assert folder_call_keys(out) == PARAMS_KEYS  # run.json untouched by a plain resume
    # --extend: the old judge's answers are found; the new judge is asked, keyed the folder's
    # way (one formula per folder).
    extra = tmp_path / "first.log"
    _run(
        *(str(tiny_dataset), "--out", str(out), *SMALL),
        *("--judge", f"builtin:first?calllog={extra}", "--extend"),
    )
    assert _calls(log) == asked and _calls(extra) == asked
    assert json.loads((out / "run.json").read_text())["call_keys"] == PARAMS_KEYS  # rewritten
    first = load_judge(parse_judge_spec("builtin:first").with_call_keys(PARAMS_KEYS))
    assert len(_stored_keys(out) - keys) == asked
    assert all(k in _stored_keys(out) for k in _keys_of(first, tiny_dataset))


def test_the_same_folder_read_with_the_new_formula_asks_again(old: OldFolder) -> None:
    """The control: without the compatibility path the resume above would re-ask everything
    (so its zero is the formula's doing, not a cache that hits whatever the key)."""
    asked = _calls(old.log)
    record = json.loads((old.out / "run.json").read_text())
    (old.out / "run.json").write_text(json.dumps({**record, "call_keys": IDENTITY_KEYS}))
    (old.out / "results.jsonl").unlink()
    _run(*old.args)
    assert _calls(old.log) == 2 * asked


def test_a_dry_run_counts_an_older_folders_answers(old: OldFolder, tiny_dataset: Path) -> None:
    from paraudit.runner.plan import PlanSpec
    from paraudit.runner.run import RunConfig, dry_run

    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))
    got = dry_run(RunConfig(tiny_dataset, [old.judge], old.out, plan))
    n = got["instances_per_judge"]
    store = old.out / "calls.sqlite"
    assert got["already_answered"] == {
        "builtin:random?seed=1": f"{n} of {n} (in {store}: not asked again)"
    }


def test_a_new_folder_records_its_formula(tiny_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert folder_call_keys(out) == IDENTITY_KEYS
    _run(str(tiny_dataset), "--out", str(out), *SMALL, "--judge", "builtin:first")
    record = json.loads((out / "run.json").read_text())
    assert record["call_keys"] == IDENTITY_KEYS
    assert record["judge_details"][0]["identity"]["state"] == {"builtin": 1}


def _keys_of(judge: Any, tiny: Path) -> list[str]:
    from paraudit.items.dataset import load_dataset
    from paraudit.runner.plan import PlanSpec, iter_instances

    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))
    return [call_key(judge, i.prompt, 0) for i in iter_instances(load_dataset(tiny), plan)]


@pytest.mark.parametrize("value", [3, "2", True, None])
def test_an_unknown_formula_is_one_line_and_no_run(
    value: object, tiny_dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    _run(str(tiny_dataset), "--out", str(out), *SMALL, "--judge", "builtin:first")
    record = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps({**record, "call_keys": value}))
    before = (out / "calls.sqlite").read_bytes()
    r = cli.invoke(
        app, ["run", str(tiny_dataset), "--out", str(out), *SMALL, "--judge", "builtin:first"]
    )
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert r.exit_code == 1 and len(lines) == 1, r.output  # as for a damaged run.json
    assert f"call_keys={value!r}" in lines[0] and "Traceback" not in r.output
    assert (out / "calls.sqlite").read_bytes() == before
