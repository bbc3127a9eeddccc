"""DNSMOS P.835 (SIG, BAK, OVRL) through `speechmos`, whose wheel ships the ONNX models.

DNSMOS takes 16 kHz input: other rates are resampled here explicitly, and the signal is clipped
to [-1, 1] (speechmos refuses anything outside). speechmos's `run()` keeps one global model
object; this module builds its own once per process (single-threaded sessions, so scores do not
depend on the machine's thread count) and reuses it, so a call costs the inference only.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from paraudit.audio.clips import resample
from paraudit.errors import MissingExtraError

DNSMOS_RATE = 16000


@dataclass(frozen=True)
class DnsmosScore:
    sig: float
    """Speech signal quality, 1–5."""
    bak: float
    """Background noise (higher = less intrusive), 1–5."""
    ovrl: float
    """Overall quality, 1–5."""
    p808: float
    """P.808 overall MOS, 1–5."""

    def as_dict(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in asdict(self).items()}


@lru_cache(maxsize=1)
def _model() -> Any:
    try:
        import onnxruntime as ort
        from speechmos import dnsmos as sm
    except ImportError:
        raise MissingExtraError("DNSMOS", "qc", "speechmos") from None
    folder = Path(sm.__file__).parent / "dnsmos_models"
    primary, p808 = str(folder / "sig_bak_ovr.onnx"), str(folder / "model_v8.onnx")
    model = sm.DNSMOS(primary, p808)
    # Replace its sessions with single-threaded ones: thread count changes float summation
    # order, and scores should not depend on the machine.
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    cpu = ["CPUExecutionProvider"]
    model.onnx_sess = ort.InferenceSession(primary, opts, providers=cpu)
    model.p808_onnx_sess = ort.InferenceSession(p808, opts, providers=cpu)
    return model


def dnsmos(samples: np.ndarray, rate: int) -> DnsmosScore:
    """DNSMOS of a mono clip at any sample rate (clips shorter than 9 s are looped, as in
    DNSMOS itself)."""
    x = resample(np.asarray(samples, dtype=np.float64), rate, DNSMOS_RATE)
    x = np.clip(x, -1.0, 1.0).astype(np.float32)
    if x.size == 0 or not np.any(x):
        raise ValueError("DNSMOS of a silent clip is undefined")
    out = _model()(x, DNSMOS_RATE, False)
    return DnsmosScore(
        sig=float(out["sig_mos"]),
        bak=float(out["bak_mos"]),
        ovrl=float(out["ovrl_mos"]),
        p808=float(out["p808_mos"]),
    )
