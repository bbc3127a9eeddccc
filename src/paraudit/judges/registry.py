"""Judge backends by spec string: `name:model[@base_url][?key=value&...]`.

Backends import lazily, so the core installs light; a missing extra or a typo gets a message
that says what to do. Third-party judges register under the entry-point group `paraudit.judges`.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from dataclasses import dataclass
from importlib.metadata import entry_points

from paraudit.errors import MissingExtraError, ParauditError
from paraudit.judges.base import RUNNER_OPTIONS, Judge, building
from paraudit.judges.spec import JudgeSpec, parse_judge_spec
from paraudit.specs import SpecError, did_you_mean


@dataclass(frozen=True)
class Backend:
    name: str
    target: str
    """module:Class, imported only when the backend is used."""
    extra: str | None
    needs: tuple[str, ...]
    """Modules that must be importable."""
    description: str
    key_env: tuple[str, ...] = ()
    install: str | None = None
    """How to install what `needs` names, when it is not a paraudit extra (not on PyPI)."""


BUILTIN = "builtin"
BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend(
            "builtin",
            "paraudit.judges.builtin:make_builtin",
            None,
            (),
            "offline judges: random, first, transcript, prosody, drops-audio (its audio "
            "never arrives: the delivery check's positive control); emphasis, urgency, "
            "whisper, sarcasm, hesitation (each hears its dimension)",
        ),
        Backend(
            "openai",
            "paraudit.judges.openai_backend:make_openai",
            "openai",
            ("openai",),
            "OpenAI chat completions (gpt-audio, the paper's GPT-4o audio judge today; "
            "gpt-4o-audio-preview is accepted, but the provider shut it down) or any "
            "OpenAI-compatible server such as vLLM (openai:MODEL@BASE_URL; a local server "
            "needs no key)",
            ("OPENAI_API_KEY",),
        ),
        Backend(
            "gemini",
            "paraudit.judges.gemini_backend:make_gemini",
            "gemini",
            ("google.genai",),
            "Gemini through google-genai (inline audio, Files API for large requests)",
            ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        ),
        Backend(
            "hf",
            "paraudit.judges.hf_backend:make_hf",
            "hf",
            ("torch", "transformers"),
            "local transformers models: Qwen2-Audio, Qwen2.5-Omni thinker, other audio chat "
            "models via their chat template (hf:MODEL_ID_OR_PATH)",
        ),
        Backend(
            "desta",
            "paraudit.judges.desta_backend:make_desta",
            None,
            ("desta",),
            "DeSTA2.5-Audio through its own package (desta:MODEL_OR_PATH"
            "[?transcript=given|none|asr]; greedy by default; GPU)",
            install="git clone https://github.com/kehanlu/DeSTA2.5-Audio && "
            "pip install -e DeSTA2.5-Audio (not on PyPI)",
        ),
        Backend(
            "scaffold",
            "paraudit.judges.scaffold:make_scaffold",
            None,
            (),
            "a meta-judge around any judge spec (scaffold:JUDGE_SPEC): each J question is "
            "asked as P on the same audio, then as Staging with the judge's own perceived "
            "emotions in text (perceive → state → map)",
        ),
        Backend(
            "vllm",
            "paraudit.judges.vllm_backend:make_vllm",
            "vllm",
            ("vllm",),
            "vLLM's offline engine for batch audits of open models (GPU)",
        ),
    )
}
BUILTIN_MODELS = (
    "random",
    "first",
    "transcript",
    "prosody",
    "drops-audio",
    "abstain",
    # The acoustic judges of the dimensions other than emotion (judges/builtin/listeners).
    "emphasis",
    "urgency",
    "whisper",
    "sarcasm",
    "hesitation",
)


Spec = JudgeSpec
"""Backends' factories take (spec text, JudgeSpec); the old name stays for them."""


parse_spec = parse_judge_spec
"""The judges' parser under its older name."""


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a missing parent package of a dotted name
        return False


def _third_party() -> dict[str, object]:
    return {ep.name: ep for ep in entry_points(group="paraudit.judges")}


_did_you_mean = did_you_mean


def load_judge(spec: str | JudgeSpec) -> Judge:
    """Build the judge a spec names. The run path hands in the JudgeSpec the CLI parsed, and
    the judge keeps that very object as its identity; text is parsed here only for callers
    outside a run (tests, notebooks)."""
    s = spec if isinstance(spec, JudgeSpec) else parse_judge_spec(spec)
    judge = _make(s)
    check_options(judge, s)
    return judge


def check_options(judge: Judge, s: JudgeSpec) -> None:
    """Refuse an option the judge would silently ignore (a typo such as `sed=3` would otherwise
    run with the default and label the rows as if it had been applied)."""
    if judge.accepts is None:
        return
    takes = sorted(judge.accepts | RUNNER_OPTIONS)
    for name in s.options:
        if name not in takes:
            raise SpecError(
                f"{s.head} has no option '{name}' (it takes: {', '.join(takes)})"
                + _did_you_mean(name, takes)
            )


def _make(s: JudgeSpec) -> Judge:
    spec = s.text
    third = _third_party()
    if s.backend in third:
        cls = third[s.backend].load()  # type: ignore[attr-defined]
        with building(s):  # its constructor takes the text: Judge.__init__ uses `s` unparsed
            judge: Judge = cls(spec, s.options)
        return judge
    if s.backend not in BACKENDS:
        known = sorted([*BACKENDS, *third])
        raise ParauditError(  # a name not known (exit 1); a malformed spec is a SpecError (2)
            f"unknown judge backend '{s.backend}' (known: {', '.join(known)})"
            + did_you_mean(s.backend, known)
        )
    b = BACKENDS[s.backend]
    for mod in b.needs:
        if not _importable(mod):
            if b.install is not None:
                raise ParauditError(
                    f"judge backend '{b.name}' needs the package '{mod}': {b.install}"
                )
            raise MissingExtraError(f"judge backend '{b.name}'", b.extra or b.name, mod)
    module, _, attr = b.target.partition(":")
    factory = getattr(importlib.import_module(module), attr)
    made: Judge = factory(spec, s)
    return made


def list_backends() -> list[tuple[str, str, bool, str, str]]:
    """(name, description, installed, what it needs, key status) for `paraudit judges`."""
    rows = []
    for b in BACKENDS.values():
        installed = all(_importable(m) for m in b.needs)
        need = (
            b.install
            if b.install
            else f"pip install 'paraudit[{b.extra}]'"
            if b.extra
            else "nothing (offline)"
        )
        if b.key_env:
            found = [k for k in b.key_env if os.environ.get(k)]
            key = f"set ({found[0]})" if found else f"not set ({' or '.join(b.key_env)})"
        else:
            key = "not needed"
        rows.append((b.name, b.description, installed, need, key))
    for name in _third_party():
        rows.append((name, "third-party (entry point paraudit.judges)", True, "", ""))
    return rows
