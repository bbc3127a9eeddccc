"""Voices and recording conditions of the new dimensions' starter sets (issue 28 part 6).

Run: PYTHONPATH=src .venv/bin/python benchmarks/conditions.py [--texts N] [NAME …]
For the first N starter texts of each dimension (default 4) and the first three voices of its
renderer (`build starter --voices 3`): every value rendered and checked by the dimension's own
QC against the reference value in that voice (the pass rate per voice), the mean spectral
centroid below 5 kHz of the reference value per voice (a different speaker moves it); then, in
the first voice, each clip through the telephone line and the room with the twin QC
(qc/invariance.check_condition): its pass rate, its condition measures and the largest prosodic
drift the condition caused (recorded, not gated). Also the room's reverberation time measured
by Schroeder integration of its impulse response through `reverb`.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from typing import Any

import numpy as np

from paraudit.audio.changes import VARIANTS, apply
from paraudit.builders.dimension_starter import dimension_voices
from paraudit.compose.dimension_starters import starter_texts
from paraudit.dimensions import registry
from paraudit.qc.invariance import check_twin

NEW = ("urgency", "hesitation", "whisper", "emphasis", "sarcasm")


def centroid_hz(x: np.ndarray, rate: int) -> float:
    spec = np.abs(np.fft.rfft(x)) ** 2
    f = np.fft.rfftfreq(x.size, 1 / rate)
    band = f < 5000
    return float((f[band] * spec[band]).sum() / spec[band].sum())


def room_rt60(rate: int = 22050) -> float:
    from paraudit.audio.conditions import reverb

    impulse = np.zeros(int(1.5 * rate))
    impulse[0] = 0.5
    h = reverb(impulse, rate)
    edc = np.cumsum((h**2)[::-1])[::-1]
    edc_db = 10 * np.log10(edc / edc[0] + 1e-30)
    t = np.arange(h.size) / rate
    sel = (edc_db <= -5) & (edc_db >= -35)
    return float(-60 / np.polyfit(t[sel], edc_db[sel], 1)[0])


def run(name: str, n_texts: int) -> None:
    dim = registry.get(name)
    render, qc = registry.renderer(dim), registry.qc_rule(dim)
    voices = dimension_voices(dim)[:3]
    values = [v.name for v in dim.values]
    passed: dict[str, list[bool]] = defaultdict(list)
    cent: dict[str, list[float]] = defaultdict(list)
    cond: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    t0 = time.perf_counter()
    for i, text in enumerate(starter_texts(dim)[:n_texts]):
        kw: dict[str, Any] = {"focus": text.focus} if text.focus else {}
        for voice in voices:
            clips = {v: render(text.text, v, voice=voice, seed=i, **kw) for v in values}
            base = clips[values[0]]
            passed[voice] += [qc(clips[v], v, baseline=base).passed for v in values]
            cent[voice].append(centroid_hz(np.asarray(base.samples, np.float64), base.rate))
            if voice != voices[0]:
                continue
            for v in values:
                x, rate = np.asarray(clips[v].samples, np.float64), clips[v].rate
                for change in ("telephone", "reverb"):
                    var = VARIANTS[change][0]
                    y, r = apply(var, x, rate)
                    c = check_twin(x, rate, y, r, text.text, change, var.params)
                    m = cond[change]
                    m["passed"].append(float(c.accepted))
                    for k, val in (c.condition or {}).items():
                        m[k].append(val)
                    for k in ("pitch_st", "end_level_st"):
                        val = abs(float(getattr(c, k)))
                        if np.isfinite(val):
                            m[f"|{k}|"].append(val)
                    m["|rate change|"].append(abs(1 - c.rate_ratio))
    secs = time.perf_counter() - t0
    per_voice = ", ".join(
        f"{v} {sum(passed[v])}/{len(passed[v])} (centroid {np.mean(cent[v]):.0f} Hz)"
        for v in voices
    )
    print(f"{name}: {n_texts} texts in {secs:.0f} s · QC passed per voice: {per_voice}")
    for change, m in cond.items():
        figs = " · ".join(
            f"{k} {min(vals):.2f}–{max(vals):.2f}" for k, vals in m.items() if k != "passed"
        )
        print(f"  {change}: twin QC {int(sum(m['passed']))}/{len(m['passed'])} · {figs}")


def main(argv: list[str]) -> None:
    n = 4
    if "--texts" in argv:
        i = argv.index("--texts")
        n = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2 :]
    print(f"room: Schroeder T30 of the impulse response through reverb: {room_rt60():.2f} s")
    for name in argv or NEW:
        run(name, n)


if __name__ == "__main__":
    main(sys.argv[1:])
