"""Render + verification throughput: clips per second and real-time factor.

Run: .venv/bin/python benchmarks/render.py [N]
Renders N starter sentences (human, every emotion of their pair, plus the neutral baseline)
into a fresh cache, so nothing is reused, and prints clips/s and RTF = processing seconds per
second of audio produced. The baseline in the same run is bare Piper synthesis of the same
texts, so the ratio shows what prosody manipulation and measurement add.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import soundfile as sf

from paraudit.render.piper_voice import load_synth, resolve_voice
from paraudit.render.renderer import Renderer
from paraudit.sources.starter import single_turn_sources


def main(n: int = 12) -> None:
    sources = single_turn_sources()[:n]
    synth = load_synth(resolve_voice(None))
    t0 = time.perf_counter()
    for s in sources:
        synth.synthesize(s.text)
    bare = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        r = Renderer(cache_dir=Path(tmp))
        t0 = time.perf_counter()
        clips = []
        for s in sources:
            for e in s.emotions:
                clips.append(r.render_verified(s.text, "human", e).clip)
        full = time.perf_counter() - t0
        audio_s = sum(sf.info(str(c.path)).duration for c in clips)
        fresh = r.fresh_renders
    print(f"texts: {len(sources)} · fresh renders: {fresh} (incl. neutral baselines and retries)")
    print(f"render+verify: {fresh / full:.2f} clips/s · RTF {full / audio_s:.3f}")
    print(f"bare Piper: {len(sources) / bare:.2f} texts/s")
    ratio = full / bare
    print(f"ratio render+verify / bare Piper for the same texts: {ratio:.1f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 12)
