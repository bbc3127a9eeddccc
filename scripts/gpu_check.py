"""GPU check of the local-model judges, for a machine with a GPU and no network.

Run from the repository root: bash scripts/gpu-check.sh OUTDIR [--rehearse]
1. Builds, on that machine, a tiny random-weight Qwen2-Audio (tests/judges/tiny_hf.py) and a
   small dataset of synthetic mono clips (two sample rates, declared as mixed formats, so
   resampling is exercised); nothing is downloaded.
2. Audits it with the `hf:` judge on CPU and on CUDA (float32, TF32 off) and compares:
   plumbing must be identical (rows, cache keys, statuses allowed, per-call prompt tokens,
   audio-conversion records, batching happened); replies must agree on at least 90 % of calls
   (random weights, different kernels: exact equality is not promised, the share is printed).
3. If `ray` is importable, audits the same plan with `hf:` on CUDA through the Ray engine (a
   local Ray cluster, one GPU per worker, the Ray Data path) and compares it with the local
   `hf:` on CUDA the same way (the same model on the same device: rows must match).
4. If `vllm` and `ray` are importable, audits the same plan with `vllm:` through the Ray
   engine (one GPU per worker) and compares it with `hf:` on CUDA the same way; otherwise it
   says plainly that this part was skipped and why.
--rehearse runs every part on CPU (no GPU needed; "cuda" becomes "cpu", no GPU per worker), to
check the script itself before spending GPU time.
Writes OUTDIR/gpu-check.json (after each part); exit status 1 if a required comparison fails.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from paraudit.items.dataset import audio_name, write_dataset
from paraudit.items.records import AuditItem, Branch, DatasetManifest, Response, Turn
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner

PLAN = PlanSpec(probes=("J", "P"), protocols=("pointwise", "pairwise"), cues=("none", "hard"))
AGREEMENT = 0.9
HF_OPTIONS = "batch_size=4&max_tokens=16"

LINES = [
    ("They moved the meeting to Friday.", ("angry", "sad"), ("That is not okay.", "What a pity.")),
    ("My sister is visiting tomorrow.", ("happy", "sad"), ("How lovely!", "That sounds hard.")),
    ("The train was late again.", ("angry", "neutral"), ("That is unfair.", "Trains do that.")),
]


def _clip(tmp: Path, freq: float, rate: int, audio: dict[str, Path]) -> str:
    t = np.arange(int(rate * 1.2)) / rate
    x = 0.3 * np.sin(2 * np.pi * freq * t) * (1 + 0.3 * np.sin(2 * np.pi * 3 * t))
    path = tmp / f"{freq:g}-{rate}.wav"
    sf.write(str(path), x, rate, subtype="PCM_16")
    rel = audio_name(path.read_bytes())
    audio[rel] = path
    return rel


def build_dataset(root: Path, tmp: Path) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    audio: dict[str, Path] = {}
    items = []
    for i, (text, emotions, replies) in enumerate(LINES):
        branches = []
        for b, (emotion, reply) in enumerate(zip(emotions, replies, strict=True)):
            rate = 22050 if (i + b) % 2 else 16000
            user = _clip(tmp, 110 + 40 * i + 70 * b, rate, audio=audio)
            said = _clip(tmp, 200 + 10 * i + 5 * b, 16000, audio=audio)
            branches.append(
                Branch(
                    emotions=(emotion,),
                    audio=(user,),
                    response=Response(text=reply, emotion="empathetic", audio=said),
                )
            )
        items.append(
            AuditItem(
                id=f"gpu-{i}",
                task="single-turn-emotions",
                context=(Turn(speaker="human", text=text),),
                branches=(branches[0], branches[1]),
            )
        )
    write_dataset(
        root,
        DatasetManifest(
            name="gpu-check", tasks=("single-turn-emotions",), mixed_audio_formats=True
        ),
        items,
        audio,
    )
    return root


def audit(ds: Path, out: Path, spec: str, engine: Any = None) -> tuple[list[dict[str, Any]], float]:
    cfg = RunConfig(ds, [spec], out, PLAN, concurrency=16)
    if engine is not None:
        cfg.judge_loader = engine.load_judge
    t0 = time.perf_counter()
    rows = asyncio.run(Runner(cfg).run())
    return rows, time.perf_counter() - t0


def compare(a: list[dict[str, Any]], b: list[dict[str, Any]], *, usage: bool) -> dict[str, Any]:
    """Plumbing that must match, and how often the replies agree."""

    def plumbing(r: dict[str, Any]) -> tuple[Any, ...]:
        u = r["usage"]
        extra = (u.get("prompt_tokens"), tuple(u.get("audio_conversion", []))) if usage else ()
        return (r["key"], r["item_id"], r["probe"], r["protocol"], r["cue"], r["order"], *extra)

    same_plumbing = len(a) == len(b) > 0 and [plumbing(r) for r in a] == [plumbing(r) for r in b]
    statuses = sorted({r["status"] for r in a + b})
    raw = sum(x["raw"] == y["raw"] for x, y in zip(a, b, strict=False)) / max(1, len(a))
    pred = sum(x["pred"] == y["pred"] for x, y in zip(a, b, strict=False)) / max(1, len(a))
    return {
        "rows": [len(a), len(b)],
        "plumbing_identical": same_plumbing,
        "statuses": statuses,
        "statuses_allowed": set(statuses) <= {"ok", "unparsed"},
        "identical_raw_share": round(raw, 3),
        "identical_pred_share": round(pred, 3),
        "passed": same_plumbing and set(statuses) <= {"ok", "unparsed"} and raw >= AGREEMENT,
    }


def save(out: Path, report: dict[str, Any]) -> None:
    (out / "gpu-check.json").write_text(json.dumps(report, indent=2) + "\n")


def main(out: Path, rehearse: bool = False) -> int:
    import torch
    import transformers

    sys.path.insert(0, str(Path.cwd()))
    from tests.judges.tiny_hf import build_qwen2_audio

    out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {
        "rehearsal_on_cpu": rehearse,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "cuda": torch.cuda.is_available(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "ray_importable": importlib.util.find_spec("ray") is not None,
        "vllm_importable": importlib.util.find_spec("vllm") is not None,
    }
    print(json.dumps(report, indent=2))
    if not report["cuda"] and not rehearse:
        print("FAILED: no CUDA device visible to torch; this check needs a GPU machine")
        return 1
    gpu = "cpu" if rehearse else "cuda"
    # Like for like: float32 on both devices, no TF32 in matrix products or convolutions.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    model = build_qwen2_audio(out / "model")
    ds = build_dataset(out / "ds", out / "clips")
    hf = f"hf:{model}?{HF_OPTIONS}&device={gpu}"
    cpu, cpu_s = audit(ds, out / "hf-cpu", f"hf:{model}?{HF_OPTIONS}")
    cuda, cuda_s = audit(ds, out / "hf-cuda", hf)
    batched = max(r["usage"]["batch"] for r in cuda) > 1
    report["hf_cpu_vs_cuda"] = {
        **compare(cpu, cuda, usage=True),
        "batched_on_cuda": batched,
        "seconds": {"cpu": round(cpu_s, 1), "cuda": round(cuda_s, 1)},
    }
    report["hf_cpu_vs_cuda"]["passed"] &= batched
    ok = report["hf_cpu_vs_cuda"]["passed"]
    print("hf: cpu vs cuda:", json.dumps(report["hf_cpu_vs_cuda"]))
    save(out, report)
    if report["ray_importable"]:
        import ray

        from paraudit.engines.ray_engine import RayEngine, RayOptions

        gpus = 0 if rehearse else 1
        ray.init(
            address="local",
            num_cpus=4,
            num_gpus=gpus,
            object_store_memory=500_000_000,
            include_dashboard=False,
            log_to_driver=False,
        )
        try:
            with RayEngine(RayOptions(num_workers=1, gpus_per_worker=gpus)) as engine:
                ray_rows, ray_s = audit(ds, out / "hf-ray", hf, engine)
            report["hf_ray_vs_hf_cuda"] = {
                **compare(cuda, ray_rows, usage=True),
                "seconds": round(ray_s, 1),
                "gpus_per_worker": gpus,
            }
            ok &= report["hf_ray_vs_hf_cuda"]["passed"]
            print("hf: on Ray (Ray Data) vs hf: local:", json.dumps(report["hf_ray_vs_hf_cuda"]))
            save(out, report)
            if report["vllm_importable"]:
                with RayEngine(RayOptions(num_workers=1, gpus_per_worker=gpus)) as engine:
                    vllm_rows, vllm_s = audit(
                        ds, out / "vllm-ray", f"vllm:{model}?max_tokens=16&temperature=0", engine
                    )
                report["vllm_ray_vs_hf_cuda"] = {
                    **compare(cuda, vllm_rows, usage=False),
                    "seconds": round(vllm_s, 1),
                }
                ok &= report["vllm_ray_vs_hf_cuda"]["passed"]
                print("vllm: on Ray vs hf: on cuda:", json.dumps(report["vllm_ray_vs_hf_cuda"]))
        finally:
            ray.shutdown()
    if not (report["ray_importable"] and report["vllm_importable"]):
        missing = [m for m in ("ray", "vllm") if not report[f"{m}_importable"]]
        report["vllm_ray_vs_hf_cuda"] = f"SKIPPED: {', '.join(missing)} not importable here"
        print(f"SKIPPED: vllm: through the Ray engine ({', '.join(missing)} not importable here)")
    report["passed"] = bool(ok)
    save(out, report)
    print("PASSED" if ok else "FAILED", "→", out / "gpu-check.json")
    return 0 if ok else 1


if __name__ == "__main__":
    args = sys.argv[1:]
    rehearse = "--rehearse" in args
    rest = [a for a in args if a != "--rehearse"]
    if len(rest) != 1:
        sys.exit("usage: bash scripts/gpu-check.sh OUTDIR [--rehearse]")
    sys.exit(main(Path(rest[0]).resolve(), rehearse))
