"""SER plumbing and label mapping (by name, never by index). The classifier is a tiny
random-weight model built and saved here: its outputs say nothing about emotion, so the tests
fix its classifier head to known logits and check where each probability lands."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paraudit.errors import MissingExtraError, ParauditError
from paraudit.qc.rules import SER_LABELS
from paraudit.qc.ser import HFSER, make_ser, map_label, renormalise


def test_labels_map_by_name() -> None:
    assert map_label("生气/angry") == "angry"
    assert map_label("中立/neutral") == "neutral"
    assert map_label("HAP") == "happy" and map_label("joy") == "happy"
    assert map_label("Surprise") == "surprised" and map_label("fear") == "fearful"
    assert map_label("其他/other") is None and map_label("<unk>") is None
    assert map_label("calm") is None


def test_renormalise_drops_unused_classes_and_sums_synonyms() -> None:
    p = renormalise({"ang": 0.2, "anger": 0.1, "sad": 0.3, "other": 0.4})
    assert set(p) == set(SER_LABELS)
    assert p["angry"] == pytest.approx(0.5) and p["sad"] == pytest.approx(0.5)
    assert sum(p.values()) == pytest.approx(1.0)
    with pytest.raises(ParauditError, match="none of its labels"):
        renormalise({"LABEL_0": 0.5, "LABEL_1": 0.5})


def _tiny_classifier(path: Path, id2label: dict[int, str], bias: list[float]) -> Path:
    torch = pytest.importorskip("torch")
    tf = pytest.importorskip("transformers")
    config = tf.Wav2Vec2Config(
        vocab_size=8,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        conv_dim=(8, 8),
        conv_stride=(5, 4),
        conv_kernel=(10, 4),
        num_conv_pos_embeddings=8,
        num_conv_pos_embedding_groups=2,
        classifier_proj_size=8,
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
        do_stable_layer_norm=False,
    )
    torch.manual_seed(0)
    model = tf.Wav2Vec2ForSequenceClassification(config)
    with torch.no_grad():  # known logits: the head ignores the (random) features
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor(bias))
    model.save_pretrained(path)
    tf.Wav2Vec2FeatureExtractor(sampling_rate=16000).save_pretrained(path)
    return path


def test_hf_checkpoint_probabilities_land_on_the_named_classes(tmp_path: Path) -> None:
    # IEMOCAP-style short names in an order unlike SER_LABELS, plus a class the rules ignore.
    labels = {0: "sad", 1: "neu", 2: "calm", 3: "ang", 4: "hap"}
    bias = [0.0, 0.0, 0.0, 2.0, 1.0]
    ser = make_ser(f"hf:{_tiny_classifier(tmp_path / 'm', labels, bias)}")
    assert isinstance(ser, HFSER) and ser.label.startswith("hf:")
    rng = np.random.default_rng(0)
    clip = 0.1 * rng.standard_normal(22050)  # 1 s at 22.05 kHz: resampled to 16 kHz inside
    p = ser.probabilities(clip, 22050)
    e = np.exp(bias)
    kept = e[[0, 1, 3, 4]].sum()  # "calm" is dropped before renormalising
    assert p["angry"] == pytest.approx(e[3] / kept, abs=1e-5)
    assert p["happy"] == pytest.approx(e[4] / kept, abs=1e-5)
    assert p["sad"] == pytest.approx(e[0] / kept, abs=1e-5)
    assert p["neutral"] == pytest.approx(e[1] / kept, abs=1e-5)
    assert p["surprised"] == p["fearful"] == p["disgusted"] == 0.0
    raw = ser.raw_scores(clip[:16000])
    assert set(raw) == set(labels.values())


def test_hf_checkpoint_without_usable_labels_is_refused(tmp_path: Path) -> None:
    path = _tiny_classifier(tmp_path / "m", {0: "LABEL_0", 1: "LABEL_1"}, [0.0, 0.0])
    with pytest.raises(ParauditError, match="none of its labels"):
        make_ser(f"hf:{path}")
    with pytest.raises(ParauditError, match="cannot be loaded"):
        make_ser(f"hf:{tmp_path / 'missing'}")


def test_specs() -> None:
    assert make_ser(None) is None and make_ser("none") is None
    with pytest.raises(ParauditError, match="unknown SER backend"):
        make_ser("wav2vec:x")


def test_emotion2vec_maps_funasr_output_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """FunASR cannot run here (no weights); a stand-in module returns emotion2vec's documented
    output shape so the mapping of its bilingual labels is checked."""
    seen: dict[str, Any] = {}

    class AutoModel:
        def __init__(self, model: str, **kw: Any) -> None:
            seen["model"] = model

        def generate(self, x: np.ndarray, **kw: Any) -> list[dict[str, Any]]:
            seen["n"], seen["kw"] = len(x), kw
            labels = ["生气/angry", "厌恶/disgusted", "恐惧/fearful", "开心/happy", "中立/neutral"]
            labels += ["其他/other", "难过/sad", "吃惊/surprised", "<unk>"]
            return [{"labels": labels, "scores": [0.6, 0.1, 0, 0, 0.1, 0.2, 0, 0, 0]}]

    fake = types.ModuleType("funasr")
    fake.AutoModel = AutoModel  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "funasr", fake)
    ser = make_ser("emotion2vec")
    assert ser is not None and ser.label == "emotion2vec:iic/emotion2vec_plus_large"
    p = ser.probabilities(np.zeros(8000) + 0.01, 8000)
    assert seen["model"] == "iic/emotion2vec_plus_large" and seen["n"] == 16000
    assert seen["kw"]["granularity"] == "utterance"
    assert p["angry"] == pytest.approx(0.75) and p["neutral"] == pytest.approx(0.125)


def test_emotion2vec_without_funasr_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "funasr", None)
    with pytest.raises(MissingExtraError, match=r"paraudit\[ser\]"):
        make_ser("emotion2vec")
