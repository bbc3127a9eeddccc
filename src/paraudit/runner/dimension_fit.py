"""Refuse a dimension's acoustic built-in judge on a dataset of another dimension.

builtin:whisper hears voicing and answers with whisper's values; on an urgency or emotion
dataset none of the options it is offered is a value it can hear, so its P answer falls back to
the first option and its J answer to a lexicon of the wrong dimension: a run of hundreds of
calls whose verdict means nothing. That is a usage mistake, found from the dataset alone before
any judge is asked (issue 28).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from paraudit.errors import ParauditError
from paraudit.items.dataset import Dataset
from paraudit.items.taxonomy import item_dimension
from paraudit.judges.spec import JudgeSpec


class JudgeDimensionError(ParauditError):
    """A dimension's acoustic judge given a dataset of another dimension: exit 2."""

    exit_code = 2


def judge_dimension(spec: JudgeSpec) -> str | None:
    """The one dimension `spec` can hear (builtin:whisper → whisper); None for judges that are
    not bound to one (hosted and local models, builtin:random, builtin:prosody …)."""
    from paraudit.judges.builtin.listeners import LISTENERS

    if spec.backend == "builtin" and spec.model in LISTENERS:
        return spec.model
    return None


def check_judge_dimensions(specs: Iterable[JudgeSpec], ds: Dataset, where: str) -> None:
    """Raise JudgeDimensionError, naming the judge, the dataset's dimension and the judge that
    hears it, when a dimension-bound judge meets items of another dimension."""
    dims = Counter(item_dimension(item, ds.manifest) for item in ds.items)
    for spec in specs:
        hears = judge_dimension(spec)
        other = [d for d in dims if d != hears]
        if hears is None or not other:
            continue
        from paraudit.judges.builtin.listeners import judge_for

        shown = ", ".join(f"{d} ({dims[d]} items)" for d in other)
        fits = []
        for d in other:
            try:
                fits.append(f"--judge {judge_for(d)}")
            except KeyError:
                pass
        fix = (
            f"use {' and '.join(dict.fromkeys(fits))} for it"
            if fits
            else "audit it with a judge that hears its dimension"
        )
        raise JudgeDimensionError(
            f"--judge {spec.text} hears only {hears}, but {where} holds {shown}: {fix}, or "
            f"give {spec.text} a {hears} dataset; no judge was called"
        )
