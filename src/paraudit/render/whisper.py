"""Whisper offline.

Piper voices (`joe`, `joe-bright`, `joe-deep`): the voiced reading goes through the shared chain;
the whispered one is that same reading's spectral envelope (cepstrally smoothed) over seeded
white noise, 8 dB below the voiced reading's RMS — the words, timing and formants of the voiced
clip with no periodic source. espeak-ng voices (`espeak-m`, `espeak-f`): its `m3`/`f3` variants
against its `whisper`/`whisperf` ones (the second renderer; robotic).
"""

from __future__ import annotations

import numpy as np

from paraudit.dimensions.base import RenderedClip
from paraudit.errors import ParauditError
from paraudit.render.offline_chain import PIPER_TIMBRES, render_piper
from paraudit.render.prosody import GLOBAL_GAIN_DB

VALUES = ("voiced", "whispered")
WHISPER_BELOW_DB = 8.0
STFT_SIZE = 512
LIFTER = 24
ESPEAK_VOICES = {
    "espeak-m": {"voiced": "en-us+m3", "whispered": "en-us+whisper"},
    "espeak-f": {"voiced": "en-us+f3", "whispered": "en-us+whisperf"},
}
VOICES = (*PIPER_TIMBRES, *ESPEAK_VOICES)


def noise_vocode(samples: np.ndarray, rate: int, seed: int) -> np.ndarray:
    """`samples`' smoothed spectral envelope over seeded white noise, 8 dB below its RMS.

    Each 23 ms frame's log spectrum is cepstrally liftered to its first 24 coefficients (about
    1 ms of quefrency, far below any pitch period here: 4-13 ms), which keeps the formants and
    drops the harmonics. Praat's LPC resynthesis was tried first: its sharp poles left 10-17 %
    of frames with a detectable pitch, this leaves 0-2 %.
    """
    from scipy.signal import istft, stft

    x = np.asarray(samples, dtype=np.float64)
    n, overlap = STFT_SIZE, STFT_SIZE * 3 // 4
    _, _, spec = stft(x, rate, nperseg=n, noverlap=overlap)
    ceps = np.fft.irfft(np.log(np.abs(spec) + 1e-9), axis=0)
    ceps[LIFTER : ceps.shape[0] - LIFTER + 1] = 0.0
    envelope = np.exp(np.fft.rfft(ceps, axis=0).real)[: spec.shape[0]]
    noise = np.random.default_rng(seed).standard_normal(len(x))
    _, _, nspec = stft(noise, rate, nperseg=n, noverlap=overlap)
    nspec = nspec / (np.abs(nspec).mean() + 1e-12)
    _, y = istft(envelope * nspec, rate, nperseg=n, noverlap=overlap)
    y = np.asarray(y[: len(x)], dtype=np.float64)
    rms_x, rms_y = np.sqrt(np.mean(x**2)), np.sqrt(np.mean(y**2))
    if rms_y == 0:
        return y
    gain = float(rms_x / rms_y) * 10 ** (-WHISPER_BELOW_DB / 20)
    return np.asarray(np.clip(y * gain, -1.0, 1.0), dtype=np.float64)


def render(text: str, value: str, *, voice: str = "joe", seed: int = 0) -> RenderedClip:
    if value not in VALUES:
        raise ParauditError(f"whisper has no value {value!r} (its values: {', '.join(VALUES)})")
    if voice in ESPEAK_VOICES:
        from paraudit.render.espeak import speak, ssml

        name = ESPEAK_VOICES[voice][value]
        sp = speak(ssml(text.split()), name)
        # espeak's whisper variants are as loud as its voiced ones; the same drop as for Piper.
        drop = WHISPER_BELOW_DB if value == "whispered" else 0.0
        samples = np.clip(sp.samples * 10 ** ((GLOBAL_GAIN_DB - drop) / 20), -1.0, 1.0)
        meta: dict[str, object] = {"renderer": f"espeak-ng:{name}", "voice": voice}
        return RenderedClip(
            samples.astype(np.float32),
            sp.rate,
            {**meta, "dimension": "whisper", "value": value, "text": text},
        )
    samples, rate, meta = render_piper(text, voice=voice, seed=seed)
    if value == "whispered":
        samples = noise_vocode(samples, rate, seed).astype(np.float32)
        meta = {**meta, "renderer": "piper:joe-medium+noise-vocoded", "whisper_below_db": 8.0}
    return RenderedClip(
        samples, rate, {**meta, "dimension": "whisper", "value": value, "text": text}
    )
