"""Emotion as the first plugin: the old names are its data, its renderer is the starter's Piper +
PSOLA chain (same bytes), and its QC is the Audio Scorer's rules on real renderings."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import parselmouth
import pytest
import soundfile as sf

from paraudit.dimensions import registry
from paraudit.dimensions.emotion import EMOTION, TTS_STYLES
from paraudit.errors import ParauditError
from paraudit.items import records
from paraudit.protocols import paper_prompts
from paraudit.render import tts_styles
from paraudit.render.profiles import profile_for
from paraudit.render.renderer import Renderer
from paraudit.sources import emocf

TEXT = "They moved the meeting to Friday afternoon."


def test_old_names_are_the_plugins_data() -> None:
    assert records.HUMAN_EMOTIONS == EMOTION.names[:7]
    assert records.DEFAULT_VOCABULARY == (*records.HUMAN_EMOTIONS, "empathetic")
    assert records.EMOTION_ALIASES is EMOTION.aliases
    assert tts_styles.STYLES is TTS_STYLES and emocf.LABELS is EMOTION.taxonomies["emocf"]
    assert EMOTION.values[0].name == "neutral"  # the reference QC measures against
    assert EMOTION.canonical("Sadness") == "sad" and EMOTION.canonical("hesistant") == "hesitant"
    assert EMOTION.canonical("apologetic/empathetic/reassuring") == "empathetic"
    assert EMOTION.canonical("contempt") is None
    for kind, task in EMOTION.tasks.items():
        assert EMOTION.task_for(kind) == task
    assert EMOTION.task_for("single-turn") == "single-turn-emotions"


def test_questions_and_words_quote_todays_text() -> None:
    # P's wording is the paper's own prompt (pinned by tests/protocols); the O/S annotation is
    # the line protocols/instances.py writes after each transcript.
    assert paper_prompts.SINGLE_P.startswith(EMOTION.questions.perception)
    assert EMOTION.questions.annotation.format(value="angry") == "emotion: angry"
    html = Path(__file__).parents[2] / "src/paraudit/annotate/static/listen.html"
    assert f'<h2 id="ask">{EMOTION.words.listen_question}</h2>' in html.read_text()
    assert EMOTION.words.value_phrase.format(value="sad") == "when the user sounds sad"


def test_hosted_instructions_are_what_the_hosted_tts_is_told() -> None:
    for value in EMOTION.names:
        said, long = tts_styles.instructions_for("Short words.", value)
        assert not long and said == EMOTION.hosted_instructions[value]


def test_renderer_wraps_the_starter_chain_byte_for_byte(tmp_path: Path) -> None:
    render = registry.renderer(EMOTION)
    clip = render(TEXT, "anger", cache_dir=tmp_path / "a")  # an alias of a value
    starter = Renderer(None, tmp_path / "b").render(TEXT, "human", profile_for("human", "angry"))
    ref, rate = sf.read(str(starter.path), dtype="float32")
    assert clip.rate == rate and clip.text == TEXT
    assert np.array_equal(clip.samples, ref)
    assert clip.meta["render_key"] == starter.key and clip.meta["tts"] == "piper:joe-medium+psola"
    with pytest.raises(ParauditError, match="'bored' has no offline rendering"):
        render(TEXT, "bored", cache_dir=tmp_path / "a")


def _median_f0(samples: np.ndarray, rate: int) -> float:
    """Median F0 by Praat's autocorrelation directly: a measurement independent of qc/."""
    pitch = parselmouth.Sound(samples.astype(np.float64), rate).to_pitch_ac(
        pitch_floor=60, pitch_ceiling=500
    )
    f0 = pitch.selected_array["frequency"]
    return float(np.median(f0[f0 > 0]))


def test_qc_accepts_the_rendering_and_rejects_a_wrong_one(tmp_path: Path) -> None:
    render, check = registry.renderer(EMOTION), registry.qc_rule(EMOTION)
    neutral = render(TEXT, "neutral", cache_dir=tmp_path)
    angry = render(TEXT, "angry", cache_dir=tmp_path)
    sad = render(TEXT, "sad", cache_dir=tmp_path)
    ok = check(angry, "angry", baseline=neutral)
    assert ok.passed and ok.reasons == () and ok.measures["rel_pitch"] >= 3.0
    # The independent measurement agrees with what QC read (within a semitone).
    independent = 12 * math.log2(
        _median_f0(angry.samples, angry.rate) / _median_f0(neutral.samples, neutral.rate)
    )
    assert abs(independent - ok.measures["rel_pitch"]) < 1.0
    assert check(sad, "sad", baseline=neutral).passed
    # Deliberately wrong: the neutral clip offered as angry, the sad one as happy.
    wrong = check(neutral, "angry", baseline=neutral)
    assert not wrong.passed and "rel_pitch 0 st < 3 st" in wrong.reasons
    assert not check(sad, "happy", baseline=neutral).passed
