from __future__ import annotations

import pytest

from paraudit.errors import ParauditError
from paraudit.judges.registry import list_backends, load_judge, parse_spec


def test_spec_parsing() -> None:
    s = parse_spec("openai:Qwen/Qwen2-Audio-7B-Instruct@http://127.0.0.1:8000/v1?temperature=0")
    assert (s.backend, s.model, s.base_url, s.options) == (
        "openai",
        "Qwen/Qwen2-Audio-7B-Instruct",
        "http://127.0.0.1:8000/v1",
        {"temperature": "0"},
    )


def test_typos_get_a_suggestion() -> None:
    with pytest.raises(ParauditError, match="did you mean 'builtin'"):
        load_judge("bultin:random")
    with pytest.raises(ParauditError, match="did you mean 'prosody'"):
        load_judge("builtin:prosdy")


def test_builtins_listed() -> None:
    rows = {n: (ok, key) for n, _, ok, _, key in list_backends()}
    assert rows["builtin"] == (True, "not needed")
    assert set(rows) >= {"builtin", "openai", "gemini", "hf", "vllm"}
