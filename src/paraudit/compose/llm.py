"""Text-only LLM calls for composition: OpenAI-compatible chat completions or Gemini, cached.

Specs read like judge specs: `openai:MODEL[@BASE_URL][?temperature=0.7&max_tokens=4096]` (a
local vLLM server works: `openai:Qwen/Qwen2.5-7B-Instruct@http://127.0.0.1:8000/v1`) or
`gemini:MODEL[@BASE_URL]`. Every finished completion is stored in a SQLite cache keyed by the
sha256 of (model, output-changing parameters, messages), so a crashed build resumes without
paying twice; failed calls are retried with back-off and never cached.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, Protocol

from paraudit.errors import MissingExtraError, ParauditError
from paraudit.providers import (
    NO_KEY,
    Failure,
    backoff_s,
    find_key,
    first_line,
    gemini_failure,
    openai_failure,
)
from paraudit.specs import (
    Convert,
    form,
    integer,
    model_family,
    number,
    parse_spec,
    redact,
    text,
    typed,
)
from paraudit.waits import capped_wait

Message = dict[str, str]
"""{"role": "user" | "assistant", "content": text}"""

LLM_BACKENDS = ("openai", "gemini")
# Options that change how a call is made but not what comes back: kept out of the cache key.
HARNESS = {"timeout", "key_env", "retries", "max_wait"}
DEFAULT_MAX_TOKENS = 4096


class TransientLLMError(Exception):
    """Worth retrying: rate limit, server error, connection trouble."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


# Output-changing options are numbers; each is checked (finite, in range) when parsed.
NUMBERS: dict[str, Convert] = {
    "temperature": number(0, lo_open=False),
    "top_p": number(0, 1),
    "seed": integer(-(2**63)),
    "max_tokens": integer(1),
    "timeout": number(0),
    "max_wait": number(0, lo_open=False),
    "retries": integer(1),
    "key_env": text,
}
EXAMPLE = "openai:gpt-4o-mini?temperature=0.7"


@dataclass(frozen=True)
class LLMSpec:
    backend: str
    model: str
    base_url: str | None
    options: dict[str, str] = field(default_factory=dict)
    """Every option as written."""
    values: dict[str, float | int | str] = field(default_factory=dict)
    """Every option, typed when parsed (numbers as float or int)."""

    @classmethod
    def parse(cls, spec: str) -> LLMSpec:
        """`backend:model[@base_url][?name=value&…]` (the grammar of paraudit.specs)."""
        s = parse_spec(spec, "generator", EXAMPLE)
        if s.backend not in LLM_BACKENDS:
            raise ParauditError(  # a name not known (exit 1), as for the judges' backends
                f"unknown LLM backend '{s.backend}' in '{spec}' (known: {', '.join(LLM_BACKENDS)})"
            )
        rules = {k: NUMBERS.get(k, number(-math.inf)) for k, _ in s.options}
        return cls(s.backend, s.model, s.base_url, s.option_dict, typed(s, "generator", rules))

    @property
    def family(self) -> str:
        return model_family(self.model, self.backend)

    @property
    def key_env(self) -> str | None:
        v = self.values.get("key_env")
        return v if isinstance(v, str) else None

    def number(self, name: str, default: float) -> float:
        v = self.values.get(name)
        return float(v) if isinstance(v, int | float) else default

    def params(self) -> dict[str, Any]:
        """Everything that changes the output (the cache key's parameters)."""
        p: dict[str, Any] = {"max_tokens": DEFAULT_MAX_TOKENS}
        for k, v in sorted(self.values.items()):
            if k not in HARNESS:
                p[k] = v if k in ("max_tokens", "seed") else float(v)
        return p

    @property
    def label(self) -> str:
        """backend:model?name=value&… over the output-changing options (the base URL is where
        the model is served, not which model: it stays out)."""
        opts = [f"{k}={v}" for k, v in sorted(self.options.items()) if k not in HARNESS]
        return form(self.backend, self.model, None, opts)

    def describe(self) -> dict[str, Any]:
        return {
            "spec": self.label,
            "backend": self.backend,
            "model": self.model,
            "family": self.family,
            "base_url": self.base_url,
            "params": self.params(),
        }


