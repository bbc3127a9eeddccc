"""Builder throughput with the offline backends.

Run: PYTHONPATH=src:. .venv/bin/python benchmarks/build.py [PAIRS] [scorer|direction] [MAX_ACCEPTED]
Builds each of the three sets (single-turn, positional, emotional-conversations) from the test
sample sources with a scripted generator behind a loopback chat-completions server (real HTTP,
no model) and Piper voicing in one process (so synthesis and QC time can be told apart) —
through the Audio Scorer (default; the paper's policy: stop at 3 accepted or 10 tries) or the
starter set's direction check — into a fresh cache, and prints per builder:
  - items per minute (written items over wall time),
  - the share of wall time in TTS synthesis, audio QC (measurement against neutral) and LLM
    calls (time waiting on the loopback server; the rest is parsing, assembling, writing).
A second pass over the same cache shows what resuming a finished build costs.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from paraudit.builders.pipeline import BuildOptions, build
from paraudit.builders.voicing import make_voicer
from paraudit.compose.llm import CompletionCache, ComposerLLM, LLMSpec
from tests.builders.fakes import ChatServer, write_emocf, write_od3


def run(
    kind: str, source: Path, out: Path, cache: Path, spec: str, n: int | None, qc: str, acc: int
) -> dict[str, float]:
    store = CompletionCache(cache / "compose.sqlite")
    llm = ComposerLLM(LLMSpec.parse(spec), store)
    voicer = make_voicer("piper", cache, 1, qc=qc, max_accepted=acc)
    o = BuildOptions(kind=kind, source=source, out=out, n=n, dnsmos=False)
    t0 = time.perf_counter()
    r = build(o, llm, voicer)
    wall = time.perf_counter() - t0
    store.close()
    return {
        "items": len(r.items),
        "wall_s": wall,
        "items_per_min": 60 * len(r.items) / wall,
        "tts": voicer.stats.tts_s / wall,
        "qc": voicer.stats.qc_s / wall,
        "llm": llm.stats.seconds / wall,
        "calls": llm.stats.calls,
    }


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    qc = sys.argv[2] if len(sys.argv) > 2 else "scorer"
    acc = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    print(f"voicing: piper, qc={qc}" + (f", stop at {acc} accepted" if qc == "scorer" else ""))
    with tempfile.TemporaryDirectory() as tmp, ChatServer() as server:
        root = Path(tmp)
        emocf, od3 = write_emocf(root / "e.jsonl"), write_od3(root / "o.jsonl")
        plan = (("single-turn", emocf, None), ("positional", od3, n), ("conversations", od3, n))
        print(
            f"{'builder':14} {'pass':7} {'items':>5} {'wall s':>7} {'items/min':>9} "
            f"{'TTS':>5} {'QC':>5} {'LLM':>5} {'calls':>5}"
        )
        for label in ("fresh", "resume"):
            for kind, source, count in plan:
                m = run(
                    kind,
                    source,
                    root / f"{kind}-{label}",
                    root / "cache",
                    server.spec,
                    count,
                    qc,
                    acc,
                )
                print(
                    f"{kind:14} {label:7} {m['items']:5.0f} {m['wall_s']:7.1f} "
                    f"{m['items_per_min']:9.1f} {m['tts']:5.0%} {m['qc']:5.0%} {m['llm']:5.0%} "
                    f"{m['calls']:5.0f}"
                )


if __name__ == "__main__":
    main()
