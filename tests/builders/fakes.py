"""Test doubles for builders: sample EmoCF and OD3 sources written in the test, and a loopback
HTTP server speaking OpenAI chat completions whose replies a scripted generator writes from the
prompt it receives (valid pairs, "impossible", malformed answers, mismatched words)."""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from paraudit.builders.pipeline import BuildOptions, BuildResult, build
from paraudit.builders.voicing import TurnVoicer, Voiced, VoicingStats
from paraudit.compose.llm import CompletionCache, ComposerLLM, LLMSpec
from paraudit.compose.prompts import FINAL_ANSWER_LINE
from paraudit.items.records import Speaker
from paraudit.qc.rules import Miss

# Sentences whose words fit both emotions of their pair (written for these tests).
SENTENCES = [
    ("They changed the schedule again.", "anger", "sadness"),
    ("The package arrived today.", "surprise", "neutral"),
    ("We are moving next month.", "surprise", "sadness"),
    ("He took the last seat.", "anger", "surprise"),
    ("The results are in.", "surprise", "sadness"),
    ("My brother called this morning.", "anger", "sadness"),
    ("The shop closed early.", "surprise", "neutral"),
]

CORPORA = ("kvret", "MultiWOZ_2.2", "NOESIS", "SIMMC2.1", "DSCT11-Track-5")
# How many dialogues of each corpus: skewed, like OD3.
CORPUS_SIZES = {"kvret": 2, "MultiWOZ_2.2": 12, "NOESIS": 6, "SIMMC2.1": 6, "DSCT11-Track-5": 6}

GOALS = [
    ("Find me a cheap hotel.", "The Grand is ninety pounds."),
    ("Book a table for two.", "Booked for four people."),
    ("Show me the red jacket.", "Here is the blue jacket."),
    ("What time is my meeting?", "You have no meetings today."),
    ("Get a taxi to the station.", "A taxi is booked to the airport."),
    ("I need a train on Monday.", "There is a train on Tuesday."),
]


