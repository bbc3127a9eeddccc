"""Ray failures as one line (cli/ray_faults.py), without a cluster: exceptions from Ray's
modules are found anywhere in the chain; anything else passes through unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from paraudit.cli.ray_faults import execute_on_ray, ray_exception
from paraudit.errors import ParauditError

NodeDiedError = type("NodeDiedError", (Exception,), {"__module__": "ray.exceptions"})
RESUME = "paraudit run ds --out r --judge builtin:first --engine ray"


def _raise(e: BaseException) -> None:
    raise e


def test_a_ray_exception_anywhere_in_the_chain_becomes_one_line() -> None:
    try:
        try:
            raise NodeDiedError("node 3f1 died: missed heartbeats")
        except Exception as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        wrapped = outer
    assert ray_exception(wrapped) is wrapped.__cause__
    with pytest.raises(ParauditError) as got:
        execute_on_ray(lambda: _raise(wrapped), Path("r"), RESUME)
    text = str(got.value)
    assert text.startswith("a Ray node died") and "missed heartbeats" in text
    assert text.endswith(RESUME) and "r/calls.sqlite" in text


def test_other_failures_pass_through() -> None:
    with pytest.raises(ValueError):
        execute_on_ray(lambda: _raise(ValueError("mine")), Path("r"), RESUME)
    with pytest.raises(ParauditError, match="^no such dataset$"):
        execute_on_ray(lambda: _raise(ParauditError("no such dataset")), Path("r"), RESUME)
    assert execute_on_ray(lambda: 7, Path("r"), RESUME) == 7
