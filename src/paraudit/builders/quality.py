"""Response balance (paper §5.3, Table 4): do R⁰ and R¹ differ in anything but fit?

Lexical factors are rated by an LLM (1–5 each) plus length in words, counted; audio quality is
DNSMOS (speechmos, ONNX models inside its wheel, 16 kHz input). The card shows mean |R⁰ − R¹|
per factor. Because branch 0 is a seeded coin, the signed mean R⁰ − R¹ should sit near zero
too; a large signed value would mean a factor tracks the coin, which cannot happen by design,
so only |R⁰ − R¹| (how unlike the two candidates are) is the finding.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from statistics import mean, pstdev
from typing import Any

import soundfile as sf

from paraudit.compose.llm import ComposerLLM
from paraudit.compose.prompts import BALANCE, LEXICAL_FACTORS
from paraudit.qc import dnsmos as qc_dnsmos

DNSMOS_KEYS = ("ovrl", "sig", "bak", "p808")


def rate_responses(llm: ComposerLLM, r0: str, r1: str) -> dict[str, Any] | None:
    """{"R0": {factor: score}, "R1": {...}} from the rater, or None if its answer is unusable."""
    reply = llm.ask(BALANCE.render(factors=", ".join(LEXICAL_FACTORS), r1=r0, r2=r1))
    text = reply.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.DOTALL)
    try:
        data = json.loads(fenced.group(1) if fenced else text)
    except (json.JSONDecodeError, RecursionError):
        return None
    out: dict[str, Any] = {}
    for name, key in (("R0", "reply1"), ("R1", "reply2")):
        scores = data.get(key) if isinstance(data, dict) else None
        if not isinstance(scores, dict):
            return None
        row: dict[str, float] = {}
        for f in LEXICAL_FACTORS:
            v = scores.get(f)
            if not isinstance(v, int | float) or not 1 <= v <= 5:
                return None
            row[f] = float(v)
        out[name] = row
    return out


def length_words(text: str) -> int:
    return len(text.split())


def dnsmos_available() -> bool:
    try:
        import speechmos  # noqa: F401
    except Exception:  # speechmos imports librosa and onnxruntime at import time
        return False
    return True


def dnsmos(path: Path) -> dict[str, float]:
    """DNSMOS of one clip (paraudit.qc.dnsmos: resampled to 16 kHz in memory for the model
    only; the dataset's audio is not changed)."""
    data, rate = sf.read(str(path), dtype="float64", always_2d=True)
    return qc_dnsmos.dnsmos(data.mean(axis=1), int(rate)).as_dict()


def balance_table(rows: list[dict[str, float]]) -> dict[str, dict[str, float | int]]:
    """rows: one {factor: R0 − R1} per item → per factor n, mean |diff|, sd, signed mean."""
    table: dict[str, dict[str, float | int]] = {}
    factors = sorted({k for r in rows for k in r})
    for f in factors:
        diffs = [r[f] for r in rows if f in r]
        if not diffs:
            continue
        absd = [abs(d) for d in diffs]
        table[f] = {
            "n": len(diffs),
            "mean_abs_diff": round(mean(absd), 4),
            "sd_abs_diff": round(pstdev(absd), 4),
            "mean_signed_diff": round(mean(diffs), 4),
        }
    return table


def item_differences(meta: dict[str, Any]) -> dict[str, float]:
    """R⁰ − R¹ for every factor an item has a measurement of."""
    out: dict[str, float] = {}
    lex = meta.get("balance", {}).get("lexical")
    if lex:
        for f in LEXICAL_FACTORS:
            out[f] = lex["R0"][f] - lex["R1"][f]
    words = meta.get("balance", {}).get("length_words")
    if words:
        out["length (words)"] = float(words[0] - words[1])
    mos = meta.get("balance", {}).get("dnsmos")
    if mos:
        for k in DNSMOS_KEYS:
            if k in mos["R0"] and k in mos["R1"]:
                out[f"DNSMOS {k.upper()}"] = mos["R0"][k] - mos["R1"][k]
    return out
