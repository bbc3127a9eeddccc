"""The judge interface: async generate(prompt) -> reply text."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from paraudit.errors import ParauditError
from paraudit.judges.identity import JudgeIdentity, State
from paraudit.judges.spec import BUILTIN_HOOKS, RUNNER_OPTIONS, JudgeSpec, parse_judge_spec
from paraudit.protocols.parts import Prompt
from paraudit.protocols.questions import Question


@dataclass(frozen=True)
class Capabilities:
    audio_in: bool = True
    max_audio_parts: int | None = None
    max_audio_seconds: float | None = None

    def restricts(self) -> bool:
        """Whether some question could be beyond this judge (then the plan is checked first)."""
        return (
            not self.audio_in
            or self.max_audio_parts is not None
            or (self.max_audio_seconds is not None)
        )


@dataclass(frozen=True)
class Reply:
    text: str
    """The raw reply, always kept."""
    refused: str | None = None
    """Set when the provider refused (safety block, empty candidate), with the reason."""
    usage: dict[str, Any] = field(default_factory=dict)
    sent_audio_sha256: tuple[str, ...] | None = None
    """sha256 of each audio part's bytes as actually sent (backends that send audio set it)."""
    served: dict[str, str] | None = None
    """Who answered, as the provider says: `model` (the reply's model field, Gemini's model
    version, a local backend's loaded checkpoint) and, where the API gives one,
    `system_fingerprint` or `model_version`. Recorded per call (calls.sqlite, results.jsonl),
    never part of a call key: the same question asked again is the same call."""


class JudgeError(Exception):
    """A call failed in a way worth retrying (rate limit, 5xx, timeout)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class FatalJudgeError(ParauditError):
    """A call failed in a way retrying cannot fix (authentication, bad request): stop the run."""


__all__ = ["BUILTIN_HOOKS", "RUNNER_OPTIONS", "Capabilities", "Judge", "JudgeError", "Reply"]

_BUILDING: ContextVar[JudgeSpec | None] = ContextVar("_BUILDING", default=None)
"""The spec the registry is building a judge from: a third-party judge's constructor takes the
spec text (its published signature), and must not parse that text a second time."""


@contextmanager
def building(spec: JudgeSpec) -> Iterator[None]:
    token = _BUILDING.set(spec)
    try:
        yield
    finally:
        _BUILDING.reset(token)


class Judge(ABC):
    """A judge backend, built by the registry from a parsed JudgeSpec (its one identity)."""

    capabilities = Capabilities()
    accepts: frozenset[str] | None = None
    """The spec options this judge reads (besides RUNNER_OPTIONS); any other is refused as a
    typo. None: not checked (hosted backends pass unknown options on to the provider's API,
    third-party judges read what they like)."""
    reads_question = False
    """True: the runner passes each instance's structured `question` to `generate` (judges
    that answer from the question's data rather than only the prompt, e.g. the built-ins)."""

    def __init__(self, spec: str | JudgeSpec, options: dict[str, str] | None = None) -> None:
        # The registry passes the spec it was given (or, to a third-party constructor that
        # takes text, sets it in `building`); only a judge built by hand parses its own text.
        if isinstance(spec, JudgeSpec):
            js = spec
        else:
            pending = _BUILDING.get()
            js = pending if pending is not None and pending.text == spec else parse_judge_spec(spec)
        self.judge_spec: JudgeSpec = js
        self.spec = js.text
        """The spec as written, for messages."""
        self.options = options if options is not None else js.options
        self.notes: list[str] = []
        """What the user should know that is not an error (e.g. a check skipped)."""
        self.secrets: tuple[str, ...] = ()
        """The credentials this judge sends (an API key read from the environment): the runner
        redacts them from replies and errors before anything is stored or printed, since a
        server may echo the key it was sent."""

    @property
    def label(self) -> str:
        """The judge's unique name in rows, tables and run specs (JudgeSpec.label)."""
        return self.judge_spec.label

    def state(self) -> State:
        """What changes this judge's answers that its spec does not say: the one hook a backend
        may add to its identity (none by default). Declare a version of how the judge asks (a
        scaffold), the defaults applied to options the spec leaves out, a weights hash; never
        spec options again, and nothing that changes only how calls are made. Fixed once the
        judge is built: its keys read it once (runner.keys), a dry run before any loading."""
        return {}

    def identity(self) -> JudgeIdentity:
        """The judge's one identity (spec + state): label, call keys and run.json derive from
        it, so a backend cannot name a judge one way and key its calls another."""
        return JudgeIdentity(self.judge_spec, self.state())

    def calibrate(self, dataset: Any) -> None:  # noqa: B027 - optional hook
        """Optional: see the whole dataset before the run (unsupervised normalisation only)."""

    async def preflight(self) -> None:  # noqa: B027 - optional hook
        """Optional: check the configuration once (key, model, reachability) before any call;
        raise FatalJudgeError with a clear message when it cannot work."""

    def served(self) -> dict[str, str] | None:
        """Who answers when a reply does not say (a built-in judge: itself); None: unknown."""
        return None

    def describe(self) -> dict[str, Any]:
        """What run.json records about this judge: its identity as structure and what else an
        auditor wants to know (SDK version, batch size: backends add them); never a key."""
        ident = self.identity().as_dict()
        return {"spec": self.judge_spec.head, "label": self.label, "identity": ident}

    @abstractmethod
    async def generate(
        self, prompt: Prompt, *, sample: int = 0, question: Question | None = None
    ) -> Reply:
        """Answer one prompt; `sample` distinguishes re-asks of the same prompt. `question` (the
        same question as data) is passed only when the class sets `reads_question`."""
