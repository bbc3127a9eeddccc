"""What the runner checks before it calls a judge: capabilities, token budgets, audio length."""

from __future__ import annotations

from collections.abc import Iterable

import soundfile as sf

from paraudit.errors import ParauditError
from paraudit.judges.base import Judge
from paraudit.protocols.instances import Instance
from paraudit.protocols.parts import AudioPart

# Clip durations by content hash: a plan asks for the same few thousand clips again and again.
_DURATIONS: dict[str, float] = {}


def audio_seconds(instances: Iterable[Instance]) -> float:
    """Seconds of audio the instances send (a clip sent twice counts twice)."""
    total = 0.0
    for inst in instances:
        for p in inst.prompt:
            if isinstance(p, AudioPart):
                seconds = _DURATIONS.get(p.sha256)
                if seconds is None:
                    seconds = _DURATIONS[p.sha256] = sf.info(str(p.path)).duration
                total += seconds
    return total


def check_capabilities(judge: Judge, instances: Iterable[Instance]) -> None:
    """Refuse, before any call, questions a judge declares it cannot take (never truncate)."""
    caps = judge.capabilities
    for inst in instances:
        clips = [p for p in inst.prompt if isinstance(p, AudioPart)]
        if clips and not caps.audio_in:
            raise ParauditError(
                f"{judge.label} takes no audio, but probe {inst.probe} sends clips; "
                "use --probes O,T for text-only judges"
            )
        if caps.max_audio_parts is not None and len(clips) > caps.max_audio_parts:
            raise ParauditError(
                f"{judge.label} takes at most {caps.max_audio_parts} audio parts, but "
                f"{inst.instance_id} has {len(clips)}; limit --protocols or --probes"
            )
        if caps.max_audio_seconds is not None:
            seconds = audio_seconds([inst])
            if seconds > caps.max_audio_seconds:
                raise ParauditError(
                    f"{judge.label} takes at most {caps.max_audio_seconds:g} s of audio, but "
                    f"{inst.instance_id} has {seconds:.1f} s; nothing is truncated silently"
                )


def check_token_budget(label: str, tpm: float | None, instances: Iterable[Instance]) -> None:
    """Refuse up front a token budget that one call alone exceeds: it could never be spent."""
    if not tpm:
        return
    biggest = max(instances, key=estimated_tokens, default=None)
    if biggest is None:
        return
    need = estimated_tokens(biggest)
    if need > tpm:
        raise ParauditError(
            f"{label}: tpm={tpm:g} is below what one call needs (about {need:.0f} estimated "
            f"input tokens for {biggest.instance_id}); raise tpm to at least {need:.0f}"
        )


# Tokens per second of audio assumed for --tpm budgeting (Gemini's published rate, the higher
# of the hosted providers'), so a budget is not overrun.
AUDIO_TOKENS_PER_S = 32.0


def estimated_tokens(inst: Instance) -> float:
    """Input tokens of one call, estimated: text characters / 4 plus audio seconds × 32."""
    return text_tokens([inst]) + audio_seconds([inst]) * AUDIO_TOKENS_PER_S


def text_tokens(instances: Iterable[Instance]) -> int:
    """Rough text-token count (characters / 4) of the prompts' text parts."""
    return text_characters(instances) // 4


def text_characters(instances: Iterable[Instance]) -> int:
    """Characters in the prompts' text parts."""
    return sum(len(p.text) for i in instances for p in i.prompt if not isinstance(p, AudioPart))
