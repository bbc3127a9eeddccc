"""`?constrain=labels` for local models: decoding restricted to the valid answer strings.

CAVA restricts local models' answers to the label set with a logits processor; here every
reply is forced to be one of the question's valid answers, written as the JSON the prompts ask
for (`{"pred": "R1"}`, `{"pred": {"CA": "R1", "CB": "R2"}}`, one E-label per human turn). At
each step only tokens that continue one of those strings' token sequences are allowed, and the
end token only once one is complete, so the parser always reads an offered answer: what remains
measured is which answer the model prefers, not whether it can follow the format.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from typing import Any

from paraudit.protocols.questions import Question
from paraudit.protocols.ties import TIE

MAX_ANSWERS = 4096
"""A 'turns' question has 2^k answers for k human turns; beyond this the trie would be huge
(no paper task comes near: the longest has a handful of human turns)."""


def answer_strings(q: Question) -> list[str]:
    """Every valid reply to `q`, as the JSON answer the prompts ask for."""
    labels = list(q.labels)
    preds: list[Any]
    if q.answer == "choice":
        preds = labels
    elif q.answer == "matching":
        # The ties preset offers "tie" in place of a matching (protocols/ties.py): as a matching
        # value it would make invalid answers ({"CA": "R1", "CB": "tie"}) and take the real
        # abstention away, so it is offered whole, after the matchings of the other labels.
        tie = [t for t in labels if t == TIE]
        pairs = [t for t in labels if t != TIE]
        preds = [{"CA": a, "CB": b} for a, b in itertools.permutations(pairs, 2)] + tie
    else:
        if len(labels) ** len(q.human_keys) > MAX_ANSWERS:
            raise ValueError(f"constrain=labels: {len(q.human_keys)} turns give too many answers")
        preds = [
            dict(zip(q.human_keys, combo, strict=True))
            for combo in itertools.product(labels, repeat=len(q.human_keys))
        ]
    return [json.dumps({"pred": p}) for p in preds]


class Trie:
    """Token sequences (each ending with the end token) and the tokens allowed after a prefix."""

    def __init__(self, sequences: Sequence[Sequence[int]], end: int) -> None:
        self.end = end
        self.next: dict[tuple[int, ...], set[int]] = {}
        self.longest = 0
        for seq in sequences:
            full = (*seq, end)
            self.longest = max(self.longest, len(full))
            for i in range(len(full)):
                self.next.setdefault(full[:i], set()).add(full[i])

    def allowed(self, prefix: Sequence[int]) -> list[int]:
        # A finished row (past its end token) is padded by generate: any answer will do.
        return sorted(self.next.get(tuple(prefix), {self.end}))


def trie_for(q: Question, tokenizer: Any, end: int) -> Trie:
    seqs = [tokenizer.encode(s, add_special_tokens=False) for s in answer_strings(q)]
    return Trie(seqs, end)


def prefix_fn(tries: list[Trie], prompt_len: int) -> Callable[[int, Any], list[int]]:
    """transformers' `prefix_allowed_tokens_fn` for one batch (row i follows tries[i]); the
    batch is left-padded, so every row's reply starts at `prompt_len`."""

    def allowed(batch_id: int, input_ids: Any) -> list[int]:
        return tries[batch_id].allowed(input_ids[prompt_len:].tolist())

    return allowed


__all__ = ["MAX_ANSWERS", "Trie", "answer_strings", "prefix_fn", "trie_for"]
