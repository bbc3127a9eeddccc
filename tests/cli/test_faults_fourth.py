"""Fault injection, the fourth hostile pass (issue 30's fresh pass, `scripts/hostile_pass.py`):
each attempt that failed there is a row here, through the CLI as a user runs it, with the
invariants every fault row shares: exit 1 or 2, one `error:` line naming the problem and the
fix, no traceback, the inputs unchanged.

Rows: gate / series / card with 10^9 bootstrap replicates (ran for ever: typer checked only the
minimum) · series with an empty --label (accepted: the run was named nowhere) · series --items
/dev/zero or a FIFO (read for ever) · gate and series on a run whose run.json is damaged
(gated anyway, while report and card refuse it) · verify of a card whose card.json or card.md
was edited (verified) · verify --public-key on an unsigned card (verified), a key or card.json that
is a device, a FIFO or 100,000 deep · card with an empty --organization or a free-text
--hf-dataset · plan --per-item 0 (read as 1), --calls-per-item inf (a traceback) · report --out
an audit card folder (its summary rewritten) · run --concurrency 1000000 (accepted).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_faults import _compare_run, _invoke, _snapshot


def _refused(tmp_path: Path, *args: str, expect: str) -> None:
    before = _snapshot(tmp_path)
    code, out = _invoke(*args)
    lines = [line for line in out.splitlines() if line.strip()]
    assert code in (1, 2) and "Traceback" not in out, out
    assert len(lines) == 1 and lines[0].startswith("error:") and expect in lines[0], out
    assert _snapshot(tmp_path) == before


def _two_runs(tmp_path: Path) -> tuple[Path, Path]:
    run = _compare_run(tmp_path)
    other = tmp_path / "run2"
    shutil.copytree(run, other)
    return run, other


@pytest.mark.parametrize("command", ["gate", "series", "card"])
def test_replicates_beyond_the_bound_are_refused(tmp_path: Path, command: str) -> None:
    run, other = _two_runs(tmp_path)
    args = {
        "gate": ["gate", str(run), "--require", "native>=usable"],
        "series": ["series", str(run), str(other)],
        "card": ["card", str(run), "--out", str(tmp_path / "card")],
    }[command]
    _refused(tmp_path, *args, "--replicates", "1000000000", expect="give 100–100,000")


def test_series_refuses_an_empty_label(tmp_path: Path) -> None:
    run, other = _two_runs(tmp_path)
    _refused(tmp_path, "series", str(run), str(other), "--label", "", "--label", "b",
             expect="--label number 1 is empty")  # fmt: skip


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_series_items_that_never_end_are_refused_before_reading(tmp_path: Path, kind: str) -> None:
    run, other = _two_runs(tmp_path)
    if kind == "fifo":
        items = tmp_path / "ids"
        os.mkfifo(items)
    else:
        items = Path("/dev/zero")
    expect = "is a FIFO" if kind == "fifo" else "is a device"
    _refused(tmp_path, "series", str(run), str(other), "--items", str(items), expect=expect)


@pytest.mark.parametrize("command", ["gate", "series"])
def test_a_damaged_run_json_is_refused(tmp_path: Path, command: str) -> None:
    run, other = _two_runs(tmp_path)
    (other / "run.json").write_text("{oops", encoding="utf-8")
    args = {
        "gate": ["gate", str(other), "--require", "native>=usable"],
        "series": ["series", str(run), str(other)],
    }[command]
    _refused(tmp_path, *args, expect="run.json is unreadable")


def _card(tmp_path: Path) -> tuple[Path, Path]:
    run = _compare_run(tmp_path)
    code, out = _invoke("card", str(run), "--out", str(tmp_path / "card"), "--replicates", "200")
    assert code == 0, out
    return run, tmp_path / "card"


def _mismatch(card: Path, run: Path, *more: str) -> str:
    code, out = _invoke("verify", str(card), str(run), *more)
    lines = [line for line in out.splitlines() if line.strip()]
    assert code == 1 and len(lines) == 1 and lines[0].startswith("mismatch:"), out
    return lines[0]


def test_verify_names_a_card_whose_verdict_was_edited(tmp_path: Path) -> None:
    """Every digest still holds, but card.json now says something summary.json does not (it
    passed as 'verified'); card.md edited alone is named too."""

    run, card = _card(tmp_path)
    assert _invoke("verify", str(card), str(run))[0] == 0
    data = json.loads((card / "card.json").read_text())
    original = (card / "card.json").read_text()
    data["verdicts"][0]["diagnosis"] = "reliable"
    (card / "card.json").write_text(json.dumps(data))
    assert "verdicts differ from a card made afresh from the run" in _mismatch(card, run)
    data = json.loads(original)
    data["extra"] = 1  # a claim no paraudit card makes
    (card / "card.json").write_text(json.dumps(data))
    assert "extra differ from a card made afresh" in _mismatch(card, run)
    (card / "card.json").write_text(original)
    md = (card / "card.md").read_text()
    (card / "card.md").write_text(md.replace("position-biased", "reliable"))
    assert "card.md: differs from what card.json says" in _mismatch(card, run)


def test_verify_with_a_public_key_fails_an_unsigned_card(tmp_path: Path) -> None:
    """Asked to check a signature, a hash-only card (or one whose signature was stripped) fails
    instead of passing as verified; a key that is a device is refused before reading."""
    run, card = _card(tmp_path)
    (tmp_path / "k.pub").write_text("-----BEGIN PUBLIC KEY-----\n")
    line = _mismatch(card, run, "--public-key", str(tmp_path / "k.pub"))
    assert "not signed, but --public-key asks for its signature" in line
    _refused(tmp_path, "verify", str(card), str(run), "--public-key", "/dev/zero",
             expect="--public-key /dev/zero: is a device")  # fmt: skip


@pytest.mark.parametrize(
    ("flags", "expect"),
    [
        (["--per-item", "0"], "--per-item 0: give 1 or more"),
        (["--calls-per-item", "inf"], "--calls-per-item inf: give a finite number"),
    ],
)
def test_plan_refuses_counts_that_mean_nothing(
    tmp_path: Path, flags: list[str], expect: str
) -> None:
    """--per-item 0 was read as 1 (an answer to a question nobody asked); an infinite number
    of calls per item was a traceback (OverflowError)."""
    _refused(tmp_path, "plan", "chance", "--accuracy", "0.7", *flags, expect=expect)


@pytest.mark.parametrize("kind", ["fifo", "deep"])
def test_verify_refuses_a_card_json_that_is_no_card(tmp_path: Path, kind: str) -> None:
    """A card.json that is a FIFO read for ever; one nested 100,000 deep was a traceback
    (RecursionError)."""
    run, card = _card(tmp_path)
    (card / "card.json").unlink()
    if kind == "fifo":
        os.mkfifo(card / "card.json")
        expect = "is a FIFO (named pipe), not an audit card"
    else:
        (card / "card.json").write_text("[" * 100_000 + "]" * 100_000)
        expect = "nested deeper than 64 levels"
    _refused(tmp_path, "verify", str(card), str(run), expect=expect)


@pytest.mark.parametrize(
    ("flags", "expect"),
    [
        (["--organization", ""], "--organization '' is empty"),
        (["--organization", "a\\nb".replace("\\n", "\n")], "is empty or unprintable"),
        (["--hf-dataset", "not a hub id"], "is not a Hub dataset id"),
        (["--hf-dataset", "org/../x"], "is not a Hub dataset id"),
    ],
)
def test_card_refuses_names_no_reader_can_use(
    tmp_path: Path, flags: list[str], expect: str
) -> None:
    """An empty publisher and a free-text Hub id were written into every record of the card."""
    run = _compare_run(tmp_path)
    _refused(tmp_path, "card", str(run), "--out", str(tmp_path / "card"), *flags, expect=expect)


def test_report_refuses_an_audit_card_folder(tmp_path: Path) -> None:
    """A card folder holds a summary.json, so `report --out CARD` took it for an earlier report
    and rewrote its summary: the card no longer verified."""
    run, card = _card(tmp_path)
    _refused(tmp_path, "report", str(run), "--out", str(card), expect="is an audit card")
    assert _invoke("verify", str(card), str(run))[0] == 0


def test_run_bounds_concurrency(tmp_path: Path) -> None:
    """--concurrency 1000000 was accepted: a million calls in flight at one provider."""
    from tests.cli.test_faults import _ds

    ds = _ds(tmp_path)
    before = _snapshot(tmp_path)
    code, out = _invoke("run", str(ds), "--judge", "builtin:random", "--out",
                        str(tmp_path / "r"), "--concurrency", "1000000")  # fmt: skip
    assert code == 2 and "--concurrency" in out and "4096" in out, out
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("edit", "expect"),
    [
        (lambda d: d.pop("run"), "not a complete audit card (run.path missing"),
        (lambda d: d.pop("created"), "(created missing or not a str)"),
        (lambda d: d.update(signature="x"), "(signature must be an object)"),
        (lambda d: d.update(subjects=[]), "(subjects missing or not a dict)"),
        (lambda d: d["summary"].pop("seed"), "(summary.seed missing or not a int)"),
        (lambda d: d["summary"].update(replicates=10**9), "summary.replicates 1000000000 is"),
    ],
)
def test_verify_refuses_a_card_json_missing_what_it_reads(
    tmp_path: Path, edit: Callable[[dict[str, Any]], object], expect: str
) -> None:
    """A card.json with its schema line but a field verify reads missing or of the wrong type
    was a traceback (KeyError, AttributeError); replicates edited to 10^9 recomputed for ever
    (the card's own figure, bounded as --replicates is)."""
    run, card = _card(tmp_path)
    data = json.loads((card / "card.json").read_text())
    edit(data)
    (card / "card.json").write_text(json.dumps(data))
    _refused(tmp_path, "verify", str(card), str(run), expect=expect)


def test_verify_names_a_card_md_that_is_a_fifo(tmp_path: Path) -> None:
    """card.md a FIFO: the comparison read it for ever."""
    run, card = _card(tmp_path)
    (card / "card.md").unlink()
    os.mkfifo(card / "card.md")
    assert "is a FIFO" in _mismatch(card, run)
