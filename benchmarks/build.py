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

Per dimension: PYTHONPATH=src:. .venv/bin/python benchmarks/build.py --dimension NAME[,NAME…]|all
    [--limit N]
runs `build starter --dimension NAME` (its renderer, QC with one re-render, the assistant's
responses, validation-ready dataset) for each new dimension, each from its own empty render
cache, and prints items kept of texts, renders, wall and CPU seconds (this process and its
children) and whether the set met the target of ≤ 180 s on 2 cores, with the load average
before and after each (a figure measured under load is an upper bound).
"""

from __future__ import annotations

import os
import resource
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


TARGET_S = 180.0
"""Issue 28: each new dimension's starter set in ≤ 3 min on 2 cores from an empty cache."""


def cpu_s() -> float:
    own, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def dimensions(names: list[str], limit: int | None) -> None:
    from paraudit.builders.dimension_starter import build_dimension_starter
    from paraudit.compose.dimension_starters import positional_texts, starter_texts
    from paraudit.dimensions import registry

    print(f"{'dimension':10} {'items':>7} {'renders':>7} {'wall s':>7} {'CPU s':>7} "
          f"{'≤180 s':>6}  load before → after")  # fmt: skip
    for name in names:
        dim = registry.get(name)
        # Single-turn texts and positional conversations: `limit` applies to each kind.
        texts = len(starter_texts(dim)[:limit]) + len(positional_texts(dim)[:limit])
        with tempfile.TemporaryDirectory() as tmp:
            before, c0, t0 = os.getloadavg()[0], cpu_s(), time.perf_counter()
            r = build_dimension_starter(
                dim, Path(tmp) / "ds", limit=limit, cache_dir=Path(tmp) / "c"
            )
            wall, cpu, after = time.perf_counter() - t0, cpu_s() - c0, os.getloadavg()[0]
        met = "yes" if wall <= TARGET_S else "no"
        print(f"{name:10} {f'{r.items_written}/{texts}':>7} {r.renders:7d} {wall:7.1f} {cpu:7.1f} "
              f"{met:>6}  {before:.1f} → {after:.1f}")  # fmt: skip


def main() -> None:
    if "--dimension" in sys.argv:
        from paraudit.judges.builtin.listeners import LISTENERS

        arg = sys.argv[sys.argv.index("--dimension") + 1]
        limit = int(sys.argv[sys.argv.index("--limit") + 1]) if "--limit" in sys.argv else None
        dimensions(list(LISTENERS) if arg == "all" else arg.split(","), limit)
        return
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
