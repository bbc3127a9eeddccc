"""A dataset's dimension and label set as data: old datasets unchanged, a source's 4- or 6-class
taxonomy loads through a mapping or is refused in one line, and every bad input exits 2 with
nothing written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.items.dataset import load_dataset, read_manifest
from paraudit.items.records import DatasetManifest
from paraudit.items.taxonomy import DatasetDimensionError, vocabulary
from paraudit.items.validate import errors_of, validate_dataset
from tests.conftest import make_dataset
from tests.dimensions.plugins import install_plugin

runner = CliRunner()


def rewrite(root: Path, manifest: dict[str, object], relabel: dict[str, str] | None = None) -> None:
    """Edit dataset.json (and the items' labels) in place, as a user or a source would."""
    base = json.loads((root / "dataset.json").read_text())
    (root / "dataset.json").write_text(json.dumps({**base, **manifest}, indent=2))
    if relabel:
        lines = []
        for line in (root / "items.jsonl").read_text().splitlines():
            item = json.loads(line)
            for b in item["branches"]:
                b["emotions"] = [relabel.get(e, e) for e in b["emotions"]]
                b["response"]["emotion"] = relabel.get(
                    b["response"]["emotion"], b["response"]["emotion"]
                )
            lines.append(json.dumps(item))
        (root / "items.jsonl").write_text("\n".join(lines) + "\n")


def test_old_manifest_bytes_and_defaults_are_unchanged(tiny_dataset: Path) -> None:
    text = (tiny_dataset / "dataset.json").read_text()
    # What bf45e00 wrote for this manifest: no dimension fields appear unless set.
    assert list(json.loads(text)) == [
        "name",
        "schema_version",
        "tasks",
        "emotions",
        "rendering",
        "provenance",
        "mixed_audio_formats",
    ]
    m = read_manifest(tiny_dataset)
    assert m.dimension == "emotion" and m.taxonomy == "" and m.label_map == {}
    assert vocabulary(m) == m.emotions
    assert m.model_dump_json(indent=2) + "\n" == text
    declared = DatasetManifest(name="x", tasks=("t",), dimension="emotion")
    assert '"dimension":"emotion"' in declared.model_dump_json()  # said once, it is kept


def test_legacy_vocabulary_still_loads(tmp_path: Path) -> None:
    # Before dimensions a dataset could declare any vocabulary; one that names no dimension
    # still can (validate checks every label against it, as before).
    root = tmp_path / "ds"
    make_dataset(root, tmp_path / "src")
    rewrite(root, {"emotions": ["angry", "sad", "empathetic", "contempt"]})
    assert len(load_dataset(root).items) == 1
    assert errors_of(validate_dataset(root)) == []


@pytest.mark.parametrize(
    ("taxonomy", "relabel", "labels"),
    [
        # Ekman's six classes: nouns, two of which are not emotion values by any alias.
        (
            {"taxonomy": "ekman6"},
            {"angry": "anger", "sad": "sadness"},
            ["anger", "disgust", "fear", "happiness", "sadness", "surprise", "empathetic"],
        ),
        # IEMOCAP's four classes, by an explicit map (the dimension's own name for it aside).
        (
            {"label_map": {"ang": "angry", "sad": "sad", "hap": "happy", "neu": "neutral"}},
            {"angry": "ang"},
            ["ang", "sad", "hap", "neu", "empathetic"],
        ),
    ],
)
def test_another_taxonomy_loads_through_its_mapping(
    tmp_path: Path, taxonomy: dict[str, object], relabel: dict[str, str], labels: list[str]
) -> None:
    root = tmp_path / "ds"
    make_dataset(root, tmp_path / "src")
    rewrite(root, {"dimension": "emotion", "emotions": labels, **taxonomy}, relabel)
    raw = (root / "items.jsonl").read_text()
    assert '"angry"' not in raw  # the file carries the source's labels
    ds = load_dataset(root)
    (item,) = ds.items
    assert [b.emotions for b in item.branches] == [("angry",), ("sad",)]
    assert set(vocabulary(ds.manifest)) >= {"angry", "sad", "empathetic"}
    assert errors_of(validate_dataset(root)) == []


def test_another_taxonomy_without_a_mapping_is_refused_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "ds"
    make_dataset(root, tmp_path / "src")
    rewrite(
        root,
        {"dimension": "emotion", "emotions": ["ang", "sad", "hap", "neu", "empathetic"]},
        {"angry": "ang"},
    )
    with pytest.raises(DatasetDimensionError) as e:
        load_dataset(root)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{root / 'dataset.json'}: ")
    assert "labels 'ang', 'hap', 'neu' are not a value of emotion" in msg
    assert '"label_map": {"ang": "VALUE", ...}' in msg
    assert "or name a taxonomy (emocf, ekman6, iemocap4)" in msg


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        (
            {"dimension": "emotoin"},
            "unknown dimension 'emotoin' (installed: emotion, urgency, hesitation, whisper, "
            "emphasis, sarcasm); did you",
        ),
        ({"taxonomy": "plutchik8"}, "emotion knows no taxonomy 'plutchik8' (known: emocf,"),
        ({"label_map": {"angry": "furious"}}, "maps 'angry' to 'furious', which is not a value"),
    ],
)
def test_bad_dimension_input_is_refused_by_run_and_validate_with_exit_2(
    tmp_path: Path, manifest: dict[str, object], expected: str
) -> None:
    root = tmp_path / "ds"
    make_dataset(root, tmp_path / "src")
    rewrite(root, manifest)
    with pytest.raises(DatasetDimensionError, match=re.escape(expected)):
        load_dataset(root)
    out = tmp_path / "run"
    r = runner.invoke(app, ["run", str(root), "--judge", "builtin:random", "--out", str(out)])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0]
    assert not out.exists()  # nothing written
    r = runner.invoke(app, ["validate", str(root)])
    assert r.exit_code == 2 and expected in r.output


