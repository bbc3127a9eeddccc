from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from paraudit.audio.clips import resample, wav_bytes
from paraudit.audio.pitch import estimate_f0_median
from paraudit.errors import ParauditError
from paraudit.render.backends import make_tts
from paraudit.render.hosted_tts import TTSError, decode_wav
from paraudit.render.piper_tts import split_for_pauses
from paraudit.render.tts import draw_voices, parse_tts_spec
from paraudit.render.tts_styles import LONG_UTTERANCE_WORDS, STYLES
from tests.render.tts_loopback import RATE, Failure, TTSLoopback

TEXT = "They moved the meeting to Friday."
LONG = (
    "I have been waiting on the phone for almost an hour and nobody has told me when my "
    "replacement card will finally arrive at my house."
)


@pytest.fixture(scope="module")
def piper_speech() -> np.ndarray:
    """Real speech from the offline voice, at the hosted services' 24 kHz."""
    from paraudit.render.piper_voice import load_synth, resolve_voice

    synth = load_synth(resolve_voice(None))
    return resample(synth.synthesize(TEXT), synth.sample_rate, RATE)


@pytest.fixture
def server(piper_speech: np.ndarray) -> Iterator[TTSLoopback]:
    with TTSLoopback(piper_speech) as s:
        yield s


def test_voice_draw_is_reproducible_and_never_gives_both_roles_one_voice() -> None:
    voices = ("echo", "alloy", "ash")
    pairs = [draw_voices(voices, 7, f"conv-{i}") for i in range(60)]
    assert all(p.human != p.assistant for p in pairs)
    assert pairs == [draw_voices(voices, 7, f"conv-{i}") for i in range(60)]
    assert {p.human for p in pairs} == set(voices)  # every voice gets drawn for humans
    assert len({(p.human, p.assistant) for p in pairs}) == 6
    assert pairs != [draw_voices(voices, 8, f"conv-{i}") for i in range(60)]
    assert pairs[0].for_role("assistant") == pairs[0].assistant
    with pytest.raises(ParauditError, match="at least two voices"):
        draw_voices(("echo", "echo"), 1, "c")


def test_spec_parsing_and_unknown_backend() -> None:
    s = parse_tts_spec("openai:gpt-4o-mini-tts@http://h:1/v1?voices=a,b&rate=16000")
    assert (s.backend, s.model, s.base_url) == ("openai", "gpt-4o-mini-tts", "http://h:1/v1")
    assert s.options == {"voices": "a,b", "rate": "16000"}
    with pytest.raises(ParauditError, match="unknown TTS backend 'elevenlabs'"):
        make_tts("elevenlabs:v2")


def test_openai_request_body_and_clip(
    server: TTSLoopback, tmp_path: Path, piper_speech: np.ndarray
) -> None:
    tts = make_tts(f"openai:gpt-4o-mini-tts@{server.url}/v1", cache_dir=tmp_path)
    assert tts.voices == ("echo", "alloy", "ash") and tts.sample_rate == RATE
    clip = tts.synthesize(TEXT, "sad", "human", "ash")
    req = server.requests[-1]
    assert req["path"] == "/v1/audio/speech"
    body = req["body"]
    assert body["model"] == "gpt-4o-mini-tts"
    assert body["voice"] == "ash"
    assert body["input"] == TEXT  # the words are sent verbatim
    assert body["instructions"] == STYLES["sad"][0]
    assert body["response_format"] == "wav"
    assert clip.sample_rate == RATE
    assert len(clip.samples) == len(piper_speech)
    assert np.max(np.abs(clip.samples - piper_speech)) < 1e-3
    assert clip.meta["voice"] == "ash" and clip.meta["emotion"] == "sad"
    assert clip.meta["long_template"] is False and "resampled_from_hz" not in clip.meta
    # A WAV written from the clip is 16-bit PCM at the set's rate.
    info = sf.info(io.BytesIO(wav_bytes(clip)))
    assert (info.samplerate, info.subtype, info.channels) == (RATE, "PCM_16", 1)