def write_emocf(path: Path, rows: list[tuple[str, str, str]] | None = None) -> Path:
    """One line per recording; file names carry the label, like the real set."""
    lines = []
    for i, (sentence, a, b) in enumerate(rows or SENTENCES):
        for emo in (a, b):
            lines.append(
                {
                    "filename": f"clips/{i:03d}_{emo}.wav",
                    "emotion": emo,
                    "sentence": sentence,
                    "expected_emotions": [a, b],
                }
            )
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def od3_records(tags: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Dialogues with three human goals and two assistant replies; `tags` marks sample ids
    whose first human turn gets a tag the scripted generator reacts to."""
    out = []
    k = 0
    for corpus, size in CORPUS_SIZES.items():
        for j in range(size):
            g1 = GOALS[k % len(GOALS)]
            g2 = GOALS[(k + 2) % len(GOALS)]
            sid = f"{corpus}-{j}"
            first = g1[0]
            if tags and sid in tags:
                first = f"{first} [{tags[sid]}]"
            turns = [
                {"turn_id": 0, "is_agent": False, "text": first},
                {"turn_id": 1, "is_agent": True, "text": g1[1]},
                {"turn_id": 2, "is_agent": False, "text": g2[0]},
                {"turn_id": 3, "is_agent": True, "text": g2[1]},
                {"turn_id": 4, "is_agent": False, "text": "Okay, thanks."},
            ]
            out.append({"sample_id": sid, "source_dataset": corpus, "turns": turns})
            k += 1
    return out


def write_od3(path: Path, tags: dict[str, str] | None = None) -> Path:
    rows = od3_records(tags)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _source_turns(prompt: str) -> list[tuple[str, str]]:
    body = prompt.rsplit("S:\n", 1)[1]
    return [
        (m.group(1), m.group(2)) for m in re.finditer(r'^(HUMAN|VA): "(.*)"$', body, re.MULTILINE)
    ]


def _options(prompt: str, name: str) -> list[str]:
    m = re.search(rf"{name} = \{{([^}}]*)\}}", prompt)
    assert m, name
    return [x.strip() for x in m.group(1).split(",")]


def _conv(turns: list[tuple[str, str, str]], response: tuple[str, str]) -> str:
    lines = [f'{"HUMAN" if s == "HUMAN" else "VA"}({e}): "{t}"' for s, e, t in turns]
    lines.append(f'VA({response[0]}): "{response[1]}"')
    return "\n".join(lines)


def _tag(turns: list[tuple[str, str]]) -> str | None:
    m = re.search(r"\[(\w[\w-]*)\]", turns[0][1]) if turns else None
    return m.group(1) if m else None


def positional_answer(prompt: str) -> str:
    src = _source_turns(prompt)
    tag = _tag(src)
    if tag == "impossible":
        return f"There is only one goal here.\n{FINAL_ANSWER_LINE}\nimpossible"
    if tag == "malformed":
        return "I think this works well, here it is:\nHUMAN neutral: hello"
    x = _options(prompt, "X_options")[0]
    y = _options(prompt, "Y_options")[0].replace("hesistant", "hesitant")
    humans = [i for i, (s, _) in enumerate(src) if s == "HUMAN"]
    vas = [i for i, (s, _) in enumerate(src) if s == "VA"]
    context = src[: humans[-1] + 1]
    shift_a, shift_b = humans[1], humans[2]

    def emos(shift: int) -> list[tuple[str, str, str]]:
        return [
            (s, ("neutral" if s == "VA" else (x if i < shift else y)), t)
            for i, (s, t) in enumerate(context)
        ]

    ra = ("apologetic/empathetic/reassuring", f"Sorry, I got that wrong: {src[vas[0]][1]}")
    rb = ("apologetic/empathetic/reassuring", f"Sorry, my mistake earlier: {src[vas[1]][1]}")
    a, b = _conv(emos(shift_a), ra), _conv(emos(shift_b), rb)
    if tag == "mismatch":
        b = b.replace(context[-1][1], context[-1][1] + " please")
    if tag == "back-and-forth":
        # B shifts to Y and back to X: not the one shift for good Listing 1 asks for.
        turns = emos(shift_a)
        last = humans[-1]
        turns[last] = (turns[last][0], x, turns[last][2])
        b = _conv(turns, rb)
    return f"Reasoning about goals.\n{FINAL_ANSWER_LINE}\nConversation A:\n{a}\n===\n{b}\n"


def conversations_answer(prompt: str) -> str:
    src = _source_turns(prompt)
    tag = _tag(src)
    if tag == "impossible":
        return f"{FINAL_ANSWER_LINE}\nimpossible"
    humans = [i for i, (s, _) in enumerate(src) if s == "HUMAN"]
    context = src[: humans[-1] + 1]

    def emos(last: str) -> list[tuple[str, str, str]]:
        return [
            (s, "neutral" if s == "VA" or i != humans[-1] else last, t)
            for i, (s, t) in enumerate(context)
        ]

    emo_b = "surprised" if tag == "vocabulary" else "sad"
    a = _conv(emos("angry"), ("apologetic/empathetic/reassuring", "I hear you, let me fix it now."))
    b = _conv(emos(emo_b), ("apologetic/empathetic/reassuring", "That is a shame, I am sorry."))
    return f"Thinking.\n{FINAL_ANSWER_LINE}\n{a}\n===\n{b}"


RESPONSES = {
    "angry": "That should not have happened; I will sort it out right now.",
    "sad": "Oh, that is hard. Take your time, I am here if you want to talk.",
    "surprised": "Wow, that came out of nowhere! Tell me more.",
    "neutral": "Okay, noted. Anything else you need?",
}
LABEL = {"anger": "angry", "sadness": "sad", "surprise": "surprised", "neutral": "neutral"}


def single_turn_answer(prompt: str) -> str:
    m = re.search(r'Sentence: "(.*)" Emotion A: (\w+) Emotion B: (\w+)', prompt)
    assert m
    sentence, a, b = m.groups()
    if "results" in sentence:
        return "impossible"
    if "brother" in sentence:
        return '{"A_response": "You sound upset"'  # malformed JSON
    return json.dumps({"A_response": RESPONSES[LABEL[a]], "B_response": RESPONSES[LABEL[b]]})


def balance_answer(prompt: str) -> str:
    m = re.search(r"Reply 1: (.*)\n\nReply 2: (.*)\n\n", prompt)
    assert m
    r1, r2 = m.groups()

    def score(text: str) -> dict[str, int]:
        n = len(text.split())
        return {
            "politeness": 4,
            "specificity": 2 + n % 3,
            "warmth": 3 + n % 2,
            "formality": 3,
            "fluency": 5,
        }

    return json.dumps({"reply1": score(r1), "reply2": score(r2)})


def scripted_generator(messages: list[dict[str, Any]]) -> str:
    prompt = messages[-1]["content"]
    if "Please look at the answer you just gave" in prompt:
        return conversations_answer(messages[0]["content"])
    if "PositionalWinoSound" in prompt:
        return positional_answer(prompt)
    if '"WinoSound pair"' in prompt:
        return "First draft."  # the refine pass gives the answer
    if "friendly voice assistant" in prompt:
        return single_turn_answer(prompt)
    if "candidate replies" in prompt:
        return balance_answer(prompt)
    return "unexpected prompt"


class ChatServer:
    """Loopback chat-completions server; `reply(messages)` writes each answer. Set `fail_after`
    to answer HTTP 500 from the n-th request on (a crash mid-build)."""

    def __init__(self, reply: Callable[[list[dict[str, Any]]], str] = scripted_generator):
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self.fail_after: int | None = None
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with outer.lock:
                    outer.requests.append(body)
                    failing = (
                        outer.fail_after is not None and len(outer.requests) > outer.fail_after
                    )
                if failing:
                    status, payload = 500, {"error": {"message": "scripted outage"}}
                else:
                    text = outer.reply(body["messages"])
                    status, payload = (
                        200,
                        {
                            "id": "c",
                            "object": "chat.completion",
                            "created": 0,
                            "model": body["model"],
                            "choices": [
                                {
                                    "index": 0,
                                    "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text},
                                }
                            ],
                            "usage": {
                                "prompt_tokens": 1,
                                "completion_tokens": 1,
                                "total_tokens": 2,
                            },
                        },
                    )
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def spec(self) -> str:
        return f"openai:scripted-gen@http://127.0.0.1:{self.server.server_address[1]}/v1"


DROPPED = "(dropped by QC)"


class QuickVoicer:
    """A TurnVoicer writing a short tone per turn (distinct bytes per request); a turn whose text
    carries DROPPED fails QC, missing `misses` (the Audio Scorer's kind of record), or with a
    worded failure only (the direction check's kind) when `misses` is empty."""

    label = "quick"
    rendering = "test tones"
    qc_rule = "text marker"

    def __init__(
        self,
        root: Path,
        drop_all: bool = False,
        misses: Callable[[int], tuple[Miss, ...]] | None = None,
    ) -> None:
        self.root = root
        self.drop_all = drop_all
        self.misses = misses
        self.stats = VoicingStats()

    def voices(self, speaker: Speaker) -> tuple[str, ...]:
        return ("h",) if speaker == "human" else ("a",)

    def can_voice(self, speaker: Speaker, emotion: str) -> bool:
        return True

    def voice_all(
        self, jobs: Sequence[Any], on_done: Callable[[], None] | None = None
    ) -> dict[Any, Voiced]:
        out: dict[Any, Voiced] = {}
        for i, job in enumerate(jobs):
            seed = int(hashlib.sha256(repr(tuple(job)).encode()).hexdigest()[:8], 16)
            tone = 0.3 * np.sin(np.arange(8000) * (0.02 + seed % 97 / 1e4))
            buf = io.BytesIO()
            sf.write(buf, tone, 16000, "PCM_16", format="WAV")
            path = self.root / f"{seed}.wav"
            path.write_bytes(buf.getvalue())
            ok = DROPPED not in job[0] and not self.drop_all
            if ok:
                out[job] = Voiced(path, True, 1, (), {}, 0.5)
            elif self.misses is not None:
                out[job] = Voiced(None, False, 10, ("try 10: below",), {}, 0.0, self.misses(i))
            else:
                out[job] = Voiced(
                    None, False, 3, ("pitch moved +0.3 st, expected about +4.0",), {}, 0.0
                )
        return out

    def describe(self) -> dict[str, Any]:
        return {"backend": "quick"}

    def qc_table(self, voiced: dict[Any, Voiced]) -> dict[str, dict[str, Any]]:
        return {}


def quick_build(
    chat: ChatServer,
    tmp: Path,
    voicer: TurnVoicer,
    kind: str = "single-turn",
    source: Path | None = None,
    seed: int = 0,
) -> BuildResult:
    """A build through the loopback generator with `voicer` (no ratings, no DNSMOS), into
    `tmp/out-KIND-SEED`; the source defaults to the sample EmoCF file."""
    store = CompletionCache(tmp / "compose.sqlite")
    try:
        o = BuildOptions(
            kind=kind,
            source=source or write_emocf(tmp / "emocf.jsonl"),
            out=tmp / f"out-{kind}-{seed}",
            seed=seed,
            dnsmos=False,
            rate_balance=False,
        )
        return build(o, ComposerLLM(LLMSpec.parse(chat.spec), store), voicer)
    finally:
        store.close()
