"""`paraudit build invariance`: one-line refusals, and a real build of the starter set's twin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paraudit.items.validate import dataset_errors
from tests.builders.conftest import cli


def test_refusals_name_the_fix(tmp_path: Path, starter_small: Path) -> None:
    out = str(tmp_path / "inv")
    code, text = cli("build", "invariance", "--out", out)
    assert code == 1 and "needs --from DATASET" in text and "Traceback" not in text
    code, text = cli("build", "invariance", "--from", str(starter_small), "--out", out,
                     "--changes", "voice,pitch")  # fmt: skip
    assert code == 1 and "unknown change 'pitch'" in text and "known: voice" in text
    code, text = cli("build", "invariance", "--source", str(starter_small), "--out", out)
    assert code == 1 and "--from DATASET" in text
    code, text = cli("build", "invariance", "--from", str(tmp_path / "nope"), "--out", out)
    assert code == 1 and "not a dataset folder" in text


def test_builds_the_starter_twin_offline(tmp_path: Path, starter_small: Path) -> None:
    out = tmp_path / "inv"
    code, text = cli("build", "invariance", "--from", str(starter_small), "--out", str(out),
                     "--changes", "noise", "--limit", "1")  # fmt: skip
    assert code == 0, text
    assert "2 originals + " in text and "dataset validates" in text
    assert dataset_errors(out) == []
    card = json.loads((out / "card.json").read_text())
    assert card["originals"] == 2 and card["changes"] == ["noise"]
    written = card["twins_written"].get("noise-30db", 0)
    assert written + sum(card["twins_dropped"].get("noise-30db", {}).values()) == 2
    # Without the samplerate change every clip keeps the dataset's one format.
    assert json.loads((out / "dataset.json").read_text())["mixed_audio_formats"] is False


def test_builds_recording_condition_twins(tmp_path: Path, starter_small: Path) -> None:
    pytest.importorskip("pyroomacoustics")
    out = tmp_path / "inv"
    code, text = cli("build", "invariance", "--from", str(starter_small), "--out", str(out),
                     "--changes", "telephone,reverb", "--limit", "1")  # fmt: skip
    assert code == 0, text
    assert dataset_errors(out) == []
    card = json.loads((out / "card.json").read_text())
    assert card["changes"] == ["telephone", "reverb"]
    assert set(card["variants"]) == {"telephone-g711", "reverb-room"}
    kept = sum(card["twins_written"].values())
    dropped = sum(sum(c.values()) for c in card["twins_dropped"].values())
    assert kept + dropped == 4 and kept >= 3, card  # 2 originals × 2 conditions
    twins = [json.loads(ln) for ln in (out / "items.jsonl").read_text().splitlines()]
    qc = [t["meta"]["invariance"]["qc"] for t in twins if "invariance" in t["meta"]]
    # Each changed clip's QC row holds the condition's own measure.
    assert qc and all("condition" in row for rows in qc for branch in rows for row in branch)
