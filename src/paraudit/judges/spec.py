"""JudgeSpec: a judge spec `backend:model[@base_url][?name=value&...]`, parsed once, at the CLI.

The grammar is `paraudit.specs`; this module adds the judges' option rules. Options split in
two: model options change what the judge answers (temperature, seed, …) and are part of its
label and cache key; harness options change only how calls are made (rate limits, timeouts,
the key's variable name, test hooks) and are not. Values are typed here, at parse time, so a
typo is one line before any work, never a hang or a traceback later.

The parsed object is the judge's only identity: the runner, the judge, the Ray proxy and its
workers receive it as an object, and run.json stores it as structure (`as_dict`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from paraudit.specs import (
    Convert,
    ParsedSpec,
    SpecError,
    did_you_mean,
    form,
    integer,
    near_miss,
    number,
    parse_spec,
    typed,
)

# Options that change how calls are made but not what the model answers.
HARNESS_OPTIONS = frozenset(
    {
        "key_env",
        "timeout",
        # N draws per question: each draw's call is keyed by its sample index already, and
        # the row keeps every draw (runner.samples), so no single answer changes with it
        "samples",
        "rpm",
        "tpm",
        "max_audio_seconds",
        "inline_limit_mb",
        "batch_size",
        "limit_audio",
        # vLLM engine sizing: where the model runs, not what it answers
        "max_model_len",
        "gpu_memory_utilization",
        # builtin judges' test hooks
        "delay",
        "burn",
        "calllog",
        "fail_rate",
        "fail_times",
    }
)


def one_of(*names: str) -> Convert:
    """A value from a fixed set (a typo names the choices)."""

    def check(v: str) -> str:
        if v not in names:
            raise ValueError(f"must be one of {', '.join(names)}")
        return v

    return check


MIN_RPM = 0.1
"""The slowest rate limit taken: one call per 10 minutes. Below it (`rpm=1e-9`) a limit is a
typo that would announce a wait of centuries, not a limit."""


def rate(least: float) -> Convert:
    """A rate limit: a finite number > 0 and at least `least`."""
    positive = number(0)

    def check(v: str) -> float:
        x = float(positive(v))
        if x < least:
            raise ValueError(
                f"is below {least:g}: the calls would be {60 / x:.3g} s apart; give at least "
                f"{least:g} or leave the limit out"
            )
        return x

    return check


CHECKS: dict[str, Convert] = {
    "transcript": one_of("given", "none", "asr"),
    "hears": one_of("speech"),
    "clips": one_of("separate", "joined"),
    "constrain": one_of("labels"),
    "rpm": rate(MIN_RPM),
    "tpm": rate(1),
    "samples": integer(1, 100),
    "timeout": number(0),
    "max_audio_seconds": number(0),
    "inline_limit_mb": number(0),
    "batch_size": integer(1),
    "limit_audio": integer(1),
    "delay": number(0, lo_open=False),
    "burn": number(0, lo_open=False),
    "max_model_len": integer(1),
    "gpu_memory_utilization": number(0, 1),
    "fail_rate": number(0, 1, lo_open=False),
    "fail_times": integer(0),
    "temperature": number(0, lo_open=False),
    "top_p": number(0, 1),
    "seed": integer(-(2**63)),
    "max_tokens": integer(1),
}

# What each backend reads. Local backends refuse anything else (a typo such as `sed=3` would
# otherwise run with the default and label the rows as if it had been applied); hosted ones
# pass other names through to the provider's API, but refuse a near miss of a name they know.
RUNNER_OPTIONS = frozenset({"rpm", "tpm", "timeout", "samples"})
"""Options the runner itself reads for any judge (rate limits, the per-call timeout)."""
BUILTIN_HOOKS = frozenset({"delay", "burn", "calllog", "fail_rate", "fail_times"})
"""The built-in judges' test hooks (common to all of them)."""
DECODING = frozenset({"temperature", "top_p", "seed", "max_tokens"})
LOCAL_OPTIONS: dict[str, frozenset[str]] = {
    "builtin:random": BUILTIN_HOOKS | {"seed"},
    "builtin:first": BUILTIN_HOOKS,
    "builtin:transcript": BUILTIN_HOOKS | {"hears"},
    "builtin:prosody": BUILTIN_HOOKS | {"clips", "cues", "words", "prior"},
    "builtin:drops-audio": BUILTIN_HOOKS,
    "builtin:abstain": BUILTIN_HOOKS,
    # The dimensions' acoustic judges (judges/builtin/listeners): ?words=follow where the
    # dimension's words can carry a value (Dimension.words_carry).
    "builtin:emphasis": BUILTIN_HOOKS,
    "builtin:urgency": BUILTIN_HOOKS | {"words"},
    "builtin:whisper": BUILTIN_HOOKS,
    "builtin:sarcasm": BUILTIN_HOOKS | {"words"},
    "builtin:hesitation": BUILTIN_HOOKS,
    "hf": frozenset(
        {"device", "dtype", "batch_size", "max_tokens", "temperature", "seed", "constrain", "clips"}
    ),
    "vllm": frozenset(
        {"limit_audio", "max_model_len", "gpu_memory_utilization", "batch_size", "clips"} | DECODING
    ),
    "desta": frozenset({"transcript", "device"} | DECODING),
}
HOSTED_OPTIONS: dict[str, frozenset[str]] = {
    "openai": DECODING | {"key_env", "max_audio_seconds", "audio_part", "clips"},
    "gemini": DECODING | {"key_env", "max_audio_seconds", "inline_limit_mb", "clips"},
}
HOSTED = tuple(HOSTED_OPTIONS)


