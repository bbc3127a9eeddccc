"""Start-up and per-call overhead, against a sequential baseline measured in the same run.

Run from the repository root: PYTHONPATH=src:. .venv/bin/python benchmarks/startup.py
Prints
  - `paraudit --help` wall time (median of 5 fresh processes);
  - a 280-call audit of the two-item test dataset (probes J,P,O, all cues, both protocols)
    by two `openai:` judges through a loopback OpenAI-compatible HTTP server that answers
    each request after 50 ms: wall time of the whole `paraudit run` process (start-up
    included) per call;
  - the baseline: the very same request bodies sent one after another with the openai SDK
    from a fresh Python process (what AudioJudge does: a sequential SDK loop), per call,
    start-up included; and the ratio baseline / paraudit (the goal is ≥ 5);
  - with --audiojudge PYTHON (an interpreter where `pip install audiojudge` succeeded; it pulls
    in google-generativeai, grpcio and protobuf, so keep it in its own virtualenv), AudioJudge
    itself: the same number of `judge_audio` calls (two clips each, no concatenation, cache
    off) against the same server, start-up included.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.conftest import make_dataset
from tests.judges.loopback import Loopback

LATENCY_S = 0.05
BASELINE = """
import json, sys, openai
client = openai.OpenAI(base_url=sys.argv[2], api_key="EMPTY", max_retries=0)
for body in json.load(open(sys.argv[1])):
    client.chat.completions.create(**body)
"""


AUDIOJUDGE = """
import json, sys, tempfile
from audiojudge import AudioJudge
work = tempfile.mkdtemp()
judge = AudioJudge(openai_api_key="EMPTY", disable_cache=True, temp_dir=work + "/t",
                   signal_folder=work + "/s")
for a, b in json.load(open(sys.argv[1])):
    judge.judge_audio(a, b, system_prompt="Which response fits the speaker's emotion?",
                      model="gpt-4o-audio-preview", concatenation_method="no_concatenation")
"""


CPU: dict[str, float] = {}
"""CPU seconds (user + system) of each measured process, by its first argument after -c/-m:
on a shared machine wall time stretches with load, CPU time much less."""


def wall(cmd: list[str], env: dict[str, str], name: str = "") -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    took = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[name] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def main(audiojudge_python: str | None = None) -> None:
    tmp = Path(tempfile.mkdtemp())
    ds = tmp / "ds"
    make_dataset(ds, tmp / "src", positional=True)
    env = {**os.environ, "COLUMNS": "100"}
    cli = [sys.executable, "-m", "paraudit.cli.main"]
    helps = [wall([*cli, "--help"], env) for _ in range(5)]
    print(f"paraudit --help: {statistics.median(helps):.2f} s (median of 5, load {_load()})")
    with Loopback() as srv:
        srv.delay = LATENCY_S
        judges = [f"openai:test-model@{srv.url}/v1?seed={s}" for s in (1, 2)]
        run = [*cli, "run", str(ds), "--out", str(tmp / "run"), "--probes", "J,P,O"]
        for j in judges:
            run += ["--judge", j]
        paraudit_s = wall([*run, "--concurrency", "32"], env, "paraudit")
        bodies = [r["body"] for r in srv.requests if r["path"].endswith("/chat/completions")]
        calls = len(bodies)
        (tmp / "bodies.json").write_text(json.dumps(bodies))
        srv.requests.clear()
        base_s = wall(
            [sys.executable, "-c", BASELINE, str(tmp / "bodies.json"), f"{srv.url}/v1"],
            env,
            "sdk",
        )
        assert len(srv.requests) == calls
        aj_s = None
        if audiojudge_python:
            clips = sorted(str(p) for p in (ds / "audio").glob("*.wav"))
            pairs = [(clips[n % len(clips)], clips[(n + 1) % len(clips)]) for n in range(calls)]
            (tmp / "pairs.json").write_text(json.dumps(pairs))
            srv.requests.clear()
            aj_env = {**env, "OPENAI_BASE_URL": f"{srv.url}/v1"}
            aj_s = wall(
                [audiojudge_python, "-c", AUDIOJUDGE, str(tmp / "pairs.json")], aj_env, "aj"
            )
            assert len(srv.requests) == calls
    per_paraudit, per_base = paraudit_s / calls * 1000, base_s / calls * 1000
    print(
        f"{calls}-call audit at {LATENCY_S * 1000:.0f} ms latency, start-up included "
        f"(load {_load()}):"
    )
    print(
        f"  paraudit run (concurrency 32): {paraudit_s:.2f} s = {per_paraudit:.1f} ms/call "
        f"(CPU {CPU['paraudit']:.2f} s)"
    )
    print(
        f"  sequential openai-SDK loop:    {base_s:.2f} s = {per_base:.1f} ms/call "
        f"(CPU {CPU['sdk']:.2f} s)"
    )
    print(f"  paraudit is {per_base / per_paraudit:.1f}× faster per call than the SDK loop")
    if aj_s is not None:
        per_aj = aj_s / calls * 1000
        print(
            f"  AudioJudge (sequential):       {aj_s:.2f} s = {per_aj:.1f} ms/call "
            f"(CPU {CPU['aj']:.2f} s)"
        )
        print(f"  paraudit is {per_aj / per_paraudit:.1f}× faster per call than AudioJudge")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[args.index("--audiojudge") + 1] if "--audiojudge" in args else None)