def test_a_task_mixing_dimensions_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "ds"
    make_dataset(root, tmp_path / "src", positional=True)
    lines = (root / "items.jsonl").read_text().splitlines()
    second = json.loads(lines[1])
    second["task"] = "single-turn-emotions"
    second["meta"]["dimension"] = "emphasys"
    (root / "items.jsonl").write_text(lines[0] + "\n" + json.dumps(second) + "\n")
    # An item naming a dimension that is not installed: named, with the closest one.
    with pytest.raises(DatasetDimensionError, match=r"items.jsonl:2: item pos-1: unknown dim"):
        load_dataset(root)
    second["meta"]["dimension"] = "emotion"
    first = json.loads(lines[0])
    first["meta"]["dimension"] = "laughter"
    (root / "items.jsonl").write_text(json.dumps(second) + "\n" + json.dumps(first) + "\n")
    out = tmp_path / "run"
    r = runner.invoke(app, ["run", str(root), "--judge", "builtin:random", "--out", str(out)])
    assert r.exit_code == 2 and not out.exists()
    assert "unknown dimension 'laughter'" in r.output


def test_one_task_one_dimension_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A second dimension installed for real: emotion's data under another name.
    source = (
        "import dataclasses\n"
        "from paraudit.dimensions.emotion import EMOTION\n"
        "TONE = dataclasses.replace(EMOTION, name='tone')\n"
    )
    install_plugin(tmp_path, monkeypatch, "tone_dim", source, "tone = tone_dim:TONE\n")
    root = tmp_path / "ds"
    make_dataset(root, tmp_path / "src", positional=True)
    lines = (root / "items.jsonl").read_text().splitlines()
    second = json.loads(lines[1])
    second["meta"]["dimension"] = "tone"
    (root / "items.jsonl").write_text(lines[0] + "\n" + json.dumps(second) + "\n")
    assert [it.task for it in load_dataset(root).items] == [
        "single-turn-emotions",
        "positional-emotion",
    ]
    second["task"] = "single-turn-emotions"  # now one task holds both dimensions
    (root / "items.jsonl").write_text(lines[0] + "\n" + json.dumps(second) + "\n")
    with pytest.raises(DatasetDimensionError) as e:
        load_dataset(root)
    assert str(e.value) == (
        f"{root / 'items.jsonl'}:2: task 'single-turn-emotions' mixes dimensions emotion "
        "(1 items), tone (1 items), first tone item pos-1; a task holds one dimension: give "
        "the tone items a task of their own"
    )
