"""Offline judges that answer through the same prompt → reply text → parse path as real ones."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paraudit.errors import ParauditError

if TYPE_CHECKING:
    from paraudit.judges.base import Judge
    from paraudit.judges.registry import Spec


def make_builtin(spec: str, s: Spec) -> Judge:
    from paraudit.judges.builtin.drops_audio import DropsAudioJudge
    from paraudit.judges.builtin.listeners import LISTENERS, listener
    from paraudit.judges.builtin.listeners.base import ListenerJudge
    from paraudit.judges.builtin.prosody import ProsodyJudge
    from paraudit.judges.builtin.simple import (
        AbstainJudge,
        FirstJudge,
        RandomJudge,
        TranscriptJudge,
    )
    from paraudit.judges.registry import BUILTIN_MODELS, _did_you_mean

    table = {
        "random": RandomJudge,
        "first": FirstJudge,
        "transcript": TranscriptJudge,
        "prosody": ProsodyJudge,
        "drops-audio": DropsAudioJudge,
        "abstain": AbstainJudge,
    }
    if s.model in LISTENERS:  # a dimension's acoustic judge (builtin:whisper, …)
        return ListenerJudge(listener(s.model), s, s.options)
    if s.model not in table:
        raise ParauditError(
            f"unknown builtin judge '{s.model}' (known: {', '.join(BUILTIN_MODELS)})"
            + _did_you_mean(s.model, list(BUILTIN_MODELS))
        )
    judge: Judge = table[s.model](s, s.options)
    return judge
