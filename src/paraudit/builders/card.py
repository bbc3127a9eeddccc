"""The dataset card (card.json + CARD.md) written into every built dataset folder.

It says where the items came from (sources, composition by pair or corpus), who wrote and
voiced them, what QC accepted, retried and dropped per emotion, every rejection by reason,
how balanced R⁰ and R¹ are, and — plainly — what was not checked.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from paraudit.builders.pipeline import BuildResult
from paraudit.builders.quality import balance_table, item_differences

CARD_JSON = "card.json"
CARD_MD = "CARD.md"


def card_data(r: BuildResult) -> dict[str, Any]:
    o = r.options
    kept = Counter(str(it.meta.get("group")) for it in r.items)
    groups = sorted(set(r.available) | set(r.tried) | set(kept))
    composition = {
        g: {
            "available": r.available.get(g, 0),
            "tried": r.tried.get(g, 0),
            "composed": r.composed.get(g, 0),
            "kept": kept.get(g, 0),
        }
        for g in groups
    }
    rej = Counter((x["stage"], x["code"]) for x in r.rejections)
    diffs = [item_differences(it.meta) for it in r.items]
    lexical_rated = sum(1 for it in r.items if it.meta.get("balance", {}).get("lexical"))
    not_checked = [
        "No human listened to these items: the paper's manual check and human validation "
        "(Appendix E) are still to do (paraudit's annotation app).",
        "Whether the words alone give the answer away is not measured here; audit with the "
        "builtin:transcript judge and the T probe.",
    ]
    if "no SER" in r.tts.get("qc", ""):
        not_checked.append(
            "No speech-emotion-recognition model scored the clips: acceptance is the acoustic "
            "rule named under QC, not the paper's SER thresholds."
        )
    if not r.dnsmos_note.startswith("DNSMOS"):
        not_checked.append(f"Audio quality (DNSMOS): {r.dnsmos_note}.")
    if not o.rate_balance:
        not_checked.append("Lexical balance was not rated (--no-balance).")
    elif lexical_rated < len(r.items):
        not_checked.append(
            f"Lexical balance: {len(r.items) - lexical_rated} item(s) got no usable rating."
        )
    many = [
        it.id
        for it in r.items
        if any(
            len({e for t, e in zip(it.context, b.emotions, strict=True) if t.speaker == "human"})
            > 2
            for b in it.branches
        )
    ]
    if many:
        not_checked.append(
            f"{len(many)} item(s) have more than two distinct human emotions in a branch: they "
            "get no P/O/S instances (only J and T), so no (P,O,J) state."
        )
    if o.audio == "source":
        not_checked.append(
            "Source recordings are used as they are (no QC): the paper notes human actors' "
            "emotions are often ambiguous."
        )
    return {
        "dataset": o.out.name,
        "task": o.task,
        "items": len(r.items),
        "source": {"file": o.source.name, "preset": o.preset_name, "map": o.mapping.describe()},
        "seed": o.seed,
        "requested_pairs": o.n,
        "source_limit": o.limit,
        "audio": o.audio,
        "composition": composition,
        "composition_by": "pair" if o.preset_name == "emocf" else "source corpus",
        "generator": r.llm,
        "tts": r.tts,
        "qc": {
            "rule": r.tts.get("qc", ""),
            "per_emotion": dict(sorted(r.qc.items())),
            "items_dropped_by": dict(sorted(r.items_dropped_by.items())),
            "dropped_turns": r.dropped_turns,
            "misses": [m.as_dict() | {"line": m.line()} for m in r.qc_misses],
        },
        "rejections": {
            "counts": [{"stage": s, "code": c, "count": n} for (s, c), n in sorted(rej.items())],
            "log": r.rejections,
        },
        "branch0": dict(Counter(str(it.meta.get("branch0")) for it in r.items)),
        "balance": {
            "note": "mean |R0 - R1| over items; lexical factors 1-5 by the generator LLM, "
            "length in words, DNSMOS 1-5",
            "dnsmos": r.dnsmos_note,
            "table": balance_table(diffs),
        },
        "timings_s": r.timings,
        "not_checked": not_checked,
    }


def _md_table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return out + [""]


def _cell(v: Any) -> str:
    if isinstance(v, dict):
        return "; ".join(f"{k}: {n}" for k, n in v.items())
    return str(v)


def card_markdown(d: dict[str, Any]) -> str:
    g, t = d["generator"], d["tts"]
    lines = [
        f"# Dataset card: {d['dataset']}",
        "",
        f"- task: `{d['task']}` · items: **{d['items']}** · seed {d['seed']} · audio: {d['audio']}",
        f"- source: `{d['source']['file']}` (preset {d['source']['preset']}"
        + (f", map {d['source']['map']}" if d["source"]["map"] else "")
        + ")",
        f"- generator: `{g.get('spec')}` (family {g.get('family')}; {g.get('calls', 0)} calls, "
        f"{g.get('cache_hits', 0)} from cache)",
        f"- TTS: `{t.get('label')}` — {t.get('rendering')}",
        f"- branch 0 = generator side A / B: {d['branch0']}",
        "",
        f"## Composition by {d['composition_by']}",
        "",
    ]
    lines += _md_table(
        ["group", "available", "tried", "composed", "kept"],
        [
            [k, v["available"], v["tried"], v["composed"], v["kept"]]
            for k, v in d["composition"].items()
        ],
    )
    lines += ["## Audio QC", "", d["qc"]["rule"], ""]
    per = d["qc"]["per_emotion"]
    cols = list(dict.fromkeys(k for v in per.values() for k in v))
    lines += _md_table(
        ["emotion", *cols],
        [[k, *(_cell(v.get(c, "")) for c in cols)] for k, v in per.items()],
    )
    dropped = d["qc"]["items_dropped_by"]
    if dropped:
        lines += [
            "Items dropped by QC, by the turn that failed: "
            + ", ".join(f"{k} {n}" for k, n in dropped.items()),
            "",
        ]
    misses = d["qc"].get("misses", [])
    if misses:
        lines += [f"Why QC dropped turns ({d['qc']['dropped_turns']} turns), by rule:", ""]
        lines += [f"- {m['line']}" for m in misses]
        lines += [""]
    lines += ["## Rejections", ""]
    counts = d["rejections"]["counts"]
    lines += (
        _md_table(
            ["stage", "reason", "count"], [[c["stage"], c["code"], c["count"]] for c in counts]
        )
        if counts
        else ["none", ""]
    )
    if d["rejections"]["log"]:
        lines += ["<details><summary>every rejection</summary>", ""]
        lines += [
            f"- `{x['source_id']}` {x['stage']}/{x['code']}: {x['reason']}"
            for x in d["rejections"]["log"]
        ]
        lines += ["", "</details>", ""]
    lines += ["## Response balance |R⁰ − R¹|", "", d["balance"]["note"] + ".", ""]
    table = d["balance"]["table"]
    lines += (
        _md_table(
            ["factor", "items", "mean abs diff", "sd", "mean signed diff"],
            [
                [f, v["n"], v["mean_abs_diff"], v["sd_abs_diff"], v["mean_signed_diff"]]
                for f, v in table.items()
            ],
        )
        if table
        else ["no balance figures", ""]
    )
    lines += ["## Not checked", ""] + [f"- {x}" for x in d["not_checked"]] + [""]
    tm = d["timings_s"]
    lines += [
        "## Time",
        "",
        ", ".join(f"{k} {v}" for k, v in tm.items()),
        "",
    ]
    return "\n".join(lines)


def write_card(root: Path, r: BuildResult) -> dict[str, Any]:
    d = card_data(r)
    for name, text in (
        (CARD_JSON, json.dumps(d, indent=2, ensure_ascii=False) + "\n"),
        (CARD_MD, card_markdown(d)),
    ):
        tmp = root / f".{name}.tmp"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, root / name)
    return d
