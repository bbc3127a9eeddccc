"""Hosted expressive TTS: OpenAI audio/speech (gpt-4o-mini-tts) and Gemini TTS.

Both go through their official SDKs (synchronous clients; the SDK retries rate limits and
server errors with backoff, honouring Retry-After). Keys come from the environment only and are
never recorded. `@BASE_URL` points either at another compatible server (tests use a loopback).
"""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from paraudit.errors import MissingExtraError, ParauditError
from paraudit.items.records import Speaker
from paraudit.providers import NO_KEY, find_key, first_line, openai_failure
from paraudit.render.tts import TTSBackend, TTSSpec
from paraudit.render.tts_styles import gemini_prompt, instructions_for, style_key

OPENAI_VOICES = ("echo", "alloy", "ash")
"""The paper's voice set (B.2.3)."""
GEMINI_VOICES = ("Kore", "Puck", "Charon")
GEMINI_DEFAULT_MODEL = "gemini-2.5-flash-preview-tts"
HOSTED_RATE = 24000
"""Both services speak 24 kHz mono; the set keeps it unless `?rate=` asks for another."""


class TTSError(ParauditError):
    """A hosted TTS call that failed for good (after the SDK's own retries)."""


def _voice_set(options: dict[str, str], default: tuple[str, ...]) -> tuple[str, ...]:
    raw = options.get("voices", options.get("voice"))
    if raw is None:
        return default
    voices = tuple(dict.fromkeys(v.strip() for v in raw.split(",") if v.strip()))
    if len(voices) < 2:
        raise ParauditError(
            f"the TTS voice set needs at least two voices (human ≠ assistant), got '{raw}'"
        )
    return voices


def _rate(options: dict[str, str]) -> int:
    try:
        rate = int(options.get("rate", HOSTED_RATE))
    except ValueError:
        raise ParauditError(
            f"rate must be an integer sample rate, got '{options['rate']}'"
        ) from None
    if not 8000 <= rate <= 48000:
        raise ParauditError(f"rate {rate} Hz is outside 8000–48000")
    return rate


def decode_wav(data: bytes) -> tuple[np.ndarray, int]:
    """Mono float samples of a WAV reply (libsndfile also reads streamed WAVs whose chunk
    sizes are placeholders)."""
    try:
        samples, rate = sf.read(io.BytesIO(data), dtype="float64", always_2d=True)
    except (sf.LibsndfileError, RuntimeError, TypeError):
        raise TTSError("the TTS service did not return WAV audio") from None
    return samples.mean(axis=1), int(rate)


class OpenAITTS(TTSBackend):
    """`openai:gpt-4o-mini-tts[@BASE_URL][?voices=echo,alloy,ash]` — POST /audio/speech with
    model, voice, input (the transcript, verbatim), instructions (per emotion; the long-utterance
    template with extra cues) and response_format=wav."""

    name = "openai"

    def __init__(self, spec: str, s: TTSSpec, cache_dir: Path | None) -> None:
        super().__init__(spec, cache_dir)
        try:
            import openai
        except ImportError:
            raise MissingExtraError("TTS backend 'openai'", "openai", "openai") from None
        self.model = s.model or "gpt-4o-mini-tts"
        self.base_url = s.base_url
        self.voices = _voice_set(s.options, OPENAI_VOICES)
        self.sample_rate = _rate(s.options)
        # A local compatible server usually needs no key; the hosted API always does.
        key = find_key(
            s.options.get("key_env"),
            ("OPENAI_API_KEY",),
            "openai TTS",
            optional=s.base_url is not None,
        )
        self.secrets = (key,) if key != NO_KEY else ()
        self._openai = openai
        self.client = openai.OpenAI(
            api_key=key,
            base_url=s.base_url,
            max_retries=int(s.options.get("max_retries", 4)),
            timeout=float(s.options.get("timeout", 120)),
        )

    @property
    def label(self) -> str:
        return f"openai:{self.model}" + (f"@{self.base_url}" if self.base_url else "")

    def request(
        self, text: str, emotion: str, role: Speaker, voice: str, attempt: int
    ) -> dict[str, Any]:
        instructions, _ = instructions_for(text, emotion)
        return {**super().request(text, emotion, role, voice, attempt), "instr": instructions}

    def render(
        self, text: str, emotion: str, role: Speaker, voice: str, attempt: int
    ) -> tuple[np.ndarray, int, dict[str, Any]]:
        o = self._openai
        instructions, templated = instructions_for(text, emotion)
        try:
            resp = self.client.audio.speech.create(
                model=self.model,
                voice=voice,
                input=text,
                instructions=instructions,
                response_format="wav",
            )
        except (o.APIConnectionError, o.APITimeoutError):
            raise TTSError(
                f"openai TTS: cannot reach {self.base_url or 'the OpenAI API'}"
            ) from None
        except o.OpenAIError as e:
            # The SDK has already retried what is worth retrying: every failure here is final.
            failure = openai_failure(o, e, "openai TTS")
            if failure is None:
                raise
            fatal = failure.message if failure.fatal else f"openai TTS: {failure.message}"
            raise TTSError(fatal) from None
        samples, rate = decode_wav(resp.content)
        meta = {
            "model": self.model,
            "instructions": instructions,
            "long_template": templated,
            "style": style_key(emotion),
            "response_format": "wav",
            "source_rate": rate,
        }
        return samples, rate, meta