Value = float | int | str

IDENTITY_KEYS = 2
"""The call-key formula of every folder made now (runner.keys: the judge's identity)."""


@dataclass(frozen=True)
class JudgeSpec:
    text: str
    """The spec as the user wrote it (for messages and resume commands)."""
    backend: str
    model: str
    base_url: str | None
    model_options: tuple[tuple[str, str], ...]
    """Output-changing options as written, sorted by name (the label and cache keys use the
    text, so `temperature=0` and `temperature=0.0` stay the judges they always were)."""
    harness_options: tuple[tuple[str, str], ...]
    """Options that change only how calls are made, as written, sorted by name."""
    values: tuple[tuple[str, Value], ...]
    """Every option, typed (numbers as float or int; others as text), sorted by name."""
    key_env: str | None = None
    """The environment variable holding the API key (never the key itself)."""
    call_keys: int = IDENTITY_KEYS
    """Which formula the run folder's call keys use (runner.keys): 2, the identity's; 1, the
    formula of folders written before it, so that they resume with their calls found. A
    property of the folder, set by the runner, not of the judge: label and identity ignore it."""

    @property
    def options(self) -> dict[str, str]:
        """Every option (model and harness) as text, as backends read them."""
        return dict(sorted([*self.model_options, *self.harness_options]))

    def value(self, name: str) -> Value | None:
        return dict(self.values).get(name)

    def number(self, name: str) -> float | None:
        """A numeric option, typed at parse time (None when not given)."""
        v = self.value(name)
        return float(v) if isinstance(v, int | float) else None

    def whole(self, name: str) -> int | None:
        v = self.value(name)
        return v if isinstance(v, int) else None

    def harness_float(self, name: str) -> float | None:
        return self.number(name)

    @property
    def head(self) -> str:
        """backend:model[@base_url]"""
        return f"{self.backend}:{self.model}" + (f"@{self.base_url}" if self.base_url else "")

    @property
    def label(self) -> str:
        """The judge's unique human-readable name: head plus every output-changing option.
        Rows, tables and run specs name the judge by it."""
        if not self.model_options:
            return self.head
        return self.head + "?" + "&".join(f"{k}={v}" for k, v in self.model_options)

    @property
    def identity(self) -> dict[str, Any]:
        """Everything in the spec that changes the judge's answers, as structure (the judge's
        whole identity adds its backend's declared state: judges.identity)."""
        return {
            "backend": self.backend,
            "model": self.model,
            "base_url": self.base_url,
            "options": dict(self.model_options),
        }

    def with_call_keys(self, scheme: int) -> JudgeSpec:
        """The spec keyed by `scheme` (runner.keys): the run folder's, not the judge's."""
        return self if scheme == self.call_keys else replace(self, call_keys=scheme)

    def with_key_env(self, env: str | None) -> JudgeSpec:
        """The spec with the API key read from `env` (`--api-key-env`), for hosted judges that
        do not name a variable themselves; a harness field, so label and keys are unchanged."""
        # A scaffold passes the key on to the hosted judge it wraps (scaffold.wrapped_spec).
        hosted = self.backend in HOSTED or (
            self.backend == "scaffold" and self.model.partition(":")[0] in HOSTED
        )
        if env is None or not hosted or self.key_env is not None:
            return self
        harness = tuple(sorted([*self.harness_options, ("key_env", env)]))
        values = tuple(sorted([*self.values, ("key_env", env)]))
        return replace(self, harness_options=harness, values=values, key_env=env)

    def as_dict(self) -> dict[str, Any]:
        """run.json's record of the judge: structure, read back by `from_dict` unparsed."""
        where = {"backend": self.backend, "model": self.model, "base_url": self.base_url}
        return {"text": self.text, **where, "options": self.options}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JudgeSpec:
        """A judge as `as_dict` stored it (its options are checked again, not re-parsed)."""
        options = {str(k): str(v) for k, v in dict(data.get("options") or {}).items()}
        parts = [f"{k}={v}" for k, v in options.items()]
        canonical = form(data["backend"], data["model"], data.get("base_url"), parts)
        parsed = ParsedSpec(
            str(data.get("text") or canonical),
            str(data["backend"]),
            str(data["model"]),
            data.get("base_url"),
            tuple(options.items()),
        )
        return _build(parsed)


