"""Reply parsing: accept only what unambiguously names offered options; else `unparsed`.

The paper asks for a JSON dict with "reasoning" and "pred". Models wrap it in code fences,
add prose, vary case and spacing; those are accepted. A reply that names both options, an
option not offered, or nothing parseable is `unparsed` with a reason — never a guess.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MAX_REPLY_CHARS = 200_000
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Parsed:
    pred: str | dict[str, str] | None
    """The prediction, or None when the reply is unparsed."""
    reason: str = ""
    """Why it is unparsed (empty when parsed)."""


def _label(value: Any, options: tuple[str, ...]) -> str | None:
    """'r1', ' R 1 ', 'Response R1' → 'R1' if offered; anything else → None."""
    if not isinstance(value, str):
        return None
    m = re.fullmatch(
        r"\s*(?:response|emotion|option)?\s*([A-Za-z]{1,2})\s*[-_ ]?\s*(\d)\s*\.?\s*", value, re.I
    )
    if not m:
        return None
    label = (m.group(1) + m.group(2)).upper()
    return label if label in options else None


def _json_objects(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object in `text` (prose and code fences around them are fine)."""
    found: list[dict[str, Any]] = []
    i = 0
    while True:
        i = text.find("{", i)
        if i < 0:
            return found
        try:
            obj, end = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError:
            i += 1
            continue
        if isinstance(obj, dict):
            found.append(obj)
        i = end


def _preds(raw: str) -> tuple[list[Any], str]:
    if len(raw) > MAX_REPLY_CHARS:
        return [], f"reply longer than {MAX_REPLY_CHARS} characters"
    text = raw.replace("\ufffd", "")
    objs = [o for o in _json_objects(text) if any(k.lower() == "pred" for k in o)]
    if not objs:
        return [], "no JSON object with a 'pred' entry"
    preds = [next(v for k, v in o.items() if k.lower() == "pred") for o in objs]
    return preds, ""


def _unique(values: list[Any]) -> tuple[Any, str]:
    distinct = {json.dumps(v, sort_keys=True) for v in values}
    if len(distinct) > 1:
        return None, "several 'pred' entries that disagree"
    return values[0], ""


def parse_choice(raw: str, options: tuple[str, ...] = ("R1", "R2")) -> Parsed:
    preds, why = _preds(raw)
    if not preds:
        return Parsed(None, why)
    labels = [_label(p, options) for p in preds]
    if any(lb is None for lb in labels):
        bad = next(p for p, lb in zip(preds, labels, strict=True) if lb is None)
        return Parsed(None, f"'pred' is not one of {', '.join(options)}: {str(bad)[:80]!r}")
    value, why = _unique(labels)
    return Parsed(value, why) if value else Parsed(None, why)


def _as_dict(pred: Any) -> dict[str, Any] | None:
    if isinstance(pred, dict):
        return pred
    if isinstance(pred, str) and pred.strip().startswith("{"):
        # A matching sent as a JSON string is still unambiguous.
        try:
            inner = json.loads(pred)
        except json.JSONDecodeError:
            return None
        return inner if isinstance(inner, dict) else None
    return None


def _parse_dicts(
    raw: str, not_dict: str, convert: Callable[[dict[str, Any]], dict[str, str] | str]
) -> Parsed:
    """Shared by dict-valued answers: every 'pred' must be a dict that `convert` accepts
    (it returns the normalised dict, or a string saying why not), and all must agree."""
    preds, why = _preds(raw)
    if not preds:
        return Parsed(None, why)
    out: list[dict[str, str]] = []
    for p in preds:
        d = _as_dict(p)
        if d is None:
            return Parsed(None, not_dict)
        converted = convert(d)
        if isinstance(converted, str):
            return Parsed(None, converted)
        out.append(converted)
    value, why = _unique(out)
    return Parsed(value, why) if value else Parsed(None, why)


def _matching(d: dict[str, Any]) -> dict[str, str] | str:
    keys = {_label(k, ("CA", "CB")) or re.sub(r"\s", "", str(k)).upper(): v for k, v in d.items()}
    if set(keys) != {"CA", "CB"}:
        return f"matching keys are {sorted(map(str, d))}, expected CA and CB"
    vals = {k: _label(v, ("R1", "R2")) for k, v in keys.items()}
    if None in vals.values() or vals["CA"] == vals["CB"]:
        return "matching must send CA and CB to different responses R1/R2"
    return {"CA": str(vals["CA"]), "CB": str(vals["CB"])}


def parse_matching(raw: str) -> Parsed:
    return _parse_dicts(raw, "'pred' is not a CA/CB matching", _matching)


def parse_turns(
    raw: str, human_keys: tuple[str, ...], options: tuple[str, ...] = ("E1", "E2")
) -> Parsed:
    """A label for every human turn (keys like 'C3') and none for any other turn."""

    def turns(d: dict[str, Any]) -> dict[str, str] | str:
        labels: dict[str, str] = {}
        for k, v in d.items():
            key = re.sub(r"[\s\[\]]", "", str(k)).upper()
            if not re.fullmatch(r"C\d+", key):
                return f"turn key {str(k)[:20]!r} is not of the form C[t]"
            lab = _label(v, options)
            if lab is None:
                return f"turn {key} has label {str(v)[:20]!r}, not one of {options}"
            labels[key] = lab
        extra = set(labels) - set(human_keys)
        missing = set(human_keys) - set(labels)
        if extra:
            return f"labels for turns that are not human turns: {sorted(extra)}"
        if missing:
            return f"no label for human turns {sorted(missing)}"
        return labels

    return _parse_dicts(raw, "'pred' is not a dict of turn labels", turns)
