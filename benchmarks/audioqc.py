"""Audio Scorer with the offline Piper backend: keep / drop rates per emotion and seconds per turn.

Run: PYTHONPATH=src .venv/bin/python benchmarks/audioqc.py [N]
Renders N starter sentences in every human emotion the Piper backend has (and the first
response of each as an empathetic assistant turn) with render-and-retry (3 accepted or 10
tries), no SER (so angry/neutral/sad/happy/surprised/empathetic use the acoustic fallbacks),
into a fresh cache. Prints, per emotion, turns kept and dropped, mean tries, and the share of
time spent rendering versus measuring.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from paraudit.builders.scorer import AudioScorer
from paraudit.render.backends import make_tts
from paraudit.sources.starter import single_turn_sources

HUMAN = ("neutral", "happy", "sad", "angry", "surprised", "frazzled", "hesitant")


def main(n: int = 8) -> None:
    sources = single_turn_sources()[:n]
    with tempfile.TemporaryDirectory() as tmp:
        tts = make_tts("piper", cache_dir=Path(tmp))
        render_s = 0.0
        synthesize = tts.synthesize

        def timed(*a: Any, **k: Any) -> Any:
            nonlocal render_s
            t = time.perf_counter()
            try:
                return synthesize(*a, **k)
            finally:
                render_s += time.perf_counter() - t

        tts.synthesize = timed  # type: ignore[method-assign]
        scorer = AudioScorer(tts)
        t0 = time.perf_counter()
        turns = 0
        for s in sources:
            for e in HUMAN:
                scorer.render_turn(s.text, e, "human", "plain")
                turns += 1
            scorer.render_turn(s.responses[0].text, "empathetic", "assistant", "shifted")
            turns += 1
        total = time.perf_counter() - t0
    print(
        f"{turns} turns from {len(sources)} sentences in {total:.1f} s ({total / turns:.2f} s/turn)"
    )
    print(f"rendering {render_s / total:.0%} of the time, measuring and rules the rest")
    print(f"{'emotion':<11} {'kept':>5} {'dropped':>8} {'mean tries':>11}")
    for e, c in scorer.counts.as_dict().items():
        print(f"{e:<11} {c['kept']:>5} {c['dropped']:>8} {c['tries'] / c['turns']:>11.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8)
