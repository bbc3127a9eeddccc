"""Human answers leave the store as export rows, a run folder the report reads (a "human" row
beside the judges), agreement figures, and `paraudit validate --humans`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paraudit.annotate.assignment import StudyConfig
from paraudit.annotate.export import answer_rows, hard_items, judgments, result_rows, write_run
from paraudit.annotate.simulate import simulate_study
from paraudit.annotate.store import AnnotationStore
from paraudit.cli.main import app
from paraudit.errors import ParauditError
from paraudit.report.build import write_report
from paraudit.stats.agreement import annotator_accuracy
from tests.annotate.conftest import make_many

CFG = StudyConfig(
    annotators=("ana", "ben", "cy"), per_annotator=10, overlap=4, repeats=2, catch=2, min_listen=0.0
)
ROW_KEYS = {
    "judge", "task", "item_id", "branch", "probe", "protocol", "cue", "order", "context_order",
    "pred", "gold", "status", "correct", "raw", "reason", "latency_s", "attempts", "usage",
    "audio_sent_sha256", "sample", "key", "options",
}  # fmt: skip


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("study")
    make_many(tmp / "ds", tmp / "tones", 30, seconds=0.4)  # long enough to validate
    store = tmp / "study.sqlite"
    done = simulate_study(tmp / "ds", store, CFG, skills=(1.0, 0.0, 0.0), seed=1)
    assert done == {"ana": 14, "ben": 14, "cy": 14}
    return tmp / "ds", store


def test_answer_rows_and_skills(finished: tuple[Path, Path]) -> None:
    _, store_path = finished
    store = AnnotationStore.open(store_path)
    rows = answer_rows(store, store.dataset())
    store.close()
    assert len(rows) == 42
    acc = annotator_accuracy(judgments(rows))
    assert acc["ana"].rate == 1.0 and acc["cy"].rate == 0.0  # simulated skills 1 and 0
    for r in rows:
        assert r["correct"] == (r["choice"] == r["gold"])
        if r["kind"] == "catch":
            assert r["chosen"] in ("own", "foil") and r["foil_item"] != r["item_id"]


def test_run_folder_feeds_the_report(finished: tuple[Path, Path], tmp_path: Path) -> None:
    _, store = finished
    n = write_run(store, tmp_path / "human")
    rows = [json.loads(x) for x in (tmp_path / "human" / "results.jsonl").read_text().splitlines()]
    assert n == len(rows) == 3 * 10  # scored answers only: no catch items, no repeats
    assert all(set(r) == ROW_KEYS for r in rows)
    assert {r["judge"] for r in rows} == {"human"}
    assert {(r["probe"], r["protocol"], r["cue"]) for r in rows} == {("J", "pointwise", "none")}
    assert {r["sample"] for r in rows} == {0, 1, 2}
    assert all(
        r["order"] in ("ab", "ba") and r["correct"] == (r["pred"] == r["gold"]) for r in rows
    )
    spec = json.loads((tmp_path / "human" / "run.json").read_text())
    assert spec["source"] == "annotate" and spec["judges"] == ["human"]
    report = write_report([tmp_path / "human"], tmp_path / "report", replicates=200)
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    (overall,) = [
        a
        for a in summary["accuracy"]
        if a["judge"] == "human"
        and (a["probe"], a["protocol"], a["cue"]) == ("J", "pointwise", "all")
    ]
    assert overall["n"] == 30 and overall["accuracy"] == pytest.approx(
        sum(r["correct"] for r in rows) / 30
    )
    assert "human" in report.read_text()
    split = result_rows(answer_rows_of(store), ["ana", "ben", "cy"], split=True)
    assert {r["judge"] for r in split} == {"human:ana", "human:ben", "human:cy"}
    with pytest.raises(ParauditError, match="not empty"):
        write_run(store, tmp_path / "human")


def answer_rows_of(path: Path) -> list[dict[str, object]]:
    store = AnnotationStore.open(path)
    try:
        return answer_rows(store, store.dataset())
    finally:
        store.close()


def test_hard_items_and_validate_humans(finished: tuple[Path, Path]) -> None:
    ds, store = finished
    scores = hard_items(store, threshold=0.5)
    flagged = [s for s in scores if s.flagged]
    assert len(flagged) == 4  # the overlap items: one right listener, two wrong
    assert all(s.accuracy < 0.5 and s.answers >= 2 for s in flagged)
    result = CliRunner().invoke(app, ["validate", str(ds), "--humans", str(store)])
    assert result.exit_code == 0, result.output
    for s in flagged:
        assert s.item_id in result.output
    assert f"{len(flagged)} of {len(scores)} answered items below 50%" in result.output


def test_cli_export_stats_and_links(finished: tuple[Path, Path], tmp_path: Path) -> None:
    ds, store = finished
    runner = CliRunner()
    out = runner.invoke(
        app,
        ["annotate-export", str(store), "--jsonl", str(tmp_path / "a.jsonl"),
         "--csv", str(tmp_path / "a.csv"), "--run", str(tmp_path / "run")],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    assert len((tmp_path / "a.jsonl").read_text().splitlines()) == 42
    assert len((tmp_path / "a.csv").read_text().splitlines()) == 43
    stats = runner.invoke(app, ["annotate-stats", str(store), "--json", str(tmp_path / "s.json")])
    assert stats.exit_code == 0, stats.output
    assert "Fleiss κ" in stats.output and "catch items passed" in stats.output
    assert json.loads((tmp_path / "s.json").read_text())["tasks"]["all"]["range"] == [0.0, 1.0]
    links = runner.invoke(
        app,
        ["annotate", str(ds), "--store", str(store), "--annotators", "ana,ben,cy",
         "--per-annotator", "10", "--overlap", "4", "--repeats", "2", "--catch", "2",
         "--min-listen", "0", "--no-serve"],
    )  # fmt: skip
    assert links.exit_code == 0, links.output
    assert "resuming" in links.output and links.output.count("http://127.0.0.1:8000/a/") == 3
    assert "/admin/" in links.output
    changed = runner.invoke(
        app, ["annotate", str(ds), "--store", str(store), "--annotators", "2", "--no-serve"]
    )
    assert changed.exit_code == 1 and "other options" in changed.output
    assert "Traceback" not in changed.output
    missing = runner.invoke(app, ["annotate-export", str(tmp_path / "nope.sqlite"), "--csv", "x"])
    assert missing.exit_code == 1 and "no annotation store" in missing.output


def test_human_row_beside_judges(finished: tuple[Path, Path], tmp_path: Path) -> None:
    import asyncio

    from paraudit.runner.plan import PlanSpec
    from paraudit.runner.run import RunConfig, Runner

    ds, store = finished
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))
    judges = ["builtin:random", "builtin:first"]
    asyncio.run(Runner(RunConfig(ds, judges, tmp_path / "judges", plan)).run())
    write_run(store, tmp_path / "human")
    write_report([tmp_path / "judges", tmp_path / "human"], tmp_path / "report", replicates=200)
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert set(summary["judges"]) == {"builtin:random", "builtin:first", "human"}
    cells = {
        (r["judge"], r["cue"]) for r in summary["accuracy"] if r["probe"] == "J"
    }  # the human row sits in the same J / pointwise / no-cue cell as the judges
    assert {("human", "none"), ("builtin:first", "none")} <= cells


def test_busy_port_and_bad_study_are_one_line_errors(tiny_dataset: Path, tmp_path: Path) -> None:
    import socket

    runner = CliRunner()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = runner.invoke(
            app,
            ["annotate", str(tiny_dataset), "--annotators", "2", "--per-annotator", "2",
             "--overlap", "1", "--repeats", "1", "--store", str(tmp_path / "s.sqlite"),
             "--port", str(port)],
        )  # fmt: skip
    assert r.exit_code == 1 and "another --port" in r.output
    # Refused before anything else: no links that would not work, no study created.
    assert "/a/" not in r.output and not (tmp_path / "s.sqlite").exists()
    bad = runner.invoke(
        app,
        ["annotate", str(tiny_dataset), "--annotators", "2", "--per-annotator", "12",
         "--store", str(tmp_path / "t.sqlite"), "--no-serve"],
    )  # fmt: skip
    assert bad.exit_code == 1 and "exceeds the 2 items" in bad.output
    assert list(tmp_path.glob("t.sqlite*")) == []  # a refused study leaves no file behind
