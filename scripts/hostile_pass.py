"""The fourth hostile-input pass (issue 30's "fresh pass"): attempts over every subcommand that the
fault suites do not list, each checked for what must never happen.

    .venv/bin/python scripts/hostile_pass.py [--only SUBSTRING] [--markdown FILE]

Each attempt runs the real CLI in process (typer's CliRunner) on fresh copies of a tiny dataset,
a finished run (builtin:first), its report and its card, with a credential in the environment
and in some specs. An attempt FAILS on: a traceback, no answer within 90 s, a changed input
(dataset, run, card: every file hashed before and after), the credential found in the output or
in any file written, or an exit code other than the one the attempt expects (0 for an accepted
input, 1 or 2 with one `error:` line for a refused one). The table it prints is the README's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import queue
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from typer.testing import CliRunner  # noqa: E402

from paraudit.cli.main import app  # noqa: E402
from tests.conftest import make_dataset  # noqa: E402

SECRET = "hostile-plain-secret-5c1e9a"  # no provider key shape: only a literal match finds it
KEY = "sk-hostileKEY1234567890"


@dataclass
class World:
    """Fresh inputs for one attempt."""

    t: Path
    ds: Path
    run: Path
    report: Path
    card: Path

    def file(self, name: str, text: str) -> str:
        p = self.t / name
        p.write_text(text, encoding="utf-8")
        return str(p)

    def copy_ds(self, name: str, edit: Callable[[dict[str, object]], None]) -> str:
        """A copy of the dataset whose dataset.json is edited."""
        out = self.t / name
        shutil.copytree(self.ds, out)
        m = json.loads((out / "dataset.json").read_text())
        edit(m)
        (out / "dataset.json").write_text(json.dumps(m))
        return str(out)

    def items_line(self, name: str, line: str, *, replace: bool = False) -> str:
        out = self.t / name
        shutil.copytree(self.ds, out)
        items = out / "items.jsonl"
        text = line + "\n" if replace else items.read_text() + line + "\n"
        items.write_text(text)
        return str(out)

    def run_copy(self, name: str, edit: Callable[[Path], None]) -> str:
        out = self.t / name
        shutil.copytree(self.run, out)
        edit(out)
        return str(out)

    def card_copy(self, name: str, edit: Callable[[Path], None]) -> str:
        out = self.t / name
        shutil.copytree(self.card, out)
        edit(out)
        return str(out)


@dataclass(frozen=True)
class Attempt:
    name: str
    args: Callable[[World], list[str]]
    expect: str = "refused"
    """'refused' (exit 1 or 2, one error line), 'ok' (exit 0) or 'any' (no traceback etc.)."""


def _deep(n: int) -> str:
    return "[" * n + "]" * n


def _truncate(p: Path) -> None:
    data = (p / "results.jsonl").read_bytes()
    (p / "results.jsonl").write_bytes(data[: len(data) // 2])


def _json_edit(path: Path, edit: Callable[[dict[str, object]], None]) -> None:
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


def _fifo(w: World) -> str:
    p = w.t / "fifo"
    os.mkfifo(p)
    return str(p)


def _gate(*more: str) -> Callable[[World], list[str]]:
    return lambda w: ["gate", str(w.run), *more]


def _plan(*more: str) -> Callable[[World], list[str]]:
    return lambda w: ["plan", *more]


def _run(*more: str) -> Callable[[World], list[str]]:
    return lambda w: ["run", str(w.ds), "--out", str(w.t / "r"), *more]


A = Attempt
ATTEMPTS: list[Attempt] = [
    # gate
    A("gate: empty rule", _gate("--require", "")),
    A("gate: unknown level", _gate("--require", "native>=bogus")),
    A("gate: regression without --baseline", _gate("--require", "regression<=3pp")),
    A(
        "gate: negative regression bound",
        lambda w: ["gate", str(w.run), "--require", "regression<=-3pp", "--baseline", str(w.run)],
    ),  # fmt: skip
    A(
        "gate: NaN regression bound",
        lambda w: ["gate", str(w.run), "--require", "regression<=nanpp", "--baseline", str(w.run)],
    ),  # fmt: skip
    A("gate: unknown judge", _gate("--require", "native>=usable", "--judge", "nope")),
    A("gate: dataset as run", lambda w: ["gate", str(w.ds), "--require", "native>=usable"]),
    A("gate: missing run", lambda w: ["gate", str(w.t / "nope"), "--require", "native>=usable"]),
    A(
        "gate: empty folder",
        lambda w: [
            "gate",
            str(Path(w.t / "e").mkdir() or w.t / "e"),
            "--require",
            "native>=usable",
        ],
    ),  # fmt: skip
    A("gate: shell text in a rule", _gate("--require", "diagnosis=Potemkin;rm -rf ~")),
    A("gate: unicode operator", _gate("--require", "native≥usable")),
    A("gate: replicates 0", _gate("--require", "native>=usable", "--replicates", "0")),
    A("gate: replicates 1e9", _gate("--require", "native>=usable", "--replicates", "1000000000")),
    A(
        "gate: truncated results",
        lambda w: ["gate", w.run_copy("rt", _truncate), "--require", "native>=usable"],
    ),  # fmt: skip
    A(
        "gate: run.json not JSON",
        lambda w: [
            "gate",
            w.run_copy("rj", lambda p: (p / "run.json").write_text("{oops")),
            "--require",
            "native>=usable",
        ],
    ),  # fmt: skip
    A(
        "gate: results.jsonl a FIFO",
        lambda w: [
            "gate",
            w.run_copy(
                "rf", lambda p: ((p / "results.jsonl").unlink(), os.mkfifo(p / "results.jsonl"))
            ),
            "--require",
            "native>=usable",
        ],
    ),  # fmt: skip
    A("gate: no rule at all", lambda w: ["gate", str(w.run)]),
    A(
        "gate: self baseline holds",
        lambda w: ["gate", str(w.run), "--require", "regression<=3pp", "--baseline", str(w.run)],
        "ok",
    ),  # fmt: skip
    A("gate: no-behaviour unknown name", _gate("--require", "no-behaviour=flies")),
    A("gate: 100k-char rule", _gate("--require", "native>=" + "u" * 100_000)),
    # series
    A("series: one run", lambda w: ["series", str(w.run)]),
    A("series: same run twice", lambda w: ["series", str(w.run), str(w.run)]),
    A("series: a dataset among runs", lambda w: ["series", str(w.run), str(w.ds)]),
    A(
        "series: label count mismatch",
        lambda w: ["series", str(w.run), w.run_copy("r2", lambda p: None), "--label", "a"],
    ),  # fmt: skip
    A(
        "series: empty label",
        lambda w: [
            "series",
            str(w.run),
            w.run_copy("r2", lambda p: None),
            "--label",
            "",
            "--label",
            "b",
        ],
    ),  # fmt: skip
    A(
        "series: --items missing",
        lambda w: [
            "series",
            str(w.run),
            w.run_copy("r2", lambda p: None),
            "--items",
            str(w.t / "nope.txt"),
        ],
    ),  # fmt: skip
    A(
        "series: --items empty",
        lambda w: [
            "series",
            str(w.run),
            w.run_copy("r2", lambda p: None),
            "--items",
            w.file("e.txt", ""),
        ],
    ),  # fmt: skip
    A(
        "series: --items /dev/zero",
        lambda w: ["series", str(w.run), w.run_copy("r2", lambda p: None), "--items", "/dev/zero"],
    ),  # fmt: skip
    A(
        "series: --items unknown ids",
        lambda w: [
            "series",
            str(w.run),
            w.run_copy("r2", lambda p: None),
            "--items",
            w.file("i.txt", "nope-1\nnope-2\n"),
        ],
    ),  # fmt: skip
    A(
        "series: --out inside a run",
        lambda w: [
            "series",
            str(w.run),
            w.run_copy("r2", lambda p: None),
            "--out",
            str(w.run / "s"),
        ],
    ),  # fmt: skip
    A(
        "series: --out inside a dataset",
        lambda w: [
            "series",
            str(w.run),
            w.run_copy("r2", lambda p: None),
            "--out",
            str(w.ds / "s"),
        ],
    ),  # fmt: skip
    A(
        "series: --out on a run",
        lambda w: ["series", str(w.run), w.run_copy("r2", lambda p: None), "--out", str(w.run)],
    ),  # fmt: skip
    A(
        "series: --out a file",
        lambda w: [
            "series",
            str(w.run),
            w.run_copy("r2", lambda p: None),
            "--out",
            w.file("f.txt", "mine"),
        ],
    ),  # fmt: skip
    A(
        "series: replicates 50",
        lambda w: ["series", str(w.run), w.run_copy("r2", lambda p: None), "--replicates", "50"],
    ),  # fmt: skip
    A(
        "series: two copies",
        lambda w: ["series", str(w.run), w.run_copy("r2", lambda p: None)],
        "ok",
    ),  # fmt: skip
    # plan
    A("plan: unknown kind", _plan("bogus")),
    A("plan: accuracy below chance", _plan("chance", "--accuracy", "0.4")),
    A("plan: accuracy 1.5", _plan("chance", "--accuracy", "1.5")),
    A("plan: accuracy nan", _plan("chance", "--accuracy", "nan")),
    A("plan: power 1", _plan("chance", "--accuracy", "0.7", "--power", "1")),
    A("plan: power 0", _plan("chance", "--accuracy", "0.7", "--power", "0")),
    A("plan: alpha 0", _plan("chance", "--accuracy", "0.7", "--alpha", "0")),
    A("plan: alpha 1", _plan("chance", "--accuracy", "0.7", "--alpha", "1")),
    A("plan: equal discordance", _plan("regression", "--p10", "0.3", "--p01", "0.3")),
    A("plan: discordance over 1", _plan("regression", "--p10", "0.7", "--p01", "0.5")),
    A("plan: negative share", _plan("regression", "--p10", "-0.1", "--p01", "0.2")),
    A("plan: dataset as pilot", lambda w: ["plan", "chance", "--pilot", str(w.ds)]),
    A("plan: missing pilot", lambda w: ["plan", "chance", "--pilot", str(w.t / "nope")]),
    A(
        "plan: pilot unknown judge",
        lambda w: ["plan", "chance", "--pilot", str(w.run), "--judge", "nope"],
    ),  # fmt: skip
    A(
        "plan: prices /dev/zero",
        lambda w: [
            "plan",
            "chance",
            "--accuracy",
            "0.7",
            "--pilot",
            str(w.run),
            "--price-judge",
            "openai:gpt-4o",
            "--prices",
            "/dev/zero",
        ],
    ),  # fmt: skip
    A(
        "plan: prices not JSON",
        lambda w: [
            "plan",
            "chance",
            "--accuracy",
            "0.7",
            "--pilot",
            str(w.run),
            "--price-judge",
            "openai:gpt-4o",
            "--prices",
            w.file("p.json", "{"),
        ],
    ),
    A("plan: per-item 0", _plan("chance", "--accuracy", "0.7", "--per-item", "0")),
    A("plan: icc -0.5", _plan("chance", "--accuracy", "0.7", "--icc", "-0.5")),
    A("plan: icc 2", _plan("chance", "--accuracy", "0.7", "--icc", "2")),
    A("plan: at 0", _plan("chance", "--accuracy", "0.7", "--at", "0")),
    A("plan: at 10^12", _plan("chance", "--accuracy", "0.7", "--at", "1000000000000"), "any"),
    A(
        "plan: calls-per-item inf",
        lambda w: [
            "plan",
            "chance",
            "--accuracy",
            "0.7",
            "--pilot",
            str(w.run),
            "--calls-per-item",
            "inf",
        ],
    ),  # fmt: skip
    A(
        "plan: price judge with user info",
        lambda w: [
            "plan",
            "chance",
            "--accuracy",
            "0.7",
            "--pilot",
            str(w.run),
            "--price-judge",
            f"openai:m@http://u:{SECRET}@127.0.0.1:9/v1",
        ],
    ),  # fmt: skip
    A("plan: chance 1", _plan("chance", "--accuracy", "0.9", "--chance", "1")),
    A("plan: a valid chance plan", _plan("chance", "--accuracy", "0.7"), "ok"),
    # verify
    A(
        "verify: card.json tampered",
        lambda w: [
            "verify",
            w.card_copy("c1", lambda p: _json_edit(p / "card.json", lambda d: d.update(extra=1))),
        ],
    ),  # fmt: skip
    A(
        "verify: card.json deleted",
        lambda w: ["verify", w.card_copy("c2", lambda p: (p / "card.json").unlink())],
    ),  # fmt: skip
    A("verify: a run folder as card", lambda w: ["verify", str(w.run)]),
    A("verify: dataset as card", lambda w: ["verify", str(w.ds)]),
    A(
        "verify: missing public key",
        lambda w: ["verify", str(w.card), "--public-key", str(w.t / "k.pub")],
    ),  # fmt: skip
    A(
        "verify: public key /dev/zero",
        lambda w: ["verify", str(w.card), "--public-key", "/dev/zero"],
    ),  # fmt: skip
    A(
        "verify: card.json 100k deep",
        lambda w: [
            "verify",
            w.card_copy("c3", lambda p: (p / "card.json").write_text(_deep(100_000))),
        ],
    ),  # fmt: skip
    A(
        "verify: card.json a FIFO",
        lambda w: [
            "verify",
            w.card_copy("c4", lambda p: ((p / "card.json").unlink(), os.mkfifo(p / "card.json"))),
        ],
    ),  # fmt: skip
    A("verify: the intact card", lambda w: ["verify", str(w.card)], "ok"),
    A(
        "verify: card against a changed run",
        lambda w: [
            "verify",
            str(w.card),
            w.run_copy(
                "r3",
                lambda p: (p / "results.jsonl").write_bytes(
                    (p / "results.jsonl").read_bytes().replace(b'"ok"', b'"error"', 1)
                ),
            ),
        ],
    ),  # fmt: skip
    # card
    A("card: --out the run", lambda w: ["card", str(w.run), "--out", str(w.run)]),
    A(
        "card: --out inside the dataset",
        lambda w: ["card", str(w.run), "--out", str(w.ds / "card")],
    ),  # fmt: skip
    A(
        "card: --out a foreign folder",
        lambda w: ["card", str(w.run), "--out", str(Path(w.file("notes.txt", "x")).parent)],
    ),  # fmt: skip
    A("card: --out a file", lambda w: ["card", str(w.run), "--out", w.file("f", "x")]),
    A(
        "card: bad relationship",
        lambda w: ["card", str(w.run), "--out", str(w.t / "c"), "--relationship", "bogus"],
    ),  # fmt: skip
    A(
        "card: empty organization",
        lambda w: ["card", str(w.run), "--out", str(w.t / "c"), "--organization", ""],
    ),  # fmt: skip
    A(
        "card: markup in organization",
        lambda w: [
            "card",
            str(w.run),
            "--out",
            str(w.t / "c"),
            "--organization",
            "[bold]x[/] :smile:",
        ],
        "ok",
    ),  # fmt: skip
    A(
        "card: bad hub id",
        lambda w: ["card", str(w.run), "--out", str(w.t / "c"), "--hf-dataset", "not a hub id"],
    ),  # fmt: skip
    A(
        "card: missing signing key",
        lambda w: ["card", str(w.run), "--out", str(w.t / "c"), "--sign", str(w.t / "k.pem")],
    ),  # fmt: skip
    A(
        "card: signing key /dev/zero",
        lambda w: ["card", str(w.run), "--out", str(w.t / "c"), "--sign", "/dev/zero"],
    ),  # fmt: skip
    A(
        "card: signing key not a key",
        lambda w: ["card", str(w.run), "--out", str(w.t / "c"), "--sign", w.file("k.pem", "hello")],
    ),  # fmt: skip
    A(
        "card: truncated run",
        lambda w: ["card", w.run_copy("rt", _truncate), "--out", str(w.t / "c")],
    ),  # fmt: skip
    A(
        "card: replicates 10",
        lambda w: ["card", str(w.run), "--out", str(w.t / "c"), "--replicates", "10"],
    ),  # fmt: skip
    A(
        "card: emoji code in --out",
        lambda w: ["card", str(w.run), "--out", str(w.t / ":smile:card")],
        "ok",
    ),  # fmt: skip
    A(
        "card: another dataset",
        lambda w: [
            "card",
            str(w.run),
            "--out",
            str(w.t / "c"),
            "--dataset",
            w.copy_ds("d2", lambda m: m.update(name="other")),
        ],
    ),  # fmt: skip
    # dimensions and dimension builds
    A("dimensions: unknown", lambda w: ["dimensions", "bogus"]),
    A("dimensions: upper case", lambda w: ["dimensions", "EMOTION"], "any"),
    A("dimensions: empty name", lambda w: ["dimensions", ""]),
    A("dimensions: list", lambda w: ["dimensions"], "ok"),
    A(
        "build: unknown dimension",
        lambda w: ["build", "starter", "--dimension", "bogus", "--out", str(w.t / "b")],
    ),  # fmt: skip
    A(
        "build: empty dimension",
        lambda w: ["build", "starter", "--dimension", "", "--out", str(w.t / "b")],
    ),  # fmt: skip
    A(
        "build: two dimensions",
        lambda w: ["build", "starter", "--dimension", "emotion,urgency", "--out", str(w.t / "b")],
    ),  # fmt: skip
    A(
        "build: dimension --limit 0",
        lambda w: [
            "build",
            "starter",
            "--dimension",
            "emphasis",
            "--limit",
            "0",
            "--out",
            str(w.t / "b"),
        ],
    ),  # fmt: skip
    A(
        "build: dimension --limit -1",
        lambda w: [
            "build",
            "starter",
            "--dimension",
            "emphasis",
            "--limit",
            "-1",
            "--out",
            str(w.t / "b"),
        ],
    ),  # fmt: skip
    A(
        "build: dimension --out the dataset",
        lambda w: ["build", "starter", "--dimension", "whisper", "--out", str(w.ds)],
    ),  # fmt: skip
    A(
        "build: dimension unknown voice",
        lambda w: [
            "build",
            "starter",
            "--dimension",
            "urgency",
            "--voice",
            str(w.t / "nope.onnx"),
            "--out",
            str(w.t / "b"),
        ],
    ),  # fmt: skip
    # validate: dimension and taxonomy data
    A(
        "validate: unknown dimension",
        lambda w: ["validate", w.copy_ds("d", lambda m: m.update(dimension="bogus"))],
    ),  # fmt: skip
    A(
        "validate: unknown taxonomy",
        lambda w: ["validate", w.copy_ds("d", lambda m: m.update(taxonomy="bogus"))],
    ),  # fmt: skip
    A(
        "validate: label_map to unknown",
        lambda w: ["validate", w.copy_ds("d", lambda m: m.update(label_map={"angry": "furious"}))],
    ),  # fmt: skip
    A(
        "validate: label_map not an object",
        lambda w: ["validate", w.copy_ds("d", lambda m: m.update(label_map=["angry"]))],
    ),  # fmt: skip
    A("validate: dataset.json 100k deep", lambda w: ["validate", _deep_manifest(w)]),
    A("validate: NaN in dataset.json", lambda w: ["validate", _nan_manifest(w)]),
    A("validate: duplicate item ids", lambda w: ["validate", _dup_items(w)]),
    A("validate: BOM in items.jsonl", lambda w: ["validate", _bom_items(w)], "any"),
    A(
        "validate: empty items.jsonl", lambda w: ["validate", w.items_line("d", "", replace=True)]
    ),  # fmt: skip
    A(
        "validate: schema version 999",
        lambda w: ["validate", w.copy_ds("d", lambda m: m.update(schema_version=999))],
    ),  # fmt: skip
    A(
        "validate: a 5 MB item line",
        lambda w: ["validate", w.items_line("d", json.dumps({"id": "x" * 5_000_000}))],
    ),  # fmt: skip
    A(
        "validate: dimension mixed in a task",
        lambda w: ["validate", w.copy_ds("d", lambda m: m.update(dimension="urgency"))],
    ),  # fmt: skip
    # run
    A("run: seed 1e400", _run("--judge", "builtin:random?seed=1e400")),
    A("run: samples 0", _run("--judge", "builtin:random?samples=0")),
    A("run: samples 10^6", _run("--judge", "builtin:random?samples=1000000")),
    A("run: unknown built-in", _run("--judge", "builtin:nope")),
    A(
        "run: ties preset with R1/R2 labels",
        _run("--judge", "builtin:random?constrain=labels", "--prompts", "ties"),
    ),  # fmt: skip
    A("run: unknown prompt preset", _run("--judge", "builtin:random", "--prompts", "bogus")),
    A("run: unknown parse preset", _run("--judge", "builtin:random", "--parse", "bogus")),
    A("run: parse retries -1", _run("--judge", "builtin:random", "--parse-retries", "-1")),
    A("run: probe twice", _run("--judge", "builtin:random", "--probes", "J,J"), "any"),
    A("run: empty probes", _run("--judge", "builtin:random", "--probes", "")),
    A("run: unknown protocol", _run("--judge", "builtin:random", "--protocols", "bogus")),
    A(
        "run: --out inside the dataset",
        lambda w: ["run", str(w.ds), "--judge", "builtin:random", "--out", str(w.ds / "r")],
    ),  # fmt: skip
    A(
        "run: --out the card",
        lambda w: ["run", str(w.ds), "--judge", "builtin:random", "--out", str(w.card)],
    ),  # fmt: skip
    A(
        "run: api_key in the spec",
        _run("--judge", f"openai:m@http://127.0.0.1:9/v1?api_key={SECRET}"),
    ),  # fmt: skip
    A(
        "run: key-shaped option value",
        _run("--judge", f"openai:m@http://127.0.0.1:9/v1?x_custom={KEY}"),
    ),  # fmt: skip
    A("run: file URL", _run("--judge", "openai:m@file:///etc/passwd")),
    A("run: unclosed IPv6 URL", _run("--judge", "openai:m@http://[::1/v1")),
    A("run: empty model", _run("--judge", "gemini:")),
    A(
        "run: 10k-char model name",
        _run("--judge", "openai:" + "m" * 10_000 + "@http://127.0.0.1:9/v1", "--dry-run"),
        "any",
    ),  # fmt: skip
    A("run: hf path traversal", _run("--judge", "hf:../../etc", "--dry-run"), "any"),
    A("run: concurrency 0", _run("--judge", "builtin:random", "--concurrency", "0")),
    A("run: concurrency 10^6", _run("--judge", "builtin:random", "--concurrency", "1000000")),
    A("run: rpm nan", _run("--judge", "builtin:random", "--rpm", "nan")),
    A("run: max attempts 0", _run("--judge", "builtin:random", "--max-attempts", "0")),
    A(
        "run: dry-run prices /dev/zero",
        _run("--judge", "openai:gpt-4o-audio-preview", "--dry-run", "--prices", "/dev/zero"),
    ),  # fmt: skip
    A(
        "run: a run folder as dataset",
        lambda w: ["run", str(w.run), "--judge", "builtin:random", "--out", str(w.t / "r")],
    ),  # fmt: skip
    A(
        "run: misleading cue on a tiny set",
        _run("--judge", "builtin:random", "--cues", "none,misleading", "--probes", "J"),
        "any",
    ),  # fmt: skip
    A("run: unknown cue", _run("--judge", "builtin:random", "--cues", "sneaky")),
    A("run: a valid tiny run", _run("--judge", "builtin:random", "--probes", "J"), "ok"),
    # report and compare
    A(
        "report: --out inside the run", lambda w: ["report", str(w.run), "--out", str(w.run / "x")]
    ),  # fmt: skip
    A("report: a dataset as run", lambda w: ["report", str(w.ds), "--out", str(w.t / "x")]),
    A(
        "report: two labels one run",
        lambda w: ["report", str(w.run), "--out", str(w.t / "x"), "--label", "a", "--label", "b"],
    ),  # fmt: skip
    A(
        "report: same run twice",
        lambda w: ["report", str(w.run), str(w.run), "--out", str(w.t / "x")],
    ),  # fmt: skip
    A("report: --out the card", lambda w: ["report", str(w.run), "--out", str(w.card)]),
    A(
        "report: NaN in a result row",
        lambda w: [
            "report",
            w.run_copy(
                "rn",
                lambda p: (p / "results.jsonl").write_bytes(
                    (p / "results.jsonl")
                    .read_bytes()
                    .replace(b'"correct": true', b'"correct": NaN', 1)
                ),
            ),
            "--out",
            str(w.t / "x"),
        ],
        "any",
    ),
    A(
        "report: seed -1", lambda w: ["report", str(w.run), "--out", str(w.t / "x"), "--seed", "-1"]
    ),  # fmt: skip
    A("compare: run with itself", lambda w: ["compare", str(w.run), str(w.run)]),
    A("compare: a dataset", lambda w: ["compare", str(w.run), str(w.ds)]),
    A(
        "compare: pair with two =",
        lambda w: ["compare", str(w.run), w.run_copy("r2", lambda p: None), "--judge", "a=b=c"],
    ),  # fmt: skip
    A(
        "compare: pair without =",
        lambda w: [
            "compare",
            str(w.run),
            w.run_copy("r2", lambda p: None),
            "--judge",
            "builtin:first",
        ],
    ),  # fmt: skip
    A(
        "compare: replicates 1",
        lambda w: ["compare", str(w.run), w.run_copy("r2", lambda p: None), "--replicates", "1"],
    ),  # fmt: skip
    # annotate family (no server is started: each is refused before serving)
    A(
        "annotate: empty annotators",
        lambda w: ["annotate", str(w.ds), "--store", str(w.t / "s.sqlite"), "--annotators", ""],
    ),  # fmt: skip
    A(
        "annotate: per-annotator 0",
        lambda w: [
            "annotate",
            str(w.ds),
            "--store",
            str(w.t / "s.sqlite"),
            "--annotators",
            "a",
            "--per-annotator",
            "0",
        ],
    ),  # fmt: skip
    A(
        "annotate: port 99999",
        lambda w: [
            "annotate",
            str(w.ds),
            "--store",
            str(w.t / "s.sqlite"),
            "--annotators",
            "a",
            "--port",
            "99999",
        ],
    ),  # fmt: skip
    A(
        "annotate: port -1",
        lambda w: [
            "annotate",
            str(w.ds),
            "--store",
            str(w.t / "s.sqlite"),
            "--annotators",
            "a",
            "--port",
            "-1",
        ],
    ),  # fmt: skip
    A(
        "annotate: store inside dataset",
        lambda w: ["annotate", str(w.ds), "--store", str(w.ds / "s.sqlite"), "--annotators", "a"],
    ),  # fmt: skip
    A(
        "annotate-simulate: skill 2",
        lambda w: [
            "annotate-simulate",
            str(w.ds),
            "--store",
            str(w.t / "s.sqlite"),
            "--skill",
            "2",
        ],
    ),  # fmt: skip
    A(
        "annotate-simulate: annotators -1",
        lambda w: [
            "annotate-simulate",
            str(w.ds),
            "--store",
            str(w.t / "s.sqlite"),
            "--annotators",
            "-1",
        ],
    ),  # fmt: skip
    A("annotate-stats: not SQLite", lambda w: ["annotate-stats", w.file("s.sqlite", "hello")]),
    A("annotate-stats: a dataset", lambda w: ["annotate-stats", str(w.ds)]),
    A("annotate-stats: missing store", lambda w: ["annotate-stats", str(w.t / "nope.sqlite")]),
    A(
        "annotate-export: not SQLite",
        lambda w: ["annotate-export", w.file("s.sqlite", "x"), "--csv", str(w.t / "o.csv")],
    ),  # fmt: skip
    # datasets on the Hub format
    A(
        "import-hf: a dataset, not an export", lambda w: ["import-hf", str(w.ds), str(w.t / "back")]
    ),  # fmt: skip
    A("export-hf: into the dataset", lambda w: ["export-hf", str(w.ds), str(w.ds / "hf")]),
    A(
        "export-hf: emoji code in OUT",
        lambda w: ["export-hf", str(w.ds), str(w.t / ":smile:")],
        "ok",
    ),  # fmt: skip
    # demo, judges
    A(
        "demo: unknown dimension",
        lambda w: ["demo", "--dimension", "bogus", "--out", str(w.t / "d")],
    ),  # fmt: skip
    A("demo: --out the dataset", lambda w: ["demo", "--out", str(w.ds)]),
    A("demo: --out the run", lambda w: ["demo", "--out", str(w.run)]),
    A("judges: unknown engine", lambda w: ["judges", "--engine", "bogus"]),
    A("judges: list", lambda w: ["judges"], "ok"),
]


def _deep_manifest(w: World) -> str:
    out = w.t / "deep"
    shutil.copytree(w.ds, out)
    (out / "dataset.json").write_text(_deep(100_000))
    return str(out)


def _nan_manifest(w: World) -> str:
    out = w.t / "nan"
    shutil.copytree(w.ds, out)
    text = (out / "dataset.json").read_text()
    (out / "dataset.json").write_text(text[:-1].rstrip().rstrip("}") + ', "x": NaN}')
    return str(out)


def _dup_items(w: World) -> str:
    out = w.t / "dup"
    shutil.copytree(w.ds, out)
    first = (out / "items.jsonl").read_text().splitlines()[0]
    with (out / "items.jsonl").open("a") as f:
        f.write(first + "\n")
    return str(out)


def _bom_items(w: World) -> str:
    out = w.t / "bom"
    shutil.copytree(w.ds, out)
    items = out / "items.jsonl"
    items.write_bytes(b"\xef\xbb\xbf" + items.read_bytes())
    return str(out)


def _hashes(root: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        if p.is_symlink() or p.is_fifo() or not p.is_file():
            continue
        found[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return found


def _base(tmp: Path) -> World:
    cli = CliRunner()
    make_dataset(tmp / "ds", tmp / "src", positional=True)
    r = cli.invoke(app, ["run", str(tmp / "ds"), "--judge", "builtin:first", "--out",
                         str(tmp / "run")])  # fmt: skip
    assert r.exit_code == 0, r.output
    r = cli.invoke(app, ["report", str(tmp / "run"), "--out", str(tmp / "report"),
                         "--replicates", "200"])  # fmt: skip
    assert r.exit_code == 0, r.output
    r = cli.invoke(app, ["card", str(tmp / "run"), "--out", str(tmp / "card"), "--replicates",
                         "200"])  # fmt: skip
    assert r.exit_code == 0, r.output
    return World(tmp, tmp / "ds", tmp / "run", tmp / "report", tmp / "card")


def attempt(base: World, a: Attempt) -> tuple[str, str]:
    """(outcome, what was seen) for one attempt on a fresh copy of the base world."""
    with tempfile.TemporaryDirectory(prefix="hostile-") as d:
        t = Path(d)
        for name in ("ds", "run", "report", "card"):
            shutil.copytree(base.t / name, t / name)
        w = World(t, t / "ds", t / "run", t / "report", t / "card")
        args = a.args(w)
        inputs = {name: _hashes(t / name) for name in ("ds", "run", "card")}
        r = CliRunner().invoke(app, args)
        output, code, exc = r.output, r.exit_code, r.exception
        if exc is not None and not isinstance(exc, SystemExit):
            return "FAIL", f"traceback: {type(exc).__name__}: {str(exc)[:120]}"
        if "Traceback" in output:
            return "FAIL", "traceback printed"
        changed = [n for n, h in inputs.items() if _hashes(t / n) != h]
        if changed:
            return "FAIL", f"input changed: {', '.join(changed)}"
        for p in t.rglob("*"):
            if p.is_file() and not p.is_symlink() and not p.is_fifo():
                data = p.read_bytes()
                if SECRET.encode() in data or KEY.encode() in data:
                    return "FAIL", f"credential written to {p.relative_to(t)}"
        if SECRET in output or KEY in output:
            return "FAIL", "credential printed"
        lines = [line for line in output.splitlines() if line.strip()]
        first = lines[0] if lines else ""
        shown = (first if code == 0 else next(
            (line for line in lines if line.startswith("error:")), first))[:140]  # fmt: skip
        if a.expect == "ok" and code != 0:
            return "FAIL", f"exit {code}: {shown}"
        if a.expect == "refused":
            if code == 0:
                return "FAIL", f"accepted (exit 0): {shown}"
            errors = [line for line in lines if line.startswith(("error:", "mismatch:"))]
            usage = code == 2 and output.startswith("Usage:")  # typer's own check of a flag
            if code not in (1, 2) or (len(errors) != 1 and not usage):
                return "FAIL", f"exit {code}, {len(errors)} error lines: {shown}"
        return "pass", f"exit {code}: {shown}"


def _child(base: World, a: Attempt, q: multiprocessing.Queue[tuple[str, str]]) -> None:
    q.put(attempt(base, a))


def _bounded(base: World, a: Attempt, limit_s: float = 90.0) -> tuple[str, str]:
    """One attempt in a forked child, killed past `limit_s`: a read that never ends (a device)
    sits in C code where no alarm reaches it."""
    ctx = multiprocessing.get_context("fork")
    q: multiprocessing.Queue[tuple[str, str]] = ctx.Queue()
    p = ctx.Process(target=_child, args=(base, a, q))
    p.start()
    try:
        return q.get(timeout=limit_s)
    except queue.Empty:
        return "FAIL", f"no answer within {limit_s:.0f} s"
    finally:
        if p.is_alive():
            p.kill()
        p.join()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="Run the attempts whose name holds this.")
    ap.add_argument("--markdown", type=Path, help="Also write the table to this file.")
    ns = ap.parse_args()
    os.environ["OPENAI_API_KEY"] = KEY
    os.environ["PARAUDIT_HOSTILE_SECRET"] = SECRET
    rows: list[str] = ["| # | attempt | outcome | what it said |", "|---|---|---|---|"]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="hostile-base-") as d:
        base = _base(Path(d))
        chosen = [a for a in ATTEMPTS if ns.only in a.name]
        for n, a in enumerate(chosen, 1):
            outcome, seen = _bounded(base, a)
            failed += outcome == "FAIL"
            cell = seen.replace("|", "\\|").replace("\n", " ")
            rows.append(f"| {n} | {a.name} | {outcome} | {cell} |")
            print(f"{n:3d}/{len(chosen)} {outcome:4s} {a.name}: {seen}", flush=True)
    print(f"{len(chosen) - failed} passed, {failed} failed")
    if ns.markdown:
        ns.markdown.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
