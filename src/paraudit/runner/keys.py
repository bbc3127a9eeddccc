"""What a call's cache key hashes about its judge, and the formula of older run folders.

A key is the sha256 of canonical JSON: the judge part below, the prompt (text, audio by content
hash) and the sample index (runner.calls.call_key). The judge part is the sha256 of its
identity's canonical JSON (judges.identity: spec + declared state; hashed once per judge, not
serialised again for every call), under the name "identity" so that no key of the new formula
can equal one of the old.

Compatibility: folders written before the identity (run.json without `call_keys`) keyed calls by
the judge's head and the dict each backend's `params()` returned. Those methods are gone; their
formulas are kept here, frozen, as functions of the spec (tests/runner/test_keys.py pins them to
keys computed by the code that wrote such folders), and the runner keeps using them for every
call in such a folder, resumed or extended, so its stored answers are found and no call is
asked twice. Never edit them: a change re-asks every call of every old folder. One case is not
covered: a third-party judge that overrode `params()` (its formula is its own), which re-asks.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from paraudit.errors import ParauditError
from paraudit.judges.base import Judge
from paraudit.judges.spec import HARNESS_OPTIONS, IDENTITY_KEYS, JudgeSpec
from paraudit.runfolder import read_run_json

PARAMS_KEYS = 1
"""Folders written before: keys over head + the backend's params() (legacy_params)."""


_BASES: WeakKeyDictionary[Judge, tuple[JudgeSpec, dict[str, Any]]] = WeakKeyDictionary()
"""Each judge's part of its keys, made once: every call's key needs it, and the identity is
fixed once the judge is built (a judge given another spec object is keyed afresh)."""


def key_basis(judge: Judge) -> dict[str, Any]:
    """The judge's part of each call key, by its folder's formula (JudgeSpec.call_keys): the
    sha256 of its identity's canonical JSON, or the older head + params."""
    spec = judge.judge_spec
    try:
        known = _BASES.get(judge)
    except TypeError:  # a judge class that made itself unhashable: made each time
        known = None
    if known is not None and known[0] is spec:
        return known[1]
    if spec.call_keys == PARAMS_KEYS:
        basis: dict[str, Any] = {"judge": spec.head, "params": legacy_params(spec)}
    else:
        basis = {"identity": judge.identity().digest()}
    with suppress(TypeError):
        _BASES[judge] = (spec, basis)
    return basis


def folder_call_keys(out: Path) -> int:
    """The formula of the run folder `out`: what run.json says, PARAMS_KEYS for a folder written
    before it said (one with a claimed run and no `call_keys`), else IDENTITY_KEYS."""
    old = read_run_json(out) if out.is_dir() else None
    if not old or "spec" not in old:
        return IDENTITY_KEYS
    scheme = old.get("call_keys", PARAMS_KEYS)
    if scheme not in (PARAMS_KEYS, IDENTITY_KEYS) or isinstance(scheme, bool):
        # Guessing would re-ask every stored call (or, worse, misread them): say so instead.
        raise ParauditError(
            f"{out / 'run.json'} has call_keys={scheme!r}, which this paraudit does not know "
            f"({PARAMS_KEYS} or {IDENTITY_KEYS}); use the paraudit that wrote it, or a new --out"
        )
    return int(scheme)


# -- frozen: the params() of each backend as main at b7a08da defined them --------------------

_DECODING = ("temperature", "top_p", "seed", "max_tokens")


def _decoding(s: JudgeSpec) -> dict[str, Any]:
    # hosted.Decoding then: temperature 0.0 and max_tokens 1024 by default, None left out.
    temperature, max_tokens = s.number("temperature"), s.whole("max_tokens")
    d = {
        "temperature": 0.0 if temperature is None else temperature,
        "top_p": s.number("top_p"),
        "seed": s.whole("seed"),
        "max_tokens": 1024 if max_tokens is None else max_tokens,
    }
    return {k: v for k, v in d.items() if v is not None}


def _other(s: JudgeSpec, handled: set[str]) -> dict[str, str]:
    # hosted.other_params: options a hosted backend passed on, each as written.
    skip = HARNESS_OPTIONS | set(_DECODING) | handled
    return {k: v for k, v in sorted(s.options.items()) if k not in skip}


def _hf(s: JudgeSpec) -> dict[str, Any]:
    max_tokens = s.whole("max_tokens")
    p: dict[str, Any] = {
        "model": s.model,
        "dtype": s.options.get("dtype", "float32"),
        "max_new_tokens": 256 if max_tokens is None else max_tokens,
        "temperature": s.number("temperature") or 0.0,
    }
    if s.whole("seed") is not None:
        p["seed"] = s.whole("seed")
    if s.value("constrain") == "labels":
        p["constrain"] = "labels"
    return {**p, **_joined(s)}


def _joined(s: JudgeSpec) -> dict[str, str]:
    return {"clips": "joined"} if s.value("clips") == "joined" else {}


def legacy_params(s: JudgeSpec) -> dict[str, Any]:
    """`judge.params()` of the judge `s` names, as the code before the identity computed it."""
    where = {"model": s.model, "base_url": s.base_url}
    if s.backend == "openai":
        audio_part = s.options.get("audio_part", "input_audio")
        rest = _other(s, {"audio_part"})
        return {**where, "audio_part": audio_part, **_decoding(s), **rest}
    if s.backend == "gemini":
        return {**where, **_decoding(s), **_other(s, {"inline_limit_mb"})}
    if s.backend == "hf":
        return _hf(s)
    if s.backend == "vllm":
        return {"model": s.model, **_decoding(s), **_joined(s)}
    if s.backend == "desta":
        transcript = str(s.value("transcript") or "given")
        return {"model": s.model, "transcript": transcript, **_decoding(s)}
    if s.backend == "scaffold":
        # The wrapped judge is the spec after `scaffold:` (the same URL and options).
        backend, _, model = s.model.partition(":")
        return {"scaffold": 1, "wrapped": legacy_params(_wrapped(s, backend, model))}
    return dict(s.model_options)  # Judge.params() then: the built-ins and third-party judges


def _wrapped(s: JudgeSpec, backend: str, model: str) -> JudgeSpec:
    return replace(s, backend=backend, model=model)


__all__ = ["IDENTITY_KEYS", "PARAMS_KEYS", "folder_call_keys", "key_basis", "legacy_params"]
