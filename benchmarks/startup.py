"""Start-up and per-call overhead on the starter set's clips, against sequential baselines
measured in the same run.

Run from the repository root:
    PYTHONPATH=src:. .venv/bin/python benchmarks/startup.py [--starter PATH]
        [--audiojudge PYTHON] [--baseline-src PATH] [--profile PATH]
Prints
  - `paraudit --help` wall time (median of 5 fresh processes);
  - an audit of the starter set (82 items, probe J, pointwise, no cue, both orders: 328 calls,
    each carrying the item's real clips, about 160 kB each) by one `openai:` judge through a
    stand-in for a provider's API on loopback (`Provider`: HTTP/1.1 keep-alive, each request
    answered after 50 ms, nothing parsed): wall time of the whole `paraudit run` process
    (start-up and the dataset's checks included) per call;
  - the baseline: the very same request bodies sent one after another with the openai SDK
    from a fresh Python process (read one per line, as a loop building them would), per call,
    start-up included;
  - with --audiojudge PYTHON (an interpreter where `pip install audiojudge` succeeded; it pulls
    in google-generativeai, grpcio and protobuf, so keep it in its own virtualenv), AudioJudge
    itself: the same number of `judge_audio` calls (two of the starter's clips each, no
    concatenation, cache off) against the same server, start-up included, and the ratio
    AudioJudge / paraudit per call (the goal is ≥ 8);
  - with --baseline-src PATH (e.g. an older checkout's src), the same paraudit audit run by
    that code (into its own folder), so before and after are measured in one run;
  - with --profile PATH, one more paraudit run of the same audit (into a fresh folder) under
    cProfile, its stats written to PATH (not timed: profiling slows it).

The starter set is built here (offline; Piper renders are cached, so only a first build takes
minutes) unless --starter names a built one. paraudit's modules (and the baseline src's) are
byte-compiled first, as pip compiles an installed package's: where PYTHONDONTWRITEBYTECODE is
set (as on this machine) and the sources are a checkout, every measured process would
otherwise compile them from source (~0.1 s), which neither an installed paraudit nor the
baselines' installed packages do. Wall times stretch with the machine's load, so
compare the ratios of one run, and read the load printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

LATENCY_S = 0.05
PLAN = ["--probes", "J", "--protocols", "pointwise", "--cues", "none", "--concurrency", "32"]
BASELINE = """
import json, sys, openai
client = openai.OpenAI(base_url=sys.argv[2], api_key="EMPTY", max_retries=0)
for line in open(sys.argv[1]):
    client.chat.completions.create(**json.loads(line))
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


REPLY = json.dumps(
    {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": '{"reasoning": "", "pred": "R1"}'},
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }
).encode()
MODELS = json.dumps(
    {"object": "list", "data": [{"id": "test-model", "object": "model", "created": 0}]}
).encode()


class _Server(ThreadingHTTPServer):
    # A class attribute: the constructor calls listen() with it. Set on the instance after
    # construction (as this benchmark once did) the backlog stays at 5, and a client opening
    # dozens of connections at once has some reset or held back a second for a SYN retry.
    request_queue_size = 256
    daemon_threads = True


