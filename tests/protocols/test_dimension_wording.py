"""Part of the question wording comes from the item's dimension: the O/S label line after each
transcript (emotion: exactly today's 'emotion: angry'), and the listening app's question."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from paraudit.annotate.app import create_app
from paraudit.annotate.assignment import StudyConfig
from paraudit.annotate.serve import background
from paraudit.annotate.store import AnnotationStore
from paraudit.items.dataset import load_dataset
from paraudit.protocols.instances import text_instance
from paraudit.protocols.questions import annotation_for
from paraudit.runner.plan import PlanSpec, plan_instances
from tests.conftest import make_dataset
from tests.dimensions.plugins import install_plugin

# Emotion's values under another dimension's name and words, installed as a real plugin.
TONE = """
import dataclasses
from paraudit.dimensions.emotion import EMOTION
TONE = dataclasses.replace(
    EMOTION,
    name="voicetone",
    questions=dataclasses.replace(EMOTION.questions, annotation="tone of voice: {value}"),
    words=dataclasses.replace(EMOTION.words, listen_question="Which reply suits that tone?"),
)
"""


@pytest.fixture
def tone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_plugin(tmp_path, monkeypatch, "tone_words", TONE, "voicetone = tone_words:TONE\n")


def _o_text(ds_root: Path) -> str:
    ds = load_dataset(ds_root)
    spec = PlanSpec(probes=("O",), protocols=("pointwise",), cues=("none",))
    (first, *_) = plan_instances(ds, spec)
    return "".join(str(getattr(p, "text", "")) for p in first.prompt)


def test_emotion_keeps_todays_label_line(tmp_path: Path) -> None:
    root = tmp_path / "ds"
    _, (item,), _ = make_dataset(root, tmp_path / "src")
    assert annotation_for(item) == "emotion: {value}"
    inst = text_instance(item, "O", "pointwise", "none", "R1R2", 0)
    text = "".join(str(getattr(p, "text", "")) for p in inst.prompt)
    assert "C: transcript: They moved the meeting to Friday. emotion: angry" in text
    assert "C: transcript: They moved the meeting to Friday. emotion: angry" in _o_text(root)


def test_a_dataset_of_another_dimension_is_asked_in_its_words(tmp_path: Path, tone: None) -> None:
    root = tmp_path / "ds"
    make_dataset(root, tmp_path / "src")
    manifest = json.loads((root / "dataset.json").read_text())
    (root / "dataset.json").write_text(json.dumps({**manifest, "dimension": "voicetone"}))
    text = _o_text(root)
    assert "Friday. tone of voice: angry" in text and "emotion: angry" not in text


def test_the_listening_app_asks_in_the_dimensions_words(tmp_path: Path, tone: None) -> None:
    cfg = StudyConfig(annotators=("ann",), per_annotator=1, overlap=0, repeats=0, catch=0)
    asked = []
    for dimension in (None, "voicetone"):
        root = tmp_path / f"ds-{dimension}"
        make_dataset(root, tmp_path / "src")
        if dimension:
            manifest = json.loads((root / "dataset.json").read_text())
            (root / "dataset.json").write_text(json.dumps({**manifest, "dimension": dimension}))
        path = tmp_path / f"{dimension}.sqlite"
        store = AnnotationStore.open_or_create(path, root, cfg)
        (token,) = [t for _, t in store.annotators()]
        q = TestClient(create_app(path)).get(f"/a/{token}/api/next").json()["question"]
        asked.append(q["ask"])
    assert asked == ["Which response fits better?", "Which reply suits that tone?"]


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="Debian 'chromium' is not installed")
def test_the_page_shows_the_dimensions_question(tmp_path: Path, tone: None) -> None:
    from playwright.sync_api import sync_playwright

    from tests.annotate.test_browser import ARGS

    cfg = StudyConfig(annotators=("ann",), per_annotator=1, overlap=0, repeats=0, catch=0)
    shown = []
    for dimension in (None, "voicetone"):
        root = tmp_path / f"ds-{dimension}"
        make_dataset(root, tmp_path / "src")
        if dimension:
            manifest = json.loads((root / "dataset.json").read_text())
            (root / "dataset.json").write_text(json.dumps({**manifest, "dimension": dimension}))
        path = tmp_path / f"{dimension}.sqlite"
        store = AnnotationStore.open_or_create(path, root, cfg)
        (token,) = [t for _, t in store.annotators()]
        with background(path) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()
            page.goto(f"{url}/a/{token}")
            page.wait_for_selector("#question:not([hidden])")
            shown.append(page.locator("#ask").inner_text())
            browser.close()
    assert shown == ["Which response fits better?", "Which reply suits that tone?"]


NEW = ("urgency", "hesitation", "whisper", "emphasis", "sarcasm")


def _prompts(root: Path, probes: tuple[str, ...], cues: tuple[str, ...]) -> dict[str, list[str]]:
    """Every planned question's text by probe (O, S from the judge's own P: its true labels)."""
    from paraudit.runner.plan import staging_instances

    ds = load_dataset(root)
    spec = PlanSpec(probes=probes, protocols=("pointwise", "pairwise"), cues=cues)
    out: dict[str, list[str]] = {}
    insts = plan_instances(ds, spec)
    if "S" in probes:
        preds = {(it.id, b, c): it.branches[b].emotions for it in ds.items for b in (0, 1)
                 for c in cues}  # fmt: skip
        insts += staging_instances(ds, spec, preds)
    for inst in insts:
        text = "".join(str(getattr(p, "text", "")) for p in inst.prompt)
        out.setdefault(inst.probe, []).append(text)
    return out


@pytest.mark.parametrize("dimension", NEW)
def test_a_new_dimension_is_cued_and_described_in_its_own_words(
    tmp_path: Path, dimension: str
) -> None:
    from paraudit.dimensions.registry import get
    from tests.dimsets import make_dimension_dataset

    dim = get(dimension)
    root = tmp_path / dimension
    make_dimension_dataset(root, tmp_path / "tones", dimension, 1)
    cued = _prompts(root, ("J", "P", "O", "S", "T"), ("soft", "hard"))
    assert set(cued) == {"J", "P", "O", "S"}  # T, the words-only control, is asked uncued
    for probe, texts in cued.items():
        for text in texts:
            # The paper's emotion wording never reaches another dimension's question.
            assert "emotion" not in text.lower() and "tone of voice" not in text, (probe, text)
            assert any(c.strip() in text for c in dim.questions.cues.values()), (probe, text)
    for text in cued["O"] + cued["S"]:
        assert dim.questions.described in text
    for text in cued["S"]:
        assert f"the notes on the user's {dim.words.noun} were made" in text


def test_the_native_question_names_no_dimension(tmp_path: Path) -> None:
    """Cue 'none' is the native question: the same words for every dimension (the paper's),
    so a dimension cannot cue its own native J."""
    from tests.dimsets import make_dimension_dataset

    heads = set()
    for dimension in ("whisper", "urgency"):
        root = tmp_path / dimension
        make_dimension_dataset(root, tmp_path / "tones", dimension, 1)
        native = _prompts(root, ("J", "T"), ("none",))
        for text in native["J"] + native["T"]:
            assert "whisper" not in text.lower() and "urgen" not in text.lower()
            assert "emotion" not in text.lower()
        heads |= {text.split("\n")[0] for text in native["J"]}
    root = tmp_path / "emotion"
    make_dataset(root, tmp_path / "src")
    emotion = {t.split("\n")[0] for t in _prompts(root, ("J",), ("none",))["J"]}
    assert heads <= emotion


@pytest.mark.parametrize(
    ("dimension", "stated"),
    [("emphasis", "The user stresses the word *{}*"), ("whisper", "The user's speech is *{}*")],
)
def test_the_misleading_cue_states_the_other_value_as_the_judge_would_hear_it(
    tmp_path: Path, dimension: str, stated: str
) -> None:
    from tests.dimsets import make_dimension_dataset

    root = tmp_path / dimension
    (item,) = make_dimension_dataset(root, tmp_path / "tones", dimension, 1)
    ds = load_dataset(root)
    plan = plan_instances(
        ds, PlanSpec(probes=("J",), protocols=("pointwise",), cues=("misleading",))
    )
    shown = item.meta.get("focus_words") or [b.emotions[0] for b in item.branches]
    for inst in plan:
        other = 1 - int(inst.branch or 0)
        text = "".join(str(getattr(p, "text", "")) for p in inst.prompt)
        assert stated.format(shown[other]) in text, text
        assert inst.question.cue_value == item.branches[other].emotions[0]  # the value itself


@pytest.mark.parametrize("dimension", ["urgency", "whisper", "hesitation"])
def test_positional_questions_speak_the_dimension_s_words(tmp_path: Path, dimension: str) -> None:
    from paraudit.dimensions.registry import get
    from tests.dimsets import make_positional_dimension_dataset

    dim = get(dimension)
    root = tmp_path / dimension
    make_positional_dimension_dataset(root, tmp_path / "tones", dimension)
    asked = _prompts(root, ("J", "P", "O", "S", "T"), ("none", "soft", "hard", "transition"))
    assert set(asked) == {"J", "P", "O", "S", "T"}
    for probe, texts in asked.items():
        for text in texts:
            assert "emotion" not in text.lower() and "tone of voice" not in text, (probe, text)
    assert all(f"two values of {dim.words.noun}, E1 and E2" in t for t in asked["P"])
    changes = f"{dim.words.attribute} (not just the words) starts at one value"
    assert any(changes in t for t in asked["J"]) and any(changes in t for t in asked["P"])
    for text in asked["O"]:
        # The notes are on the user's turns only: none after an assistant turn's transcript.
        lines = [ln for ln in text.splitlines() if "transcript:" in ln]
        assert len(lines) in (5, 10)
        for line in lines:
            assert ("(human)" in line) == line.endswith("]"), line