_PCM_RATE = re.compile(r"rate=(\d+)")


class GeminiTTS(TTSBackend):
    """`gemini:MODEL[@BASE_URL][?voices=Kore,Puck,Charon]` — generateContent with response
    modality AUDIO and a prebuilt voice; the style is written in the prompt text. The reply is
    16-bit little-endian PCM (24 kHz unless its MIME type says otherwise)."""

    name = "gemini"

    def __init__(self, spec: str, s: TTSSpec, cache_dir: Path | None) -> None:
        super().__init__(spec, cache_dir)
        try:
            from google import genai
            from google.genai import errors, types
        except ImportError:
            raise MissingExtraError("TTS backend 'gemini'", "gemini", "google-genai") from None
        self.model = s.model or GEMINI_DEFAULT_MODEL
        self.base_url = s.base_url
        self.voices = _voice_set(s.options, GEMINI_VOICES)
        self.sample_rate = _rate(s.options)
        key = find_key(s.options.get("key_env"), ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "gemini TTS")
        http = types.HttpOptions(
            base_url=s.base_url,
            timeout=int(float(s.options.get("timeout", 120)) * 1000),
            retry_options=types.HttpRetryOptions(
                attempts=int(s.options.get("max_retries", 4)) + 1, initial_delay=1.0
            ),
        )
        self._types, self._errors = types, errors
        self.secrets = (key,)
        self.client = genai.Client(api_key=key, http_options=http)

    @property
    def label(self) -> str:
        return f"gemini:{self.model}" + (f"@{self.base_url}" if self.base_url else "")

    def request(
        self, text: str, emotion: str, role: Speaker, voice: str, attempt: int
    ) -> dict[str, Any]:
        prompt, _ = gemini_prompt(text, emotion)
        return {**super().request(text, emotion, role, voice, attempt), "prompt": prompt}

    def render(
        self, text: str, emotion: str, role: Speaker, voice: str, attempt: int
    ) -> tuple[np.ndarray, int, dict[str, Any]]:
        t = self._types
        prompt, templated = gemini_prompt(text, emotion)
        config = t.GenerateContentConfig(
            response_modalities=["AUDIO"],
            speech_config=t.SpeechConfig(
                voice_config=t.VoiceConfig(
                    prebuilt_voice_config=t.PrebuiltVoiceConfig(voice_name=voice)
                )
            ),
        )
        try:
            resp = self.client.models.generate_content(
                model=self.model, contents=prompt, config=config
            )
        except self._errors.APIError as e:
            raise TTSError(f"gemini TTS: HTTP {e.code} ({first_line(e)})") from None
        except OSError as e:
            raise TTSError(f"gemini TTS: cannot reach the service ({first_line(e)})") from None
        blob = None
        for cand in resp.candidates or []:
            for part in (cand.content.parts if cand.content else None) or []:
                if part.inline_data is not None and part.inline_data.data:
                    blob = part.inline_data
                    break
            if blob is not None:
                break
        if blob is None:
            reason = ""
            if resp.candidates and resp.candidates[0].finish_reason:
                reason = f" (finish reason {resp.candidates[0].finish_reason})"
            raise TTSError(f"gemini TTS returned no audio{reason}")
        raw: Any = blob.data
        data = raw if isinstance(raw, bytes) else base64.b64decode(raw)
        mime = blob.mime_type or ""
        if "wav" in mime:
            samples, rate = decode_wav(data)
        else:
            m = _PCM_RATE.search(mime)
            rate = int(m.group(1)) if m else HOSTED_RATE
            pcm = np.frombuffer(data[: len(data) // 2 * 2], "<i2")
            samples = pcm.astype(np.float64) / 32768.0
        meta = {
            "model": self.model,
            "prompt": prompt,
            "long_template": templated,
            "style": style_key(emotion),
            "mime_type": mime,
            "source_rate": rate,
        }
        return samples, rate, meta
