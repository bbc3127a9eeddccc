"""Reply parsing: accept only what unambiguously names offered options; else `unparsed`.

The paper asks for a JSON dict with "reasoning" and "pred". Models wrap it in code fences,
add prose, vary case and spacing, put raw newlines inside strings, bold the label ("**R1**"),
add the option's meaning ("R1 (angry)") or give the meaning instead of the label ("angry" where
R1 = angry); those are accepted. A reply that names both options, an option not offered, repeats
a key (case-insensitively), or has nothing parseable is `unparsed` with a reason — never a guess.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paraudit.protocols.questions import Question
from paraudit.protocols.ties import TIE

MAX_REPLY_CHARS = 200_000

Options = Mapping[str, str] | Sequence[str]
"""Offered labels, optionally with their meanings (label → e.g. 'angry')."""


@dataclass(frozen=True)
class Parsed:
    pred: str | dict[str, str] | None
    """The prediction, or None when the reply is unparsed."""
    reason: str = ""
    """Why it is unparsed (empty when parsed)."""


class _Obj(dict[str, Any]):
    """A decoded JSON object that remembers a key it saw twice (at any depth)."""

    duplicate: str | None = None


def _object(pairs: list[tuple[str, Any]]) -> _Obj:
    obj = _Obj()
    seen: set[str] = set()
    for k, v in pairs:
        if k.lower() in seen and obj.duplicate is None:
            obj.duplicate = k
        seen.add(k.lower())
        if isinstance(v, _Obj) and v.duplicate is not None and obj.duplicate is None:
            obj.duplicate = v.duplicate
        obj[k] = v
    return obj


# strict=False: models put raw newlines and tabs inside JSON strings; the meaning is plain.
_DECODER = json.JSONDecoder(strict=False, object_pairs_hook=_object)

_LABEL = r"\s*(?:response|emotion|option)?\s*([A-Za-z]{1,2})\s*[-_ ]?\s*(\d)\s*\.?\s*"


def _options(options: Options) -> dict[str, str]:
    if isinstance(options, Mapping):
        return dict(options)
    return dict.fromkeys(options, "")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().strip("\"'.").strip()).lower()


def _unmark(text: str) -> str:
    """'**R1**', '`R1`', '_R1_' → 'R1' (markdown emphasis around the whole answer)."""
    m = re.fullmatch(r"\s*([*_`]+)(.*?)\1\s*", text, re.S)
    return m.group(2) if m else text


def _label(value: Any, options: Mapping[str, str]) -> str | None:
    """The offered label `value` names unambiguously, or None.

    'r1', ' R 1 ', 'Response R1', '**R1**' → 'R1'; 'R1 (angry)' → 'R1' unless the note names
    another option; 'angry' → the one option whose meaning is 'angry'."""
    if not isinstance(value, str):
        return None
    text = _unmark(value)
    m = re.fullmatch(_LABEL, text, re.I)
    if m:
        label = (m.group(1) + m.group(2)).upper()
        return label if label in options else None
    m = re.fullmatch(_LABEL + r"\((.*)\)\s*\.?\s*", text, re.I | re.S)
    if m:
        label = (m.group(1) + m.group(2)).upper()
        note = _norm(m.group(3))
        others = [o for o in options if o != label]
        names_other = any(
            re.search(rf"\b{re.escape(o.lower())}\b", note)
            or (options[o] and _norm(options[o]) == note)
            for o in others
        )
        return label if label in options and not names_other else None
    meanings = [_norm(v) for v in options.values() if v]
    if len(set(meanings)) != len(meanings):
        return None  # two options mean the same: content cannot tell them apart
    hits = [lab for lab, v in options.items() if v and _norm(v) == _norm(text)]
    return hits[0] if len(hits) == 1 else None


def _json_objects(text: str) -> list[_Obj]:
    """Every top-level JSON object in `text` (prose and code fences around them are fine)."""
    found: list[_Obj] = []
    i = 0
    while True:
        i = text.find("{", i)
        if i < 0:
            return found
        try:
            obj, end = _DECODER.raw_decode(text, i)
        except (json.JSONDecodeError, RecursionError):  # a reply nested 10,000 deep
            i += 1
            continue
        if isinstance(obj, _Obj):
            found.append(obj)
        i = end


def _preds(raw: str) -> tuple[list[Any], str]:
    if len(raw) > MAX_REPLY_CHARS:
        return [], f"reply longer than {MAX_REPLY_CHARS} characters"
    text = raw.replace("\ufffd", "")
    objs = [o for o in _json_objects(text) if any(k.lower() == "pred" for k in o)]
    if not objs:
        return [], "no JSON object with a 'pred' entry"
    for o in objs:
        if o.duplicate is not None:
            return [], f"key {o.duplicate!r} appears twice (case-insensitive): ambiguous"
    preds = [next(v for k, v in o.items() if k.lower() == "pred") for o in objs]
    return preds, ""


def _unique(values: list[Any]) -> tuple[Any, str]:
    distinct = {json.dumps(v, sort_keys=True) for v in values}
    if len(distinct) > 1:
        return None, "several 'pred' entries that disagree"
    return values[0], ""


def parse_choice(raw: str, options: Options = ("R1", "R2")) -> Parsed:
    opts = _options(options)
    preds, why = _preds(raw)
    if not preds:
        return Parsed(None, why)
    labels = [_label(p, opts) for p in preds]
    if any(lb is None for lb in labels):
        bad = next(p for p, lb in zip(preds, labels, strict=True) if lb is None)
        return Parsed(None, f"'pred' is not one of {', '.join(opts)}: {str(bad)[:80]!r}")
    value, why = _unique(labels)
    return Parsed(value, why) if value else Parsed(None, why)


def _as_dict(pred: Any) -> dict[str, Any] | str | None:
    """The pred as a dict; a string saying why not when it repeats a key; None otherwise."""
    if isinstance(pred, dict):
        return pred
    if isinstance(pred, str) and pred.strip().startswith("{"):
        # A matching sent as a JSON string is still unambiguous.
        try:
            inner, end = _DECODER.raw_decode(pred.strip())
        except (json.JSONDecodeError, RecursionError):
            return None
        if end != len(pred.strip()) or not isinstance(inner, _Obj):
            return None
        if inner.duplicate is not None:
            return f"key {inner.duplicate!r} appears twice (case-insensitive): ambiguous"
        return inner
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
        if d is None or isinstance(d, str):
            return Parsed(None, d or not_dict)
        converted = convert(d)
        if isinstance(converted, str):
            return Parsed(None, converted)
        out.append(converted)
    value, why = _unique(out)
    return Parsed(value, why) if value else Parsed(None, why)


def parse_matching(raw: str, options: Options = ("R1", "R2")) -> Parsed:
    opts = _options(options)
    contexts = {"CA": "", "CB": ""}

    def matching(d: dict[str, Any]) -> dict[str, str] | str:
        keys: dict[str, Any] = {}
        for k, v in d.items():
            key = _label(k, contexts) or re.sub(r"\s", "", str(k)).upper()
            if key in keys:
                return f"matching gives {key} twice"
            keys[key] = v
        if set(keys) != {"CA", "CB"}:
            return f"matching keys are {sorted(map(str, d))}, expected CA and CB"
        vals = {k: _label(v, opts) for k, v in keys.items()}
        if None in vals.values() or vals["CA"] == vals["CB"]:
            return "matching must send CA and CB to different responses R1/R2"
        return {"CA": str(vals["CA"]), "CB": str(vals["CB"])}

    return _parse_dicts(raw, "'pred' is not a CA/CB matching", matching)


def parse_turns(raw: str, human_keys: tuple[str, ...], options: Options = ("E1", "E2")) -> Parsed:
    """A label for every human turn (keys like 'C3') and none for any other turn."""
    opts = _options(options)

    def turns(d: dict[str, Any]) -> dict[str, str] | str:
        labels: dict[str, str] = {}
        for k, v in d.items():
            key = re.sub(r"[\s\[\]]", "", str(k)).upper()
            if not re.fullmatch(r"C\d+", key):
                return f"turn key {str(k)[:20]!r} is not of the form C[t]"
            if key in labels:
                return f"turn {key} is labelled twice"
            lab = _label(v, opts)
            if lab is None:
                return f"turn {key} has label {str(v)[:20]!r}, not one of {tuple(opts)}"
            labels[key] = lab
        extra = set(labels) - set(human_keys)
        missing = set(human_keys) - set(labels)
        if extra:
            return f"labels for turns that are not human turns: {sorted(extra)}"
        if missing:
            return f"no label for human turns {sorted(missing)}"
        return labels

    return _parse_dicts(raw, "'pred' is not a dict of turn labels", turns)


PARSE_PRESETS = ("strict", "lenient")
"""How replies are read (`paraudit run --parse`, recorded in the RunSpec when not strict):