def test_openai_long_utterance_gets_the_template_but_the_same_words(
    server: TTSLoopback, tmp_path: Path
) -> None:
    assert len(LONG.split()) >= LONG_UTTERANCE_WORDS
    tts = make_tts(f"openai:gpt-4o-mini-tts@{server.url}/v1?voices=echo,alloy")
    clip = tts.synthesize(LONG, "frazzled", "human", "echo")
    body = server.requests[-1]["body"]
    assert body["input"] == LONG
    assert STYLES["frazzled"][0] in body["instructions"]
    assert STYLES["frazzled"][1] in body["instructions"]  # the extra cues
    assert LONG in body["instructions"]
    assert clip.meta["long_template"] is True


def test_cache_answers_repeat_requests_and_attempts_are_fresh(
    server: TTSLoopback, tmp_path: Path
) -> None:
    spec = f"openai:gpt-4o-mini-tts@{server.url}/v1"
    tts = make_tts(spec, cache_dir=tmp_path)
    a = tts.synthesize(TEXT, "angry", "human", "echo")
    again = make_tts(spec, cache_dir=tmp_path).synthesize(TEXT, "angry", "human", "echo")
    assert len(server.requests) == 1
    assert np.allclose(a.samples, again.samples, atol=1 / 32768) and again.meta == a.meta
    tts.synthesize(TEXT, "angry", "human", "echo", attempt=1)
    tts.synthesize(TEXT, "angry", "human", "alloy")
    assert len(server.requests) == 3


def test_set_rate_conversion_is_explicit_and_recorded(server: TTSLoopback) -> None:
    tts = make_tts(f"openai:gpt-4o-mini-tts@{server.url}/v1?rate=16000")
    clip = tts.synthesize(TEXT, "neutral", "assistant", "alloy")
    assert clip.sample_rate == 16000 and tts.describe()["sample_rate"] == 16000
    assert clip.meta["resampled_from_hz"] == RATE
    assert abs(clip.duration_s - len(server.pcm16) / RATE) < 0.01


def test_streamed_wav_with_placeholder_sizes_decodes(piper_speech: np.ndarray) -> None:
    with TTSLoopback(piper_speech, streamed_wav=True) as s:
        samples, rate = decode_wav(s.wav())
    assert rate == RATE and len(samples) == len(piper_speech)
    with pytest.raises(TTSError, match="did not return WAV"):
        decode_wav(b"ID3 not a wav at all")


def test_openai_errors_are_one_line(server: TTSLoopback) -> None:
    tts = make_tts(f"openai:gpt-4o-mini-tts@{server.url}/v1?max_retries=0")
    server.failures.append(Failure(401, "bad key"))
    with pytest.raises(TTSError, match="authentication failed"):
        tts.synthesize(TEXT, "happy", "human", "echo")
    server.failures.append(Failure(400, "voice not supported"))
    with pytest.raises(TTSError, match="request rejected"):
        tts.synthesize(TEXT, "happy", "human", "echo")
    with pytest.raises(ParauditError, match="unknown voice 'nova'"):
        tts.synthesize(TEXT, "happy", "human", "nova")
    with pytest.raises(ParauditError, match="no TTS style for emotion 'smug'"):
        tts.synthesize(TEXT, "smug", "human", "echo")


def test_openai_retries_a_server_error(server: TTSLoopback) -> None:
    tts = make_tts(f"openai:gpt-4o-mini-tts@{server.url}/v1?max_retries=2")
    server.failures.append(Failure(503, "overloaded"))
    clip = tts.synthesize(TEXT, "happy", "human", "echo")
    assert len(server.requests) == 2 and clip.duration_s > 1.0


def _camel(d: Any) -> Any:
    if not isinstance(d, dict):
        return d
    return {re.sub(r"_([a-z])", lambda m: m.group(1).upper(), k): _camel(v) for k, v in d.items()}


