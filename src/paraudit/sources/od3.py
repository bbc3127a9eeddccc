"""OD3 task-oriented dialogues: `sample_id`, `source_dataset`, `turns[]` (text, is_agent,
turn_id). The role is assistant when `is_agent`.

OD3 is dominated by a few corpora, so sources are drawn in a seeded order reweighted towards
uniform across corpora (paper B.2.1): each dialogue's weight is n_corpus^-alpha (alpha = 1:
every corpus equally likely per draw; 0: OD3's own mix). The builder walks that order until it
has enough accepted pairs; the card records what was available, drawn and kept per corpus.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paraudit.errors import ParauditError
from paraudit.items.records import Turn
from paraudit.sources.tables import ColumnMap, need, read_rows

# source_dataset as spelled in OD3 → the name the paper and the card use.
CORPORA = {
    "kvret": "KVRET",
    "MultiWOZ_2.2": "MultiWOZ",
    "NOESIS": "NOESIS-II",
    "SIMMC2.1": "SIMMC-2.1",
    "DSCT11-Track-5": "DSTC11 Track 5",
}


@dataclass(frozen=True)
class Dialogue:
    id: str
    """The source's sample_id."""
    corpus: str
    """source_dataset as spelled in the source."""
    turns: tuple[Turn, ...]

    @property
    def corpus_name(self) -> str:
        return CORPORA.get(self.corpus, self.corpus)


def _flag(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "1", "yes", "false", "0", "no"):
        return value.strip().lower() in ("true", "1", "yes")
    raise ParauditError(f"{where}: is_agent must be true or false, not {value!r}")


def _turns(raw: Any, where: str) -> tuple[Turn, ...]:
    if isinstance(raw, str):
        import json

        try:
            raw = json.loads(raw)
        except (json.JSONDecodeError, RecursionError):
            raise ParauditError(f"{where}: turns is not a JSON list") from None
    if not isinstance(raw, list):
        raise ParauditError(f"{where}: turns must be a list")
    indexed: list[tuple[float, int, Turn]] = []
    for i, t in enumerate(raw):
        if not isinstance(t, dict) or "text" not in t or "is_agent" not in t:
            raise ParauditError(
                f"{where}: turn {i} needs 'text' and 'is_agent' (rename with --map turns.text=…)"
            )
        text = " ".join(str(t["text"]).split())
        if not text:
            continue
        speaker = "assistant" if _flag(t["is_agent"], f"{where} turn {i}") else "human"
        order = t.get("turn_id", i)
        try:
            rank = float(order)
        except (TypeError, ValueError):
            rank = float(i)
        indexed.append((rank, i, Turn(speaker=speaker, text=text)))
    return tuple(turn for _, _, turn in sorted(indexed, key=lambda x: (x[0], x[1])))


def read_od3(path: Path, mapping: ColumnMap | None = None) -> list[Dialogue]:
    out: list[Dialogue] = []
    seen: set[str] = set()
    for n, row in read_rows(path, mapping):
        where = f"{path}:{n}"
        sid = str(need(path, n, row, "sample_id"))
        if sid in seen:
            raise ParauditError(f"{where}: duplicate sample_id '{sid}'")
        seen.add(sid)
        corpus = str(row.get("source_dataset") or "unknown")
        turns = _turns(need(path, n, row, "turns"), where)
        out.append(Dialogue(sid, corpus, turns))
    if not out:
        raise ParauditError(f"{path}: no dialogues")
    return out


def usable(d: Dialogue) -> bool:
    """At least two human goals and an assistant reply between them are needed for a pair."""
    humans = sum(t.speaker == "human" for t in d.turns)
    agents = sum(t.speaker == "assistant" for t in d.turns)
    return humans >= 2 and agents >= 1


def weighted_order(dialogues: list[Dialogue], seed: int, alpha: float = 1.0) -> list[Dialogue]:
    """All dialogues in a seeded order drawn without replacement with weight n_corpus^-alpha.

    Efraimidis–Spirakis keys (u^(1/w)) give a weighted permutation in one pass, so the prefix
    of any length is a weighted sample and the order does not depend on how many are used.
    """
    counts = Counter(d.corpus for d in dialogues)
    rng = random.Random(seed)
    keyed: list[tuple[float, str, Dialogue]] = []
    for d in dialogues:
        w = counts[d.corpus] ** -alpha
        u = rng.random()
        keyed.append((math.log(u) / w if u > 0 else -math.inf, d.id, d))
    keyed.sort(key=lambda x: (-x[0], x[1]))
    return [d for _, _, d in keyed]


def corpus_counts(dialogues: list[Dialogue]) -> dict[str, int]:
    return dict(sorted(Counter(d.corpus_name for d in dialogues).items()))


def format_source(d: Dialogue) -> str:
    """The source conversation S as the prompts show it."""
    return "\n".join(f'{"HUMAN" if t.speaker == "human" else "VA"}: "{t.text}"' for t in d.turns)
