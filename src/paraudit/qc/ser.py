"""Speech-emotion recognition for the Audio Scorer, behind one small interface.

    emotion2vec[:MODEL]     FunASR's emotion2vec (default iic/emotion2vec_plus_large), optional
    hf:PATH_OR_MODEL_ID     any Hugging Face audio-classification checkpoint (transformers)

Both return probabilities renormalised over the seven classes the published rules use
(neutral, happy, sad, surprised, fearful, angry, disgusted). Model labels are mapped BY NAME
(e.g. "angry", "ang", "anger", emotion2vec's "生气/angry"), never by index; classes outside
the seven ("other", "<unk>", "calm") are dropped before renormalising. A checkpoint none of
whose labels maps is refused with its labels listed.

Nothing here downloads by itself in tests; a model id (rather than a local path) makes FunASR
or transformers fetch weights from their hubs, which is the user's choice. emotion2vec cannot
be run on the machines this toolkit is tested on (no weights can be fetched there).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from functools import cached_property
from typing import Any

import numpy as np

from paraudit.audio.clips import resample
from paraudit.errors import MissingExtraError, ParauditError
from paraudit.qc.rules import SER_LABELS

LABEL_NAMES: dict[str, str] = {
    "neutral": "neutral",
    "neu": "neutral",
    "happy": "happy",
    "hap": "happy",
    "happiness": "happy",
    "joy": "happy",
    "sad": "sad",
    "sadness": "sad",
    "surprised": "surprised",
    "surprise": "surprised",
    "sur": "surprised",
    "fearful": "fearful",
    "fear": "fearful",
    "fea": "fearful",
    "angry": "angry",
    "anger": "angry",
    "ang": "angry",
    "disgusted": "disgusted",
    "disgust": "disgusted",
    "dis": "disgusted",
}


def map_label(label: str) -> str | None:
    """One of `SER_LABELS` for a model's class name, or None (a class the rules do not use).

    emotion2vec names its classes "中立/neutral"; the part after the slash is the English name.
    """
    name = label.rsplit("/", 1)[-1].strip().lower()
    name = re.sub(r"[^a-z]", "", name)
    return LABEL_NAMES.get(name)


def renormalise(scores: Mapping[str, float], model: str = "the SER model") -> dict[str, float]:
    """Sum the probabilities of the classes that map to each of the seven, renormalise to 1."""
    out = dict.fromkeys(SER_LABELS, 0.0)
    mapped = False
    for label, p in scores.items():
        name = map_label(label)
        if name is not None:
            out[name] += float(p)
            mapped = True
    if not mapped:
        raise ParauditError(
            f"{model}: none of its labels ({', '.join(sorted(scores))}) maps to "
            f"{', '.join(SER_LABELS)}"
        )
    total = sum(out.values())
    if total <= 0:
        return {k: 1.0 / len(SER_LABELS) for k in SER_LABELS}
    return {k: v / total for k, v in out.items()}


class SERBackend(ABC):
    name: str
    sample_rate: int = 16000

    @property
    @abstractmethod
    def label(self) -> str: ...

    @abstractmethod
    def raw_scores(self, samples: np.ndarray) -> dict[str, float]:
        """Class name → probability for 1-D float samples at `sample_rate`."""

    def probabilities(self, samples: np.ndarray, rate: int) -> dict[str, float]:
        """Probabilities over the seven rule classes for a mono clip at any rate."""
        x = resample(np.asarray(samples, dtype=np.float64), rate, self.sample_rate)
        return renormalise(self.raw_scores(np.clip(x, -1.0, 1.0)), self.label)


class HFSER(SERBackend):
    """A transformers audio-classification checkpoint (local folder or hub id)."""

    name = "hf"

    def __init__(self, model: str) -> None:
        try:
            import torch  # noqa: F401
            import transformers  # noqa: F401
        except ImportError:
            raise MissingExtraError("SER backend 'hf'", "hf", "transformers") from None
        self.model_id = model
        try:
            import transformers as tf

            auto: Any = tf
            self.extractor: Any = auto.AutoFeatureExtractor.from_pretrained(model)
            self.model: Any = auto.AutoModelForAudioClassification.from_pretrained(model)
        except (OSError, ValueError) as e:
            msg = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
            raise ParauditError(f"SER model '{model}' cannot be loaded: {msg}") from None
        self.model.eval()
        self.sample_rate = int(getattr(self.extractor, "sampling_rate", 16000))
        id2label = dict(self.model.config.id2label)
        renormalise(dict.fromkeys(id2label.values(), 1.0), self.label)  # refuse early if no map

    @property
    def label(self) -> str:
        return f"hf:{self.model_id}"

    def raw_scores(self, samples: np.ndarray) -> dict[str, float]:
        import torch

        inputs = self.extractor(
            samples.astype(np.float32), sampling_rate=self.sample_rate, return_tensors="pt"
        )
        with torch.no_grad():
            logits = self.model(**inputs).logits[0]
        probs = torch.softmax(logits.float(), dim=-1).tolist()
        id2label = self.model.config.id2label
        return {str(id2label[i]): float(p) for i, p in enumerate(probs)}


class Emotion2Vec(SERBackend):
    """emotion2vec through FunASR (`pip install 'paraudit[ser]'`; weights from its hub)."""

    name = "emotion2vec"
    DEFAULT = "iic/emotion2vec_plus_large"

    def __init__(self, model: str | None = None) -> None:
        self.model_id = model or self.DEFAULT
        try:
            import funasr  # noqa: F401
        except ImportError:
            raise MissingExtraError("SER backend 'emotion2vec'", "ser", "funasr") from None

    @property
    def label(self) -> str:
        return f"emotion2vec:{self.model_id}"

    @cached_property
    def _model(self) -> Any:
        from funasr import AutoModel

        return AutoModel(model=self.model_id, disable_update=True)

    def raw_scores(self, samples: np.ndarray) -> dict[str, float]:
        res = self._model.generate(
            samples.astype(np.float32), granularity="utterance", extract_embedding=False
        )
        first = res[0] if isinstance(res, list) else res
        labels, scores = first["labels"], first["scores"]
        return {str(lab): float(s) for lab, s in zip(labels, scores, strict=True)}


def make_ser(spec: str | None) -> SERBackend | None:
    """`None`/"none" → no SER (the acoustic fallbacks apply); else the named backend."""
    if spec is None or spec in ("", "none"):
        return None
    backend, _, model = spec.partition(":")
    if backend == "hf":
        if not model:
            raise ParauditError("SER spec 'hf:' needs a checkpoint path or model id")
        return HFSER(model)
    if backend == "emotion2vec":
        return Emotion2Vec(model or None)
    raise ParauditError(f"unknown SER backend '{backend}' (known: hf:PATH, emotion2vec[:MODEL])")
