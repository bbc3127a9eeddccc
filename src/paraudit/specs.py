"""One spec grammar for judges, generators and TTS: `backend:model[@base_url][?name=value&…]`.

The parts come in that order only. A spec that puts them in another order, names an option
without a value, gives a base URL that is not http(s), or carries a secret is refused in one
line that shows the corrected form: a loose grammar once turned `?temprature=0@http://…` into
an option value and sent the user's key and audio to the provider's default endpoint.

This module sits at the bottom of the layers (beside `errors`): judges, compose and render all
parse their specs here and add only their own option rules on top.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote_plus, urlsplit

from paraudit.errors import ParauditError

SECRET_OPTIONS = frozenset({"api_key", "apikey", "key", "token", "secret", "password"})
"""Option names that would put a credential into run.json, rows, caches and labels (kept for
callers that list them; the check itself is `is_secret_option`, by pattern)."""

# A credential hides under many names (`access_token`, `x-api-key`, `Authorization`,
# `client_secret`), so names are matched by their parts, not looked up in a list. The
# exceptions are counts (`max_tokens`: "tokens", plural) and `key_env`, which names the
# variable that holds the key, never the key.
_SECRET_PARTS = re.compile(
    r"(?i)(^|[_.-])(key|token|secret|password|passwd|pwd|auth|authorization|bearer|credentials?"
    r"|cookie|session|signature|sig)([_.-]|$)"
)
_SECRET_WORDS = re.compile(r"(?i)apikey|api_key|api-key|secret|password|authori[sz]ation|bearer")
_NOT_SECRET = frozenset({"key_env"})
# Counts and limits (`max_tokens`, its typo `max_token`, `token_limit`) are numbers, not keys.
_COUNT_NAME = re.compile(r"(?i)^(max|min|num|n)[_.-]|[_.-](count|limit|len|size)$")
# Values that are credentials whatever the option is called: a bearer token, or the shapes
# providers give keys (OpenAI `sk-…`, Google `AIza…`, GitHub/HF tokens, JWTs). Narrow on
# purpose: replies are redacted with it too, and ordinary words must survive.
SECRET_VALUE = re.compile(
    r"\b[Bb]earer\s+[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{8,}|\bAIza[0-9A-Za-z_-]{20,}"
    r"|\b(ghp|gho|hf)_[A-Za-z0-9]{16,}|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
)


def is_secret_option(name: str, value: str = "") -> bool:
    """Whether `name=value` would carry a credential: a name made of a secret-like part
    (`access_token`, `x-api-key`, `Authorization`) or a value shaped like a key or an auth
    header (`Bearer …`, `sk-…`), whatever its name."""
    if SECRET_VALUE.search(value):
        return True
    low = name.lower()
    if low in _NOT_SECRET or low.endswith("_env") or _COUNT_NAME.search(low):
        return False
    return bool(_SECRET_PARTS.search(low) or _SECRET_WORDS.search(low))


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` with every given secret (a key read from the environment) and anything shaped
    like a key or an auth header replaced by "…": for replies and errors before they are
    stored or printed (a server may echo the key it was sent)."""
    for secret in secrets:
        if secret and len(secret) >= 6:  # a short "key" (EMPTY) would blank common words
            text = text.replace(secret, "…")
    return SECRET_VALUE.sub("…", text)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")
URL_EXAMPLE = "http://127.0.0.1:8000/v1"


