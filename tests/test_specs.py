"""The one spec grammar (paraudit.specs), as judges, generators and TTS use it."""

from __future__ import annotations

import pytest

from paraudit.compose.llm import LLMSpec, cache_key
from paraudit.judges.spec import JudgeSpec, parse_judge_spec
from paraudit.render.tts import parse_tts_spec
from paraudit.specs import SpecError, parse_spec

URL = "http://127.0.0.1:8000/v1"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        # The URL after the options once became part of an option's value.
        (f"openai:m?temprature=0@{URL}", f"write it as 'openai:m@{URL}?temprature=0'"),
        (f"openai:m?a=1@{URL}?b=2", f"write it as 'openai:m@{URL}?a=1&b=2'"),
        ("openai:m?=1", "'=1' is not name=value"),
        ("openai:m?seed=1&&top_p=1", "'' is not name=value"),
        ("openai:m?seed", "options must look like"),
        ("openai:m@notaurl", "base URL 'notaurl', which is not an http(s) URL"),
        ("openai:m@ftp://127.0.0.1/v1", "is not an http(s) URL"),
        ("openai:m@http://", "is not an http(s) URL"),
        ("openai:m@http://h:port/v1", "is not an http(s) URL"),
        ("openai:m@", "no base URL"),
        ("m", "must look like backend:model"),
    ],
)
def test_the_grammar_refuses_other_orders_and_shapes(spec: str, message: str) -> None:
    for parse in (parse_judge_spec, LLMSpec.parse):
        with pytest.raises(SpecError) as e:
            parse(spec)
        assert message in str(e.value) and "\n" not in str(e.value)
        assert SpecError.exit_code == 2


@pytest.mark.parametrize("name", ["api_key", "key", "token", "API_KEY"])
def test_a_secret_in_a_spec_is_refused_and_never_echoed(name: str) -> None:
    spec = f"openai:m@{URL}?seed=1&{name}=sk-SECRET123"
    for parse in (parse_judge_spec, LLMSpec.parse, parse_tts_spec):
        with pytest.raises(SpecError) as e:
            parse(spec)
        text = str(e.value)
        assert "key_env" in text and "sk-SECRET123" not in text, text
        assert f"write it as 'openai:m@{URL}?seed=1&key_env=MY_KEY_VARIABLE'" in text


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openai:m?temperature=1e400", "temperature='1e400' must be a finite number"),
        ("openai:m?temperature=-1e400", "must be a finite number"),
        ("builtin:random?rpm=inf", "rpm='inf' must be a finite number"),
        ("openai:m?top_p=inf", "must be a finite number"),
    ],
)
def test_numbers_must_be_finite(spec: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_judge_spec(spec)


def test_the_generator_label_is_well_formed_and_its_cache_key_unchanged() -> None:
    s = LLMSpec.parse("openai:gpt-4o?max_tokens=100&temperature=0.7")
    assert s.label == "openai:gpt-4o?max_tokens=100&temperature=0.7"
    assert s.describe()["spec"] == s.label
    # The key is what it was before the grammar moved (sha256 of model, params, messages).
    msgs = [{"role": "user", "content": "hi"}]
    assert cache_key(s, msgs) == (
        "41500007166533a0bd308a7c680e7840350229487ca8eabe08398500c2b7b4f9"
    )
    with pytest.raises(SpecError, match="must be a finite number"):
        LLMSpec.parse("openai:gpt-4o?temperature=1e400")


def test_tts_specs_may_leave_the_model_out() -> None:
    assert parse_tts_spec("piper").backend == "piper"
    s = parse_tts_spec(f"openai@{URL}?voices=a,b")
    assert (s.backend, s.model, s.base_url, s.options) == ("openai", "", URL, {"voices": "a,b"})
    with pytest.raises(SpecError, match=f"write it as 'openai:gpt-4o-mini-tts@{URL}"):
        parse_tts_spec(f"openai:gpt-4o-mini-tts?voices=a,b@{URL}")


def test_hosted_near_misses_are_refused_and_other_names_pass_through() -> None:
    with pytest.raises(SpecError, match="did you mean 'temperature'"):
        parse_judge_spec("openai:m?temprature=0")
    with pytest.raises(SpecError, match="did you mean 'max_tokens'"):
        parse_judge_spec("gemini:m?max_token=5")
    # A name the provider may know but paraudit does not is passed on.
    assert parse_judge_spec("openai:m?reasoning_effort=low").label == (
        "openai:m?reasoning_effort=low"
    )


def test_options_are_typed_when_parsed() -> None:
    s = parse_judge_spec("openai:m?temperature=0&seed=3&rpm=30&key_env=K")
    assert s.value("temperature") == 0.0 and isinstance(s.value("temperature"), float)
    assert s.whole("seed") == 3 and s.number("rpm") == 30.0 and s.key_env == "K"
    assert s.label == "openai:m?seed=3&temperature=0"  # the text as written, as before


def test_key_env_is_a_field_that_leaves_the_identity_alone() -> None:
    s = parse_judge_spec(f"openai:m@{URL}?temperature=0")
    k = s.with_key_env("MY_KEY")
    assert k.key_env == "MY_KEY" and k.options["key_env"] == "MY_KEY"
    assert (k.label, k.identity, k.text) == (s.label, s.identity, s.text)
    assert k.with_key_env("OTHER") is k  # the spec's own choice wins
    assert parse_judge_spec("builtin:random").with_key_env("X").key_env is None


def test_run_json_structure_reads_back_without_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    s = parse_judge_spec(f"openai:m@{URL}?temperature=0&rpm=5").with_key_env("K")

    def no_parse(*a: object, **k: object) -> None:
        raise AssertionError("from_dict parsed text")

    monkeypatch.setattr("paraudit.judges.spec.parse_spec", no_parse)
    assert JudgeSpec.from_dict(s.as_dict()) == s


def test_the_parts_are_returned_in_order() -> None:
    p = parse_spec(f"openai:org/m:8b@{URL}?b=2&a=1", "judge", "x:y")
    assert (p.backend, p.model, p.base_url, p.options) == (
        "openai",
        "org/m:8b",
        URL,
        (("b", "2"), ("a", "1")),
    )


def test_tts_numbers_are_checked_when_parsed() -> None:
    with pytest.raises(SpecError, match="timeout='1e400' must be a finite number"):
        parse_tts_spec(f"openai:gpt-4o-mini-tts@{URL}?timeout=1e400")
    with pytest.raises(SpecError, match="max_retries='-1' must be ≥ 0"):
        parse_tts_spec("gemini:m?max_retries=-1")