class ChatBackend(Protocol):
    def complete(self, messages: list[Message], params: dict[str, Any]) -> str: ...


def _raise(f: Failure) -> NoReturn:
    """A classified provider failure as the builders' errors (stop, or retry)."""
    if f.fatal:
        raise ParauditError(f.message) from None
    raise TransientLLMError(f.message, f.retry_after) from None


class OpenAIChat:
    """Chat completions through the official SDK (its own retries off: we retry)."""

    def __init__(self, spec: LLMSpec) -> None:
        try:
            import openai
        except ImportError:
            raise MissingExtraError("LLM backend 'openai'", "openai", "openai") from None
        # A local OpenAI-compatible server usually needs no key; the hosted API always does.
        key = find_key(
            spec.key_env,
            ("OPENAI_API_KEY",),
            "the openai generator",
            optional=spec.base_url is not None,
        )
        self._o = openai
        self.model = spec.model
        self.secrets: tuple[str, ...] = (key,) if key != NO_KEY else ()
        self.client = openai.OpenAI(
            api_key=key,
            base_url=spec.base_url,
            max_retries=0,
            timeout=spec.number("timeout", 300),
        )

    def complete(self, messages: list[Message], params: dict[str, Any]) -> str:
        o = self._o
        try:
            resp = self.client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                **params,
            )
        except ValueError as e:  # a 200 whose body is not JSON (the SDK's JSONDecodeError)
            raise TransientLLMError(f"malformed response body ({first_line(e)})") from None
        except o.OpenAIError as e:
            failure = openai_failure(o, e)
            if failure is None:
                raise
            _raise(failure)
        return _chat_text(resp)


class GeminiChat:
    """generateContent through google-genai; the conversation goes as user/model contents."""

    def __init__(self, spec: LLMSpec) -> None:
        try:
            from google import genai
            from google.genai import errors, types
        except ImportError:
            raise MissingExtraError("LLM backend 'gemini'", "gemini", "google-genai") from None
        key = find_key(spec.key_env, ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "the gemini generator")
        http = types.HttpOptions(
            base_url=spec.base_url, timeout=int(spec.number("timeout", 300) * 1000)
        )
        self._types, self._errors = types, errors
        self.model = spec.model
        self.secrets: tuple[str, ...] = (key,)
        self.client = genai.Client(api_key=key, http_options=http)

    def complete(self, messages: list[Message], params: dict[str, Any]) -> str:
        t = self._types
        contents = [
            t.Content(
                role="model" if m["role"] == "assistant" else "user",
                parts=[t.Part(text=m["content"])],
            )
            for m in messages
        ]
        config = t.GenerateContentConfig(
            temperature=params.get("temperature"),
            top_p=params.get("top_p"),
            seed=params.get("seed"),
            max_output_tokens=params.get("max_tokens"),
        )
        try:
            resp = self.client.models.generate_content(
                model=self.model, contents=contents, config=config
            )
        except ValueError as e:  # a 200 whose body is not JSON
            raise TransientLLMError(f"malformed response body ({first_line(e)})") from None
        except self._errors.APIError as e:
            failure = gemini_failure(self._errors, e)
            if failure is None:
                raise
            _raise(failure)
        except Exception as e:  # httpx connection errors
            raise TransientLLMError(f"connection: {first_line(e)}") from None
        return resp.text or ""


def _chat_text(resp: Any) -> str:
    """The reply text of a chat completion; any other shape (an HTML page the SDK handed back
    as text, a JSON without choices) is a failed call, retried."""
    try:
        choices = resp.choices
        if not choices:
            raise TransientLLMError("empty response (the server returned no choices)")
        return str(choices[0].message.content or "")
    except (AttributeError, TypeError, IndexError, KeyError):
        shown = str(resp)[:80]
        raise TransientLLMError(
            f"malformed response body (not a chat completion: {shown!r})"
        ) from None


