"""Parse and check what a generator wrote; every rejection carries a reason and a short code.

Multi-turn answers follow the paper's format: after the FINAL ANSWER marker, conversation A
(its context and final response), a line of `===`, conversation B. Each turn reads
`HUMAN(emotion): "text"` or `VA(emotion): "text"`; header lines such as "Conversation A:" or
"Final Response B:" (the paper's example transcripts) are allowed and ignored.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from paraudit.compose.prompts import ASSISTANT_EMOTIONS

MARKER = re.compile(r"=+\s*FINAL\s*ANSWER\s*=+", re.IGNORECASE)
SEPARATOR = re.compile(r"^\s*={3,}\s*$", re.MULTILINE)
TURN = re.compile(r"^\s*\**\s*(HUMAN|VA)\s*\(\s*([^)]*?)\s*\)\s*\**\s*:\s*(.*?)\s*$", re.I)
HEADER = re.compile(
    r"^\s*[*#]*\s*(conversation|final\s*response|response|c_?[ab]|r_?[ab])\b[^:\"]*:?\s*[*]*\s*$",
    re.IGNORECASE,
)
# The paper's emotion list spells hesitant "hesistant"; the assistant tone has three names.
ALIASES = {
    "hesistant": "hesitant",
    "apologetic/empathetic/reassuring": "empathetic",
    "apologetic": "empathetic",
    "reassuring": "empathetic",
    "empathetic/reassuring": "empathetic",
}
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})


class Rejection(Exception):
    """A generator answer that cannot become an item."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(code, reason)
        self.code = code
        """Short category counted in the card (impossible, malformed, vocabulary, …)."""
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.code}: {self.reason}"


@dataclass(frozen=True)
class ParsedTurn:
    speaker: str
    """human | assistant"""
    emotion: str
    text: str


@dataclass(frozen=True)
class ParsedConversation:
    context: tuple[ParsedTurn, ...]
    response: ParsedTurn


@dataclass(frozen=True)
class ParsedPair:
    a: ParsedConversation
    b: ParsedConversation

    def human_emotions(self, which: int) -> list[str]:
        conv = (self.a, self.b)[which]
        return [t.emotion for t in conv.context if t.speaker == "human"]


def normalise_text(text: str) -> str:
    return " ".join(text.translate(_QUOTES).split())


def canonical_emotion(label: str) -> str:
    e = label.strip().strip("\"'").lower()
    return ALIASES.get(e, e)


def final_answer(reply: str) -> str:
    """The text after the last FINAL ANSWER marker; 'impossible' raises a Rejection."""
    found = list(MARKER.finditer(reply))
    body = reply[found[-1].end() :] if found else reply
    if re.fullmatch(r"\W*impossible\W*", body.strip(), re.IGNORECASE):
        raise Rejection("impossible", "the generator said it is impossible")
    if not found:
        if re.search(r"\bimpossible\b", reply[-200:], re.IGNORECASE) and not TURN.search(reply):
            raise Rejection("impossible", "the generator said it is impossible")
        raise Rejection("malformed", "no FINAL ANSWER marker in the reply")
    return body


def _conversation(block: str, name: str) -> ParsedConversation:
    turns: list[ParsedTurn] = []
    for line in block.splitlines():
        if not line.strip() or HEADER.match(line):
            continue
        m = TURN.match(line.translate(_QUOTES))
        if not m:
            raise Rejection(
                "malformed", f"conversation {name}: unreadable line {line.strip()[:60]!r}"
            )
        speaker = "human" if m.group(1).upper() == "HUMAN" else "assistant"
        text = m.group(3).strip()
        if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
            text = text[1:-1]
        text = normalise_text(text)
        if not text:
            raise Rejection("malformed", f"conversation {name}: a turn has no words")
        turns.append(ParsedTurn(speaker, canonical_emotion(m.group(2)), text))
    if len(turns) < 2:
        raise Rejection("malformed", f"conversation {name}: fewer than two turns")
    if turns[-1].speaker != "assistant":
        raise Rejection("malformed", f"conversation {name}: does not end with a VA response")
    if turns[-2].speaker != "human":
        raise Rejection("malformed", f"conversation {name}: the context does not end with HUMAN")
    return ParsedConversation(tuple(turns[:-1]), turns[-1])