- `strict` (the default): the paper asks for a JSON dict with 'pred'; only that is an answer.
- `lenient`: also a reply that is nothing but one offered label of a choice question ('R1',
  '**R2**', 'Response R1.', 'E2'), for servers that answer the label without the JSON. It
  stays unambiguous: a reply naming both options, an option not offered, or anything longer
  than a label is still unparsed, and matchings and turn labels still need their JSON.
Parsing follows the call, so the preset changes no call key and no cached reply."""
BARE_LABEL_CHARS = 24
"""Longest reply the lenient preset reads as a bare label (a label and its decoration)."""


def bare_label(raw: str, options: Options) -> str | None:
    """The one offered label a reply consists of, or None (the lenient preset's rule)."""
    text = _unmark(raw.strip()).strip().strip("\"'").strip()
    if not text or len(text) > BARE_LABEL_CHARS or "\n" in text or "{" in text:
        return None
    return _label(text, _options(options))


def parse_answer(question: Question, raw: str, preset: str = "strict") -> Parsed:
    """Parse a reply to `question` by its answer kind, mapping through its options; the
    `lenient` preset also accepts a bare label (PARSE_PRESETS)."""
    if question.answer == "choice":
        parsed = parse_choice(raw, question.options)
        if parsed.pred is None and preset == "lenient":
            label = bare_label(raw, question.options)
            if label is not None:
                return Parsed(label)
        return parsed
    if question.answer == "matching":
        if TIE in question.options:
            # The ties preset: "tie" in place of a matching (protocols/ties.py).
            tie = parse_choice(raw, {TIE: TIE})
            if tie.pred is not None:
                return tie
            return parse_matching(raw, {k: v for k, v in question.options.items() if k != TIE})
        return parse_matching(raw, question.options)
    return parse_turns(raw, question.human_keys, question.options)


SHAPE_CHARS = 40


def reply_shape(raw: str | None) -> str:
    """What a reply looks like, for naming it when it cannot be parsed: its first
    `SHAPE_CHARS` characters with whitespace collapsed ('R1', '{"pred": "R1"}', 'I cannot …')."""
    text = re.sub(r"\s+", " ", raw or "").strip()
    return text if len(text) <= SHAPE_CHARS else text[: SHAPE_CHARS - 1] + "…"