class Provider:
    """A stand-in for a provider's OpenAI-compatible API on loopback: HTTP/1.1 keep-alive (as
    provider APIs answer), every chat completion answered after LATENCY_S with one valid
    pointwise reply, request bodies kept as received. It parses nothing: a provider's work is
    not done on the client's machine, and parsing each body (a few hundred kB of base64) here
    would take CPU from whichever client is measured, most from the concurrent one."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, bytes]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes: with Nagle's algorithm on, a kept-open
            # connection would hold the body back until the client's delayed ACK (~40 ms).
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, body: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 - the model listing paraudit checks first
                self._send(MODELS)

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.requests.append((self.path, raw))  # list.append is atomic
                time.sleep(LATENCY_S)
                self._send(REPLY)

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def chats(self) -> list[bytes]:
        return [raw for path, raw in self.requests if path.endswith("/chat/completions")]

    def __enter__(self) -> Provider:
        self.thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.server.shutdown()
        self.server.server_close()


CPU: dict[str, float] = {}
"""CPU seconds (user + system) of each measured process, by name: on a shared machine wall
time stretches with load, CPU time much less."""


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


def byte_compile(*sources: Path) -> None:
    """Write the .pyc files of these source trees beside them (compileall writes them even
    under PYTHONDONTWRITEBYTECODE, which only stops imports from writing)."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *map(str, sources)],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def starter_set(given: Path | None, tmp: Path) -> Path:
    if given is not None:
        return given
    from paraudit.compose.starter import build_starter

    print(f"building the starter set in {tmp / 'starter'} …", flush=True)
    build_starter(tmp / "starter")
    return tmp / "starter"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--starter", type=Path, help="A built starter set (else built here).")
    ap.add_argument("--audiojudge", help="A Python interpreter with audiojudge installed.")
    ap.add_argument("--baseline-src", type=Path, help="Also time paraudit from this src.")
    ap.add_argument("--profile", type=Path, help="Also profile one paraudit run into PATH.")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp())
    ds = starter_set(args.starter, tmp)
    import paraudit  # the measured code: what PYTHONPATH (or the install) gives

    byte_compile(Path(paraudit.__file__).parent, *filter(None, [args.baseline_src]))
    env = {**os.environ, "COLUMNS": "100"}
    cli = [sys.executable, "-m", "paraudit.cli.main"]
    helps = [wall([*cli, "--help"], env) for _ in range(5)]
    print(f"paraudit --help: {statistics.median(helps):.2f} s (median of 5, load {_load()})")
    with Provider() as srv:
        run = [*cli, "run", str(ds), "--judge", f"openai:test-model@{srv.url}/v1", *PLAN]
        paraudit_s = wall([*run, "--out", str(tmp / "run")], env, "paraudit")
        before_s = None
        if args.baseline_src:
            path = os.pathsep.join([str(args.baseline_src.resolve()), env.get("PYTHONPATH", "")])
            before_env = {**env, "PYTHONPATH": path}
            n = len(srv.requests)
            before_s = wall([*run, "--out", str(tmp / "before")], before_env, "before")
            assert len(srv.requests) == 2 * n  # the same calls again
            del srv.requests[n:]
        bodies = srv.chats()
        calls = len(bodies)
        with (tmp / "bodies.jsonl").open("wb") as f:  # compact JSON: one body per line
            f.writelines(b + b"\n" for b in bodies)
        del bodies
        srv.requests.clear()
        base_s = wall(
            [sys.executable, "-c", BASELINE, str(tmp / "bodies.jsonl"), f"{srv.url}/v1"],
            env,
            "sdk",
        )
        assert len(srv.chats()) == calls
        srv.requests.clear()
        aj_s = None
        if args.audiojudge:
            clips = sorted(str(p) for p in (ds / "audio").glob("*.wav"))
            pairs = [(clips[n % len(clips)], clips[(n + 1) % len(clips)]) for n in range(calls)]
            (tmp / "pairs.json").write_text(json.dumps(pairs))
            aj_env = {**env, "OPENAI_BASE_URL": f"{srv.url}/v1"}
            aj_s = wall([args.audiojudge, "-c", AUDIOJUDGE, str(tmp / "pairs.json")], aj_env, "aj")
            assert len(srv.chats()) == calls
            srv.requests.clear()
        if args.profile:
            profiled = [sys.executable, "-m", "cProfile", "-o", str(args.profile), *run[1:]]
            wall([*profiled, "--out", str(tmp / "profiled")], env, "profile")
            srv.requests.clear()
    per_paraudit, per_base = paraudit_s / calls * 1000, base_s / calls * 1000
    print(
        f"{calls}-call audit of the starter set at {LATENCY_S * 1000:.0f} ms latency, start-up "
        f"included (load {_load()}):"
    )
    print(
        f"  paraudit run (concurrency 32): {paraudit_s:.2f} s = {per_paraudit:.1f} ms/call "
        f"(CPU {CPU['paraudit']:.2f} s)"
    )
    print(
        f"  sequential openai-SDK loop:    {base_s:.2f} s = {per_base:.1f} ms/call "
        f"(CPU {CPU['sdk']:.2f} s)"
    )
    per_before = before_s / calls * 1000 if before_s is not None else None
    if per_before is not None:
        print(
            f"  paraudit from {args.baseline_src}: {before_s:.2f} s = {per_before:.1f} ms/call "
            f"(CPU {CPU['before']:.2f} s)"
        )
    print(f"  paraudit is {per_base / per_paraudit:.1f}× faster per call than the SDK loop")
    if aj_s is not None:
        per_aj = aj_s / calls * 1000
        print(
            f"  AudioJudge (sequential):       {aj_s:.2f} s = {per_aj:.1f} ms/call "
            f"(CPU {CPU['aj']:.2f} s)"
        )
        print(f"  paraudit is {per_aj / per_paraudit:.1f}× faster per call than AudioJudge")
        if per_before is not None:
            print(f"  (the baseline src: {per_aj / per_before:.1f}× faster than AudioJudge)")
    if args.profile:
        print(f"  profile of one more paraudit run: {args.profile}")


if __name__ == "__main__":
    main()