def parse_judge_spec(spec: str) -> JudgeSpec:
    """The one parser of judge specs on the run path (the CLI calls it for each --judge)."""
    return _build(parse_spec(spec, "judge", "builtin:prosody"))


def _build(p: ParsedSpec) -> JudgeSpec:
    values = typed(p, "judge", CHECKS)
    if p.backend == "scaffold":
        # The wrapped judge's spec is checked by its own backend's rules, at parse time.
        parse_judge_spec(p.text.partition(":")[2])
    else:
        _check_names(p)
    model_opts = tuple(sorted((k, v) for k, v in p.options if k not in HARNESS_OPTIONS))
    harness = tuple(sorted((k, v) for k, v in p.options if k in HARNESS_OPTIONS))
    key_env = values.get("key_env")
    return JudgeSpec(
        p.text,
        p.backend,
        p.model,
        p.base_url,
        model_opts,
        harness,
        tuple(sorted(values.items())),
        key_env if isinstance(key_env, str) else None,
    )


def _check_names(p: ParsedSpec) -> None:
    """Per-backend option names: a local backend takes only what it reads; a hosted one
    passes other names on, but not a near miss of one it knows (`temprature`)."""
    head = f"{p.backend}:{p.model}" + (f"@{p.base_url}" if p.base_url else "")
    local = LOCAL_OPTIONS.get(f"{p.backend}:{p.model}", LOCAL_OPTIONS.get(p.backend))
    if local is not None and (p.backend != "builtin" or f"builtin:{p.model}" in LOCAL_OPTIONS):
        takes = sorted(local | RUNNER_OPTIONS)
        for name, _ in p.options:
            if name not in takes:
                raise SpecError(
                    f"{head} has no option '{name}' (it takes: {', '.join(takes)})"
                    + did_you_mean(name, takes)
                )
        return
    hosted = HOSTED_OPTIONS.get(p.backend)
    if hosted is None:
        return  # a third-party backend reads what it likes
    for name, _ in p.options:
        meant = near_miss(name, hosted | RUNNER_OPTIONS)
        if meant is not None:
            raise SpecError(
                f"judge spec '{p.text}': no option '{name}'; did you mean '{meant}'? (other "
                "names are passed on to the provider, so a typo would be silently ignored)"
            )


__all__ = ["HOSTED", "JudgeSpec", "SpecError", "parse_judge_spec"]