SCHEMA = """
CREATE TABLE IF NOT EXISTS completions (
  key TEXT PRIMARY KEY,
  model TEXT NOT NULL,
  messages TEXT NOT NULL,
  reply TEXT NOT NULL,
  latency_s REAL,
  finished_at REAL
);
"""


class CompletionCache:
    """Finished completions by key (WAL mode: a crash keeps every committed reply)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT reply FROM completions WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(
        self, key: str, model: str, messages: list[Message], reply: str, latency: float
    ) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO completions VALUES (?,?,?,?,?,?)",
                (key, model, json.dumps(messages), reply, latency, time.time()),
            )

    def close(self) -> None:
        self._db.close()


def cache_key(spec: LLMSpec, messages: list[Message]) -> str:
    blob = json.dumps(
        {"model": f"{spec.backend}:{spec.model}", "params": spec.params(), "messages": messages},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


@dataclass
class LLMStats:
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    chars_in: int = 0
    chars_out: int = 0
    seconds: float = 0.0


class ComposerLLM:
    """A cached, retrying text generator shared by the builders (thread-safe)."""

    def __init__(
        self,
        spec: LLMSpec,
        cache: CompletionCache,
        *,
        backend: ChatBackend | None = None,
        retries: int | None = None,
        backoff_s: float = 1.0,
    ) -> None:
        self.spec = spec
        self.cache = cache
        self._backend = backend
        self.retries = retries if retries is not None else int(spec.number("retries", 5))
        # A server's Retry-After beyond this is cut to it: a build must not sit for a day.
        self.max_wait_s = spec.number("max_wait", 3 * spec.number("timeout", 300))
        self.backoff_s = backoff_s
        self.stats = LLMStats()
        self._lock = threading.Lock()

    @property
    def backend(self) -> ChatBackend:
        # Built on first real call, so a fully cached resume needs no key and no network.
        with self._lock:
            if self._backend is None:
                self._backend = (
                    OpenAIChat(self.spec)
                    if self.spec.backend == "openai"
                    else GeminiChat(self.spec)
                )
            return self._backend

    def chat(self, messages: list[Message]) -> str:
        key = cache_key(self.spec, messages)
        hit = self.cache.get(key)
        if hit is not None:
            with self._lock:
                self.stats.cache_hits += 1
            return hit
        params = self.spec.params()
        backend = self.backend
        # A service may echo the key it was sent: nothing it says is cached or printed unredacted.
        secrets: tuple[str, ...] = getattr(backend, "secrets", ())
        for attempt in range(1, self.retries + 1):
            t0 = time.perf_counter()
            try:
                reply = redact(backend.complete(messages, params), secrets)
            except TransientLLMError as e:
                e.args = (redact(str(e), secrets),)
                if attempt == self.retries:
                    raise ParauditError(
                        f"{self.spec.label}: gave up after {attempt} tries ({e}); "
                        "rerun to resume (finished calls are cached)"
                    ) from None
                with self._lock:
                    self.stats.retries += 1
                asked = e.retry_after
                delay = (
                    backoff_s(attempt, self.backoff_s)
                    if asked is None
                    else capped_wait(asked, self.max_wait_s, str(e), "max_wait= in --llm")
                )
                time.sleep(delay)
                continue
            except ParauditError as e:
                raise ParauditError(redact(str(e), secrets)) from None
            latency = time.perf_counter() - t0
            self.cache.put(key, self.spec.label, messages, reply, latency)
            with self._lock:
                self.stats.calls += 1
                self.stats.chars_in += sum(len(m["content"]) for m in messages)
                self.stats.chars_out += len(reply)
                self.stats.seconds += latency
            return reply
        raise AssertionError("unreachable")

    def ask(self, prompt: str) -> str:
        return self.chat([{"role": "user", "content": prompt}])