def parse_pair(
    reply: str,
    human_vocabulary: tuple[str, ...],
    assistant_vocabulary: tuple[str, ...] = ASSISTANT_EMOTIONS,
) -> ParsedPair:
    """Conversation A and B from a multi-turn answer, checked for the paper's invariants."""
    body = final_answer(reply)
    blocks = [b for b in SEPARATOR.split(body) if b.strip()]
    if len(blocks) != 2:
        raise Rejection(
            "malformed", f"expected two conversations separated by '===', found {len(blocks)}"
        )
    pair = ParsedPair(_conversation(blocks[0], "A"), _conversation(blocks[1], "B"))
    for name, conv in (("A", pair.a), ("B", pair.b)):
        for t in (*conv.context, conv.response):
            allowed = human_vocabulary if t.speaker == "human" else assistant_vocabulary
            if t.emotion not in allowed:
                who = "HUMAN" if t.speaker == "human" else "VA"
                raise Rejection(
                    "vocabulary",
                    f"conversation {name}: {who} emotion '{t.emotion}' is not one of "
                    f"{', '.join(allowed)}",
                )
    ca, cb = pair.a.context, pair.b.context
    if len(ca) != len(cb):
        raise Rejection("mismatch", f"conversation A has {len(ca)} turns, B has {len(cb)}")
    for i, (x, y) in enumerate(zip(ca, cb, strict=True)):
        if x.speaker != y.speaker:
            raise Rejection("mismatch", f"turn {i}: speakers differ between A and B")
        if x.text != y.text:
            raise Rejection("mismatch", f"turn {i}: the words differ between A and B")
    if all(x.emotion == y.emotion for x, y in zip(ca, cb, strict=True) if x.speaker == "human"):
        raise Rejection("no-contrast", "no human turn has a different emotion in A and B")
    if pair.a.response.text == pair.b.response.text:
        raise Rejection("no-contrast", "responses A and B are the same")
    return pair


def shift_index(emotions: list[str], before: tuple[str, ...], after: tuple[str, ...]) -> int:
    """Index (among human turns) where a positional branch moves from X to Y for good."""
    if not emotions or emotions[0] not in before:
        raise Rejection("positional", "the first human turn is not from X_options")
    k = next((i for i, e in enumerate(emotions) if e in after), None)
    if k is None:
        raise Rejection("positional", "the human never shifts to an emotion from Y_options")
    if any(e not in before for e in emotions[:k]) or any(e not in after for e in emotions[k:]):
        raise Rejection("positional", "human emotions are not X… then Y… (one shift for good)")
    return k


def check_positional(
    pair: ParsedPair, before: tuple[str, ...], after: tuple[str, ...]
) -> tuple[int, int]:
    """The two shift positions (among human turns); they must differ."""
    ka = shift_index(pair.human_emotions(0), before, after)
    kb = shift_index(pair.human_emotions(1), before, after)
    if ka == kb:
        raise Rejection("positional", f"both conversations shift at the same human turn ({ka})")
    return ka, kb


def _emotion_words(emotion: str) -> tuple[str, ...]:
    words = {
        "angry": ("angry", "anger"),
        "sad": ("sad", "sadness"),
        "surprised": ("surprised", "surprise"),
        "happy": ("happy", "joy", "joyful"),
        "disgusted": ("disgusted", "disgust"),
        "fearful": ("fearful", "fear", "afraid", "scared"),
        "neutral": ("neutral",),
    }
    return words.get(emotion, (emotion,))


def parse_responses(reply: str, emotions: tuple[str, str]) -> tuple[str, str]:
    """A_response and B_response from the single-turn prompt's JSON answer."""
    text = reply.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1)
    if re.fullmatch(r"\W*impossible\W*", text, re.IGNORECASE):
        raise Rejection("impossible", "the generator said it is impossible")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise Rejection("malformed", f"not JSON ({e.msg} at column {e.colno})") from None
    except RecursionError:  # a generator's reply nested thousands deep
        raise Rejection("malformed", "JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise Rejection("malformed", "the JSON is not an object")
    out: list[str] = []
    for k in ("A_response", "B_response"):
        v = data.get(k)
        if not isinstance(v, str) or not v.strip():
            raise Rejection("malformed", f"missing or empty '{k}'")
        out.append(normalise_text(v))
    if out[0] == out[1]:
        raise Rejection("no-contrast", "A_response and B_response are the same")
    for which, (resp, emotion) in enumerate(zip(out, emotions, strict=True)):
        for w in _emotion_words(emotion):
            if re.search(rf"\b{re.escape(w)}\b", resp, re.IGNORECASE):
                raise Rejection(
                    "names-emotion",
                    f"{'AB'[which]}_response names its emotion ('{w}'); the prompt forbids it",
                )
    return out[0], out[1]
