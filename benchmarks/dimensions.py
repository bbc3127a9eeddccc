"""Build time and QC pass rate of each new dimension's offline starter set.

Run: PYTHONPATH=src .venv/bin/python benchmarks/dimensions.py [NAME …] [--voices all|cycle]
For every starter text: render each value (the reference value first: it is the QC baseline)
in one voice, then run the dimension's QC on each clip. Renders are never cached here, so the
time is that of an empty render cache. `cycle` (default) gives item i the voice i mod the
renderer's voices (every set in ≥ 3 voices); `all` renders every item in every voice.
Prints per dimension: clips, seconds, clips/s, QC pass rate per value, the rejections, and
per value the median (min–max) of every figure the QC rule read.
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions.base import Dimension

NEW = ("urgency", "hesitation", "whisper", "emphasis", "sarcasm")


def load(ref: str) -> Callable[..., Any]:
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def voices_of(dim: Dimension) -> tuple[str, ...]:
    module = importlib.import_module(dim.renderer.partition(":")[0])
    if hasattr(module, "VOICES"):
        return tuple(module.VOICES)
    from paraudit.render.offline_chain import PIPER_TIMBRES

    return tuple(PIPER_TIMBRES)


def run(name: str, every_voice: bool) -> None:
    dim: Dimension = importlib.import_module(f"paraudit.dimensions.{name}").DIMENSION
    render, check = load(dim.renderer), load(dim.qc)
    texts = starter_texts(dim)
    voices = voices_of(dim)
    passed: Counter[str] = Counter()
    total: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    figures: dict[str, dict[str, list[float]]] = {}
    t0 = time.perf_counter()
    audio_s = 0.0
    for i, item in enumerate(texts):
        for voice in voices if every_voice else (voices[i % len(voices)],):
            clips = {}
            for v in dim.values:
                kw: dict[str, Any] = {"focus": item.focus} if item.focus else {}
                clips[v.name] = render(item.text, v.name, voice=voice, seed=i, **kw)
                audio_s += len(clips[v.name].samples) / clips[v.name].rate
            base = clips[dim.values[0].name]
            for v in dim.values:
                qc = check(clips[v.name], v.name, baseline=base)
                total[v.name] += 1
                passed[v.name] += qc.passed
                for k, x in qc.measures.items():
                    figures.setdefault(v.name, {}).setdefault(k, []).append(float(x))
                for r in qc.reasons:
                    reasons[f"{v.name}/{voice}: {r.split(' = ')[0]}"] += 1
    secs = time.perf_counter() - t0
    n = sum(total.values())
    rates = ", ".join(f"{v} {passed[v]}/{total[v]}" for v in total)
    print(
        f"{name}: {len(texts)} texts, {n} clips ({audio_s:.0f} s audio) in {secs:.1f} s "
        f"({n / secs:.2f} clips/s, RTF {secs / audio_s:.3f}) · QC passed: {rates} · voices: "
        f"{', '.join(voices)}"
    )
    for r, k in reasons.most_common():
        print(f"  rejected {k}×  {r}")
    for value, by_name in figures.items():
        parts = [
            f"{k} {statistics.median(xs):.3g} ({min(xs):.3g}–{max(xs):.3g})"
            for k, xs in by_name.items()
        ]
        print(f"  {value}: median (min–max) " + " · ".join(parts))


def main(argv: list[str]) -> None:
    every = "--voices" in argv and argv[argv.index("--voices") + 1] == "all"
    names = [a for a in argv if not a.startswith("--") and a not in ("all", "cycle")] or NEW
    for name in names:
        try:
            importlib.import_module(f"paraudit.dimensions.{name}")
        except ModuleNotFoundError:
            print(f"{name}: not built")
            continue
        run(name, every)


if __name__ == "__main__":
    main(sys.argv[1:])
