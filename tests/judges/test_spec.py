"""JudgeSpec: parsed once, options checked at parse time, labels that tell judges apart."""

from __future__ import annotations

import pytest

from paraudit.errors import ParauditError
from paraudit.judges.registry import load_judge
from paraudit.judges.spec import parse_judge_spec


def test_model_and_harness_options_are_told_apart() -> None:
    s = parse_judge_spec(
        "openai:qwen@http://127.0.0.1:8000/v1?temperature=1&rpm=30&key_env=K&seed=3&timeout=9"
    )
    assert (s.backend, s.model, s.base_url) == ("openai", "qwen", "http://127.0.0.1:8000/v1")
    assert dict(s.model_options) == {"seed": "3", "temperature": "1"}
    assert dict(s.harness_options) == {"key_env": "K", "rpm": "30", "timeout": "9"}
    assert s.key_env == "K" and s.harness_float("rpm") == 30.0
    assert s.label == "openai:qwen@http://127.0.0.1:8000/v1?seed=3&temperature=1"
    assert s.identity["options"] == {"seed": "3", "temperature": "1"}


def test_labels_differ_exactly_when_answers_can() -> None:
    a = parse_judge_spec("openai:m?temperature=0")
    b = parse_judge_spec("openai:m?temperature=1")
    c = parse_judge_spec("openai:m?temperature=0&rpm=5")
    assert a.label != b.label and a.identity != b.identity
    assert a.label == c.label and a.identity == c.identity
    # Option order in the text does not matter.
    assert (
        parse_judge_spec("openai:m?seed=1&top_p=0.5").label
        == parse_judge_spec("openai:m?top_p=0.5&seed=1").label
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("builtin:random?rpm=abc", "rpm='abc' must be a number"),
        ("builtin:random?rpm=0", "rpm='0' must be > 0"),
        ("builtin:random?tpm=-5", "tpm='-5' must be > 0"),
        ("builtin:random?timeout=abc", "timeout='abc' must be a number"),
        ("builtin:random?max_audio_seconds=lots", "must be a number"),
        ("builtin:random?top_p=2", "top_p='2' must be > 0 and ≤ 1"),
        ("builtin:random?max_tokens=1.5", "must be a whole number"),
        ("builtin:random?rpm=nan", "rpm='nan' must be a finite number"),
        ("builtin:random?seed=1&seed=2", "sets option 'seed' twice"),
        ("builtin:random?rpm", "options must look like"),
        ("random", "must look like backend:model"),
        ("openai:m@", "no base URL"),
        ("builtin:", "names no model"),
    ],
)
def test_bad_specs_are_one_line_errors(spec: str, message: str) -> None:
    with pytest.raises(ParauditError) as e:
        parse_judge_spec(spec)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_the_registry_keeps_the_parsed_spec() -> None:
    j = load_judge("builtin:random?seed=4&delay=0")
    assert j.label == "builtin:random?seed=4"
    # harness options stay out of the identity, hence out of the cache key
    assert j.identity().as_dict()["options"] == {"seed": "4"}
    assert j.describe()["label"] == j.label


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("builtin:random?sed=3", "builtin:random has no option 'sed'"),
        ("builtin:random?sed=3", "did you mean 'seed'?"),
        ("builtin:first?seed=3", "builtin:first has no option 'seed'"),
        ("builtin:prosody?dealy=0.1", "did you mean 'delay'?"),
    ],
)
def test_an_option_a_judge_would_ignore_is_refused(spec: str, message: str) -> None:
    """A typo would otherwise run with the default and label the rows as if applied."""
    with pytest.raises(ParauditError) as e:
        load_judge(spec)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_options_every_judge_takes_and_hosted_pass_through() -> None:
    # Runner options (rate limits, timeout) are taken by every judge.
    assert load_judge("builtin:first?rpm=600&tpm=100000&timeout=30").label == "builtin:first"
    assert load_judge("builtin:random?seed=2&calllog=/dev/null").label == "builtin:random?seed=2"
    # Hosted judges forward unknown options to the provider (e.g. a new API parameter).
    from paraudit.judges.openai_backend import OpenAIJudge

    assert OpenAIJudge.accepts is None