# Model families, for the paper's generator-bias check (§5.3): a generator's family is recorded
# in each built item (meta.generator), a judge's is read from its spec; one table for both, so
# "a gemini judge on a gemini-composed set" means the same family on both sides.
FAMILIES = (
    ("gpt", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("gemini", "google"),
    ("gemma", "google"),
    ("claude", "anthropic"),
    ("qwen", "qwen"),
    ("llama", "meta"),
    ("mistral", "mistral"),
    ("deepseek", "deepseek"),
)


def model_family(model: str, backend: str) -> str:
    """The family of a model name ("unknown" when the table has no prefix for it): the last
    path part's prefix (`Qwen/Qwen2.5-7B` → qwen); a gemini-backend model is google."""
    name = model.lower().rsplit("/", 1)[-1]
    for prefix, family in FAMILIES:
        if name.startswith(prefix):
            return family
    return "google" if backend == "gemini" else "unknown"


class SpecError(ParauditError):
    """A spec that does not follow the grammar or its backend's option rules: a usage
    mistake, so the CLI exits 2 (as for a bad flag), before anything is sent or written."""

    exit_code = 2


@dataclass(frozen=True)
class ParsedSpec:
    """A spec split into its parts; option values are still text (each kind of spec types
    its own options)."""

    text: str
    """The spec as written (stripped)."""
    backend: str
    model: str
    base_url: str | None
    """An http(s) URL, or None for the backend's default endpoint."""
    options: tuple[tuple[str, str], ...]
    """name=value pairs in the order written (names unique)."""

    @property
    def option_dict(self) -> dict[str, str]:
        return dict(self.options)


def _shown(text: str) -> str:
    """The spec as it may be echoed: a secret's value never reaches a terminal or a log."""

    def option(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2)
        shown_name = unquote_plus(name)
        return (
            f"{m.group(0)[0]}{name}=…"
            if is_secret_option(shown_name, unquote_plus(value))
            else m.group(0)
        )

    text = re.sub(r"//[^/@?#]*@", "//…@", text)  # user info of a URL: user:password@host
    return re.sub(r"[?&]([^=&?@]*)=([^&@?]*)", option, text)


def form(backend: str, model: str, base_url: str | None, options: list[str]) -> str:
    """The canonical spelling of a spec's parts."""
    return (
        f"{backend}:{model}"
        + (f"@{base_url}" if base_url else "")
        + ("?" + "&".join(options) if options else "")
    )


def parse_spec(text: str, what: str, example: str, *, model_optional: bool = False) -> ParsedSpec:
    """Split `text` (a `what` spec, e.g. "judge") by the grammar; `example` is shown when the
    shape is wrong. Raises SpecError with the corrected form where one can be given.
    `model_optional`: the backend has a default model, so `backend` alone (TTS's `piper`) and
    `backend:` are whole specs."""
    raw = text.strip()
    shown = _shown(raw)

    def refuse(problem: str, fixed: str | None = None) -> SpecError:
        fix = f"; write it as '{_shown(fixed)}'" if fixed else ""
        return SpecError(f"{what} spec '{shown}' {problem}{fix}")

    head, q, query = raw.partition("?")
    at_index, colon_index = head.find("@"), head.find(":")
    if model_optional and at_index >= 0 and not 0 <= colon_index < at_index:
        # `backend@url`: no model given (the backend's default), so the colon is the URL's.
        backend, model, at, base_url = head[:at_index], "", "@", head[at_index + 1 :]
    else:
        backend, colon, rest = head.partition(":")
        if not colon and not model_optional:
            raise refuse(f"must look like backend:model (e.g. {example})")
        model, at, base_url = rest.partition("@")
    if "@" in query:
        # The URL after the options: `?t=0@http://…` would make the URL part of a value.
        opts, _, after = query.partition("@")
        late_url, _, more = after.partition("?")
        parts = [p for p in (*opts.split("&"), *more.split("&")) if p]
        raise refuse(
            "puts '@base_url' after the options (the order is backend:model@base_url?options)",
            form(backend, model, late_url or None, parts),
        )
    if not backend or (not model and not model_optional):
        raise refuse(f"names no {'backend' if not backend else 'model'} (e.g. {example})")
    url: str | None = None
    if at:
        if not base_url:
            raise refuse(f"has '@' but no base URL after it (e.g. @{URL_EXAMPLE})")
        url = check_url(base_url, refuse, form(backend, model, URL_EXAMPLE, []))
    options: list[tuple[str, str]] = []
    for part in query.split("&") if q and query else []:
        name, eq, value = part.partition("=")
        if not eq or not _NAME.match(name):
            kept = [p for p in query.split("&") if "=" in p and _NAME.match(p.partition("=")[0])]
            raise refuse(
                f"options must look like ?name=value&name=value ('{part}' is not name=value)",
                form(backend, model, url, kept),
            )
        name, value = unquote_plus(name), unquote_plus(value)
        if is_secret_option(name, value):
            kept = [p for p in query.split("&") if p != part]
            raise refuse(
                f"carries a secret ({name}=…): keys never go in a spec, which is written "
                "into run.json, results and labels; put the key in an environment variable "
                "and name it with key_env (or --api-key-env)",
                form(backend, model, url, [*kept, "key_env=MY_KEY_VARIABLE"]),
            )
        if any(name == n for n, _ in options):
            raise refuse(f"sets option '{name}' twice")
        options.append((name, value))
    return ParsedSpec(raw, backend, model, url, tuple(options))


def check_url(url: str, refuse: Callable[..., SpecError], fixed: str) -> str:
    """An http(s) URL with a host (and, if given, a valid port), or a refusal."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or any(c.isspace() for c in url)
    ):
        raise refuse(f"has base URL '{_shown(url)}', which is not an http(s) URL", fixed)
    if parts.username is not None or parts.password is not None:
        # user:password@host would be stored in run.json, every row and the judge's label,
        # and sent as Basic auth instead of the key.
        raise refuse(
            "carries a user name or password in its URL (user:password@host): credentials "
            "never go in a spec, which is written into run.json, results and labels; put the "
            "key in an environment variable and name it with key_env (or --api-key-env)",
            fixed,
        )
    return url


def did_you_mean(word: str, choices: list[str] | frozenset[str]) -> str:
    close = difflib.get_close_matches(word, sorted(choices), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def near_miss(word: str, choices: frozenset[str]) -> str | None:
    """A known option name `word` is probably a typo of (close, but not itself known)."""
    if word in choices:
        return None
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.8)
    return close[0] if close else None


# -- typed option values ----------------------------------------------------------------------

Convert = Callable[[str], "float | int | str"]


def number(lo: float, hi: float = math.inf, *, lo_open: bool = True) -> Convert:
    """A finite float within (lo, hi] (or [lo, hi] when not lo_open)."""

    def check(v: str) -> float:
        ascii_only(v)
        try:
            x = float(v)
        except ValueError:
            raise ValueError("must be a number") from None
        if not math.isfinite(x):
            raise ValueError("must be a finite number")
        low_ok = x > lo if lo_open else x >= lo
        if not (low_ok and x <= hi):  # nan fails every comparison and lands here
            bound = f"{'>' if lo_open else '≥'} {lo:g}" + (
                "" if hi == math.inf else f" and ≤ {hi:g}"
            )
            raise ValueError(f"must be {bound}")
        return x

    return check


def ascii_only(v: str) -> None:
    """Python reads `٣` (Arabic-Indic three) as 3, so `seed=٣` would run as seed 3 under a
    different label: numbers are written in ASCII digits only."""
    if not v.isascii():
        raise ValueError("must be written with ASCII digits (0-9)")


def integer(lo: int, hi: int | None = None) -> Convert:
    def check(v: str) -> int:
        ascii_only(v)
        try:
            x = int(v)
        except ValueError:
            raise ValueError("must be a whole number") from None
        if x < lo:
            raise ValueError(f"must be ≥ {lo}")
        if hi is not None and x > hi:
            raise ValueError(f"must be ≤ {hi}")
        return x

    return check


def text(v: str) -> str:
    return v


def typed(
    spec: ParsedSpec, what: str, converts: dict[str, Convert]
) -> dict[str, float | int | str]:
    """Each option converted by its rule (options without one stay text); a bad value is one
    line naming the option and what it must be."""
    out: dict[str, float | int | str] = {}
    for name, value in spec.options:
        convert = converts.get(name, text)
        try:
            out[name] = convert(value)
        except ValueError as e:
            raise SpecError(f"{what} spec '{_shown(spec.text)}': {name}={value!r} {e}") from None
    return out