def test_gemini_request_body_and_pcm_reply(
    server: TTSLoopback, monkeypatch: pytest.MonkeyPatch, piper_speech: np.ndarray
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    tts = make_tts(f"gemini:gemini-2.5-flash-preview-tts@{server.url}")
    assert tts.voices == ("Kore", "Puck", "Charon")
    clip = tts.synthesize(TEXT, "empathetic", "assistant", "Puck")
    req = server.requests[-1]
    assert req["path"].endswith("/models/gemini-2.5-flash-preview-tts:generateContent")
    body = req["body"]
    prompt = body["contents"][0]["parts"][0]["text"]
    assert STYLES["empathetic"][0] in prompt and prompt.endswith(TEXT)
    gen = body["generationConfig"]
    assert gen["responseModalities"] == ["AUDIO"]
    # The SDK writes the nested speech config in snake_case; the API's JSON parser takes both.
    speech = _camel(gen["speechConfig"])
    assert speech["voiceConfig"]["prebuiltVoiceConfig"]["voiceName"] == "Puck"
    assert clip.sample_rate == RATE and clip.meta["source_rate"] == RATE
    assert np.max(np.abs(clip.samples - piper_speech)) < 1e-3
    assert clip.meta["style"] == "empathetic"


def test_gemini_needs_a_key_and_reports_http_errors(
    server: TTSLoopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(ParauditError, match="needs an API key"):
        make_tts(f"gemini:m@{server.url}")
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    tts = make_tts(f"gemini:m@{server.url}?max_retries=0")
    server.failures.append(Failure(403, "denied"))
    with pytest.raises(TTSError, match="HTTP 403"):
        tts.synthesize(TEXT, "sad", "human", "Kore")


def test_split_for_pauses_finds_enough_boundaries() -> None:
    phrases = split_for_pauses("Maybe we could move the meeting to Friday instead", 2)
    assert len(phrases) == 3 and all(len(p.split()) >= 2 for p in phrases)
    assert " ".join(phrases) == "Maybe we could move the meeting to Friday instead"
    assert split_for_pauses("Yes please", 2) == ["Yes please"]


def test_piper_voices_differ_and_attempts_push_the_profile(tmp_path: Path) -> None:
    tts = make_tts("piper", cache_dir=tmp_path)
    plain = tts.synthesize(TEXT, "neutral", "human", "plain")
    shifted = tts.synthesize(TEXT, "neutral", "human", "shifted")
    f_plain = estimate_f0_median(plain.samples, plain.sample_rate)
    f_shift = estimate_f0_median(shifted.samples, shifted.sample_rate)
    assert f_shift > f_plain * 1.3  # a clearly different speaker
    a0 = tts.synthesize(TEXT, "angry", "human", "plain")
    a4 = tts.synthesize(TEXT, "angry", "human", "plain", attempt=4)
    assert a4.meta["profile"]["pitch_st"] > a0.meta["profile"]["pitch_st"]
    assert a4.duration_s < a0.duration_s  # angry is faster, and further on retries
    assert plain.sample_rate == a4.sample_rate == tts.sample_rate
    with pytest.raises(ParauditError, match="piper: no human profile for emotion 'bored'"):
        tts.synthesize(TEXT, "bored", "human", "plain")
    before = tts.fresh_renders
    tts.synthesize(TEXT, "angry", "human", "plain", attempt=4)
    assert tts.fresh_renders == before and tts.cache_hits >= 1


def test_a_key_echoed_in_a_hosted_tts_error_is_redacted(
    server: TTSLoopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No provider key shape: only the literal key the backend sent can catch it (issue 30).
    key = "tts-private-4d2b8e61a0"
    monkeypatch.setenv("TTS_KEY", key)
    tts = make_tts(f"openai:gpt-4o-mini-tts@{server.url}/v1?max_retries=0&key_env=TTS_KEY")
    server.failures.append(Failure(401, f"key {key} was revoked"))
    with pytest.raises(TTSError) as info:
        tts.synthesize(TEXT, "happy", "human", "echo")
    assert "authentication failed" in str(info.value) and "revoked" in str(info.value)
    assert key not in str(info.value)
