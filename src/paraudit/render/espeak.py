"""The second offline renderer: espeak-ng through the `espeakng-loader` wheel, which ships
`libespeak-ng.so` and its voice data, so nothing is installed system-wide or downloaded.

Why espeak-ng beside Piper: it parses SSML (`<emphasis>`, `<prosody>`, `<break>`), has true
whisper variants and reports where each word starts in the audio (word events), which a stress
or whisper contrast needs and Piper cannot give without patching its model. It is formant
synthesis and sounds robotic, so both values of a contrast are always rendered by the same
renderer and voice (offline-stack-notes.md).

Called through ctypes in synchronous mode; espeak-ng keeps global state, so every call holds
`LOCAL_COMPUTE`. Its output is not byte-reproducible across calls (see `speak_once`).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

from paraudit.errors import MissingExtraError, ParauditError
from paraudit.render.tts import LOCAL_COMPUTE

_AUDIO_OUTPUT_SYNCHRONOUS = 2
_CHARS_UTF8 = 1
_SSML = 0x10
_EVENT_LIST_TERMINATED = 0
_EVENT_WORD = 1


class _Event(ctypes.Structure):
    _fields_ = [  # noqa: RUF012 - ctypes' own declaration form
        ("type", ctypes.c_int),
        ("unique_identifier", ctypes.c_uint),
        ("text_position", ctypes.c_int),
        ("length", ctypes.c_int),
        ("audio_position", ctypes.c_int),
        ("sample", ctypes.c_int),
        ("user_data", ctypes.c_void_p),
        ("id", ctypes.c_char * 8),
    ]


_Callback = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event)
)


@dataclass(frozen=True)
class EspeakSpeech:
    samples: np.ndarray[Any, Any]
    """Mono float64 in [-1, 1]."""
    rate: int
    word_starts: tuple[float, ...]
    """Start time (s) of each word espeak spoke, in order."""
    word_positions: tuple[int, ...]
    """Where each of those words starts in the input, 0-based characters (espeak may speak two
    short words as one: "by the")."""


class _Engine:
    def __init__(self) -> None:
        try:
            import espeakng_loader
        except ImportError:
            raise MissingExtraError("the espeak-ng renderer", "espeak", "espeakng-loader") from None
        self.lib = ctypes.CDLL(espeakng_loader.get_library_path())
        data = espeakng_loader.get_data_path().encode()
        self.rate = int(self.lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, data, 0))
        if self.rate <= 0:
            raise ParauditError("espeak-ng did not initialise (its voice data was not found)")
        self._chunks: list[np.ndarray] = []
        self._starts: list[int] = []
        self._positions: list[int] = []
        # Kept on self: ctypes frees a callback object that nothing references.
        self._cb = _Callback(self._on_audio)
        self.lib.espeak_SetSynthCallback(self._cb)

    def _on_audio(self, wav: Any, n: int, events: Any) -> int:
        if n > 0:
            self._chunks.append(np.ctypeslib.as_array(wav, shape=(n,)).astype(np.float64))
        i = 0
        while events[i].type != _EVENT_LIST_TERMINATED:
            if events[i].type == _EVENT_WORD:
                self._starts.append(int(events[i].sample))
                self._positions.append(int(events[i].text_position) - 1)
            i += 1
        return 0

    def speak(self, text: str, voice: str, is_ssml: bool) -> EspeakSpeech:
        self._chunks, self._starts, self._positions = [], [], []
        if self.lib.espeak_SetVoiceByName(voice.encode()) != 0:
            raise ParauditError(f"espeak-ng has no voice {voice!r}")
        data = text.encode("utf-8")
        flags = _CHARS_UTF8 | (_SSML if is_ssml else 0)
        err = self.lib.espeak_Synth(data, len(data) + 1, 0, 1, 0, flags, None, None)
        self.lib.espeak_Synchronize()
        if err != 0 or not self._chunks:
            raise ParauditError(f"espeak-ng produced no audio (error {err})")
        samples = np.concatenate(self._chunks) / 32768.0
        starts = tuple(s / self.rate for s in self._starts)
        return EspeakSpeech(samples, self.rate, starts, tuple(self._positions))


@lru_cache(maxsize=1)
def _engine() -> _Engine:
    return _Engine()


def speak(text: str, voice: str, *, is_ssml: bool = True) -> EspeakSpeech:
    """Render an SSML document (`<speak>…</speak>`), or plain text, with an espeak-ng voice
    ('en-us+m3')."""
    with LOCAL_COMPUTE:
        return _engine().speak(text, voice, is_ssml)


@lru_cache(maxsize=64)
def speak_once(text: str, voice: str) -> EspeakSpeech:
    """`speak` of plain text, kept per (text, voice) for this process.

    espeak-ng is not sample-deterministic: the same text rendered again (above all after
    another voice) came out a few samples longer, with word-level differences up to 7 dB. A
    contrast built on one rendering (emphasis) differs only where it is manipulated.
    """
    return speak(text, voice, is_ssml=False)


def ssml(words: list[str], *, emphasis: int | None = None) -> str:
    """The words as SSML, the one at index `emphasis` inside `<emphasis level="strong">`."""
    parts = [
        f'<emphasis level="strong">{escape(w)}</emphasis>' if i == emphasis else escape(w)
        for i, w in enumerate(words)
    ]
    return "<speak>" + " ".join(parts) + "</speak>"
