"""Fault injection, third hostile pass (issue 30): outputs that land where they must not,
credentials in specs and replies, unbounded inputs, misleading outcomes. Same rows and
invariants as test_faults.py (exit code, one error line, no traceback, file tree unchanged),
through the CLI as a user runs it; servers are loopback only.

Case list (CASES: exit 1 and nothing changed · SPEC_CASES: exit 2, one line, no connection):
  guard      calllog= on the dataset's items.jsonl · calllog= inside a run folder ·
             build invariance --from S --out S --force · --out holding --from (its parent) ·
             demo --out on a dataset · demo --out on a run folder · report --out inside its run ·
             export-hf OUT inside a run folder
  bounds     a 100,000-deep array in items.jsonl (validate, run) · --seed -5 (report, compare,
             run) · --rpm 1e-9 · rpm=1e-9 in a spec
  specs      user:password@ in the URL · ?Authorization=Bearer%20… · ?access_token= ·
             ?x-api-key= · a bearer value under an innocent name · temperature=nan ·
             seed=٣ (non-ASCII digit)
Beside them (own tests): a reply and an error that echo the key (stored and printed
redacted); a 200 carrying "error": … (reported as that error); usage of 1e308 audio tokens and
-5 prompt tokens (recorded as invalid); a report on a run whose J calls all failed (exit 1, why);
compare naming the judges it could not pair; a reused report folder cleared of a stale
scaffold.json; two builds into one --out (the second refused while the first holds the lock).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paraudit.items.guard import OutputLock
from tests.builders.fakes import write_emocf
from tests.cli.test_faults import (
    Case,
    Listener,
    _check,
    _compare_run,
    _ds,
    _invoke,
    _snapshot,
)

DEEP = "[" * 100_000 + "]" * 100_000


def _deep_items(t: Path) -> Path:
    ds = _ds(t)
    items = ds / "items.jsonl"
    rows = items.read_text().splitlines()
    rows[0] = rows[0][:-1] + f', "extra": {DEEP}}}'
    items.write_text("\n".join(rows) + "\n")
    return ds


def _run_folder(t: Path) -> Path:
    """A finished run (builtin:first) on a fresh dataset under t: t/run."""
    return _compare_run(t)


def _calllog_in_run(t: Path) -> list[str]:
    run = _run_folder(t)
    return ["run", str(t / "ds"), "--judge", f"builtin:random?calllog={run}/log.txt",
            "--out", str(t / "run2")]  # fmt: skip


CASES = [
    # one output guard
    Case(
        "calllog-on-items",
        lambda t: [
            "run",
            str(_ds(t)),
            "--judge",
            f"builtin:random?calllog={t}/ds/items.jsonl",
            "--out",
            str(t / "run"),
        ],  # fmt: skip
        "calllog= ",
    ),
    Case("calllog-in-run", _calllog_in_run, "is inside the run folder"),
    Case(
        "invariance-onto-source",
        lambda t: [
            "build",
            "invariance",
            "--from",
            str(_ds(t)),
            "--out",
            str(t / "ds"),
            "--force",
        ],  # fmt: skip
        "is the command's own input",
    ),
    Case(
        "invariance-over-source-parent",
        lambda t: [
            "build",
            "invariance",
            "--from",
            str(_ds(t / "p")),
            "--out",
            str(t / "p"),
            "--force",
        ],  # fmt: skip
        "holds the command's input",
    ),
    Case(
        "demo-out-dataset",
        lambda t: ["demo", "--out", str(_ds(t))],
        "is a dataset; the demo writes",
    ),
    Case(
        "demo-out-run",
        lambda t: ["demo", "--out", str(_run_folder(t))],
        "is a run folder; the demo writes",
    ),
    Case(
        "report-inside-its-run",
        lambda t: ["report", str(_run_folder(t)), "--out", str(t / "run" / "rep")],
        "inside the run folder",
    ),
    Case(
        "export-inside-run",
        lambda t: ["export-hf", str(_ds(t, "other")), str(_run_folder(t) / "hf")],
        "inside the run folder",
    ),
    # input bounds
    Case("validate-deep-json", lambda t: ["validate", str(_deep_items(t))], "nested deeper"),
    Case(
        "run-deep-json",
        lambda t: ["run", str(_deep_items(t)), "--judge", "builtin:first", "--out", str(t / "r")],
        "nested deeper than 64 levels",
    ),
    Case(
        "report-seed-negative",
        lambda t: ["report", str(_run_folder(t)), "--out", str(t / "rep"), "--seed", "-5"],
        "--seed -5: give a whole number 0–",
    ),
    Case(
        "compare-seed-negative",
        lambda t: [
            "compare",
            str(_compare_run(t / "a")),
            str(_compare_run(t / "b")),
            "--seed",
            "-5",
        ],  # fmt: skip
        "--seed -5",
    ),
    Case(
        "run-seed-negative",
        lambda t: [
            "run",
            str(_ds(t)),
            "--judge",
            "builtin:first",
            "--out",
            str(t / "r"),
            "--seed",
            "-5",
        ],  # fmt: skip
        "--seed -5",
    ),
    Case(
        "run-rpm-tiny",
        lambda t: [
            "run",
            str(_ds(t)),
            "--judge",
            "builtin:first",
            "--out",
            str(t / "r"),
            "--rpm",
            "1e-9",
        ],  # fmt: skip
        "--rpm 1e-09 would space calls 6e+10 s apart; give at least 0.1",
    ),
]


def _deep_file(t: Path, name: str, text: str) -> Path:
    (t / name).write_text(text)
    return t / name


URL = "openai:m@http://127.0.0.1:9/v1"  # nothing listens on port 9: a refused spec sends nothing

# The fresh pass (issue 30, new attempts beyond the list), one row each.
FRESH = [
    Case(
        "report-out-is-its-run",
        lambda t: ["report", str(_run_folder(t)), "--out", str(t / "run")],
        "is the command's own input",
    ),
    Case(
        "run-out-inside-another-run",
        lambda t: [
            "run",
            str(_ds(t, "o")),
            "--judge",
            "builtin:first",
            "--out",
            str(_run_folder(t) / "sub"),
        ],  # fmt: skip
        "is inside the run folder",
    ),
    Case(
        "build-out-in-dataset-audio",
        lambda t: ["build", "starter", "--out", str(_ds(t) / "audio" / "x")],
        "is inside the dataset",
    ),
    Case(
        "export-jsonl-into-dataset",
        lambda t: ["annotate-export", str(t / "s.sqlite"), "--jsonl", str(_ds(t) / "a.jsonl")],
        "is inside the dataset",
    ),
    Case(
        "compare-out-calls-sqlite",
        lambda t: [
            "compare",
            str(_compare_run(t / "a")),
            str(_compare_run(t / "b")),
            "--out",
            str(t / "a" / "run" / "calls.sqlite"),
            "--force",
        ],  # fmt: skip
        "is inside the run folder",
    ),
    Case(
        "demo-out-in-dataset-audio",
        lambda t: ["demo", "--out", str(_ds(t) / "audio" / "d")],
        "is inside the dataset",
    ),
    Case(
        "build-voice-dev-zero",
        lambda t: ["build", "starter", "--out", str(t / "x"), "--voice", "/dev/zero"],
        "is a device",
    ),
    Case(
        "spec-cookie",
        lambda t: ["run", str(_ds(t)), "--judge", f"{URL}?Cookie=abcdef", "--out", str(t / "r")],
        "carries a secret (Cookie=…)",
        code=2,
    ),
    Case(
        "spec-client-secret",
        lambda t: [
            "run",
            str(_ds(t)),
            "--judge",
            f"{URL}?client_secret=abcdef",
            "--out",
            str(t / "r"),
        ],  # fmt: skip
        "carries a secret (client_secret=…)",
        code=2,
    ),
    Case(
        "spec-github-token-value",
        lambda t: [
            "run",
            str(_ds(t)),
            "--judge",
            f"{URL}?x=ghp_{'a' * 36}",
            "--out",
            str(t / "r"),
        ],  # fmt: skip
        "carries a secret (x=…)",
        code=2,
    ),
    Case(
        "spec-user-only",
        lambda t: [
            "run",
            str(_ds(t)),
            "--judge",
            "openai:m@http://user@127.0.0.1:9/v1",
            "--out",
            str(t / "r"),
        ],  # fmt: skip
        "user name or password",
        code=2,
    ),
    Case(
        "llm-spec-user-info",
        lambda t: [
            "build",
            "single-turn",
            "--source",
            str(_deep_file(t, "s.jsonl", "{}\n")),
            "--out",
            str(t / "x"),
            "--llm",
            "openai:m@http://u:p@127.0.0.1:9/v1",
        ],  # fmt: skip
        "generator spec 'openai:m@http://…@127.0.0.1:9/v1' carries a user name",
        code=2,
    ),
    Case(
        "tts-spec-api-key",
        lambda t: [
            "build",
            "single-turn",
            "--source",
            str(_deep_file(t, "s.jsonl", "{}\n")),
            "--out",
            str(t / "x"),
            "--llm",
            URL,
            "--tts",
            "openai@http://127.0.0.1:9/v1?api_key=zz",
        ],  # fmt: skip
        "carries a secret (api_key=…)",
        code=2,
    ),
    Case(
        "run-rpm-0.05",
        lambda t: [
            "run",
            str(_ds(t)),
            "--judge",
            "builtin:first",
            "--out",
            str(t / "r"),
            "--rpm",
            "0.05",
        ],  # fmt: skip
        "--rpm 0.05 would space calls 1.2e+03 s apart",
    ),
    Case(
        "spec-tpm-half",
        lambda t: ["run", str(_ds(t)), "--judge", "builtin:first?tpm=0.5", "--out", str(t / "r")],
        "tpm='0.5' is below 1",
        code=2,
    ),
    Case(
        "report-seed-2-40",
        lambda t: ["report", str(_run_folder(t)), "--out", str(t / "rep"), "--seed", str(2**40)],
        "--seed 1099511627776: give a whole number",
    ),
    Case(
        "spec-max-tokens-arabic-digit",
        lambda t: [
            "run",
            str(_ds(t)),
            "--judge",
            f"{URL}?max_tokens=\u0665",
            "--out",
            str(t / "r"),
        ],  # fmt: skip
        "must be written with ASCII digits",
        code=2,
    ),
    Case(
        "spec-top-p-inf",
        lambda t: ["run", str(_ds(t)), "--judge", f"{URL}?top_p=inf", "--out", str(t / "r")],
        "top_p='inf' must be a finite number",
        code=2,
    ),
    Case(
        "results-deep-json",
        lambda t: ["report", str(_deep_results(t)), "--out", str(t / "rep")],
        "not a result row",
    ),
    Case(
        "source-deep-json",
        lambda t: [
            "build",
            "single-turn",
            "--source",
            str(_deep_file(t, "s.jsonl", '{"a": ' + DEEP + "}\n")),
            "--out",
            str(t / "x"),
            "--llm",
            URL,
            "--dry-run",
        ],  # fmt: skip
        "nested too deeply to be a record",
    ),
    Case(
        "prices-deep-json",
        lambda t: [
            "run",
            str(_ds(t)),
            "--judge",
            "builtin:first",
            "--out",
            str(t / "r"),
            "--prices",
            str(_deep_file(t, "p.json", DEEP)),
            "--dry-run",
        ],  # fmt: skip
        "not a price table",
    ),
    Case(
        "prices-fifo",
        lambda t: [
            "run",
            str(_ds(t)),
            "--judge",
            "builtin:first",
            "--out",
            str(t / "r"),
            "--prices",
            str(_fifo(t)),
            "--dry-run",
        ],  # fmt: skip
        "is a FIFO (named pipe); give a regular JSON file",
    ),
    Case(
        "build-min-dnsmos-nan",
        lambda t: [
            "build",
            "single-turn",
            "--source",
            str(write_emocf(t / "e.jsonl")),
            "--out",
            str(t / "x"),
            "--llm",
            URL,
            "--min-dnsmos",
            "nan",
            "--dry-run",
        ],  # fmt: skip
        "--min-dnsmos nan: DNSMOS OVRL scores run from 1 to 5",
    ),
    Case(
        "build-max-tries-huge",
        lambda t: [
            "build",
            "single-turn",
            "--source",
            str(write_emocf(t / "e.jsonl")),
            "--out",
            str(t / "x"),
            "--llm",
            URL,
            "--max-tries",
            "1000000000",
            "--dry-run",
        ],  # fmt: skip
        "--max-tries 1000000000: give 1–100",
    ),
    Case(
        "items-line-9-mib",
        lambda t: ["validate", str(_long_line(t))],
        "line longer than 8 MiB",
    ),
    Case(
        "export-label-newline",
        lambda t: [
            "annotate-export",
            str(t / "s.sqlite"),
            "--run",
            str(t / "h"),
            "--label",
            "a\nb",
        ],
        "is empty or unprintable",
    ),
]


def _fifo(t: Path, name: str = "p.json") -> Path:
    os.mkfifo(t / name)
    return t / name


def _deep_results(t: Path) -> Path:
    run = _run_folder(t)
    (run / "results.jsonl").write_text('{"a": ' + DEEP + "}\n")
    return run


def _long_line(t: Path) -> Path:
    ds = _ds(t)
    items = ds / "items.jsonl"
    items.write_text(items.read_text() + '{"id": "' + "x" * (9 * 2**20) + '"}\n')
    return ds


@pytest.mark.parametrize("case", CASES + FRESH, ids=[c.id for c in CASES + FRESH])
def test_fault(case: Case, tmp_path: Path) -> None:
    args = case.setup(tmp_path)
    before = _snapshot(tmp_path)
    code, out = _invoke(*args)
    _check(code, out, case, args[0], _snapshot(tmp_path) == before)


# -- specs: refused in one line (exit 2), the secret never echoed, nothing sent ---------------

SPEC_CASES = [
    # (id, spec ({url}: the listener, {auth}: its address with user info), expected, secret)
    ("url-user-info", "openai:test-model@http://user:pw-S3CR3T@{host}/v1", "user name or password",
     "pw-S3CR3T"),
    ("authorization-header", "openai:test-model@{url}/v1?Authorization=Bearer%20abcd1234SECRET",
     "carries a secret (Authorization=…)", "abcd1234SECRET"),
    ("access-token", "openai:test-model@{url}/v1?access_token=tok-S3CR3T",
     "carries a secret (access_token=…)", "tok-S3CR3T"),
    ("x-api-key", "openai:test-model@{url}/v1?x-api-key=k-S3CR3T", "x-api-key=…", "k-S3CR3T"),
    ("bearer-value", "openai:test-model@{url}/v1?extra_header=Bearer%20zzzz9999SECRET",
     "carries a secret", "zzzz9999SECRET"),
    ("temperature-nan", "openai:test-model@{url}/v1?temperature=nan",
     "temperature='nan' must be a finite number", None),
    ("seed-arabic-digit", "builtin:random?seed=\u0663", "must be written with ASCII digits", None),
    ("rpm-tiny-spec", "builtin:random?rpm=1e-9", "rpm='1e-9' is below 0.1", None),
]  # fmt: skip


@pytest.mark.parametrize("case", SPEC_CASES, ids=[c[0] for c in SPEC_CASES])
def test_spec_fault(
    case: tuple[str, str, str, str | None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, spec, expect, secret = case
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    ds = _ds(tmp_path)
    with Listener() as srv:
        judge = spec.format(url=srv.url, host=srv.url.removeprefix("http://"))
        args = ["run", str(ds), "--judge", judge, "--out", str(tmp_path / "run"), "--probes", "J"]
        before = _snapshot(tmp_path)
        code, out = _invoke(*args)
        sent = srv.connections()
    lines = [line for line in out.splitlines() if line.strip()]
    assert code == 2 and "Traceback" not in out, out
    assert len(lines) == 1 and lines[0].startswith("error:") and expect in lines[0], out
    assert secret is None or secret not in out, out
    assert sent == 0, "a refused spec made a connection"
    assert _snapshot(tmp_path) == before


def test_seed_digits_are_one_label() -> None:
    """`seed=3` is accepted and labelled as written; `seed=٣` is refused rather than becoming a
    second label for the same judge."""
    from paraudit.judges.spec import parse_judge_spec
    from paraudit.specs import SpecError

    assert parse_judge_spec("builtin:random?seed=3").label == "builtin:random?seed=3"
    with pytest.raises(SpecError):
        parse_judge_spec("builtin:random?seed=\u0663")


def test_output_lock_refuses_a_second_writer(tmp_path: Path) -> None:
    """Two builds into one --out: while one holds the output lock, the second is refused at
    once with the holder's pid, and nothing is written."""
    out = tmp_path / "x"
    with OutputLock(out, "--out"):
        before = _snapshot(tmp_path)
        code, text = _invoke("build", "starter", "--out", str(out), "--limit", "1")
        assert _snapshot(tmp_path) == before
    assert code == 1 and "is being written by another paraudit command (pid" in text, text
    assert not list(tmp_path.iterdir()), "the lock file is removed with the lock"
