"""A first Ctrl-C stops a build that waits on a hung LLM call within a couple of seconds
(issue 19 item 2): the thread pool is not joined, the process leaves, finished work stays."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.builders.fakes import write_emocf
from tests.conftest import needs
from tests.judges.loopback import Silent

pytestmark = needs("openai", "openai")

SRC = Path(__file__).resolve().parents[2] / "src"


def test_first_ctrl_c_stops_a_build_waiting_on_a_hung_llm(tmp_path: Path) -> None:
    source = write_emocf(tmp_path / "e.jsonl")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    env["OPENAI_API_KEY"] = "test"
    with Silent() as srv:  # accepts the connection, never answers
        proc = subprocess.Popen(
            [sys.executable, "-m", "paraudit.cli.main", "build", "single-turn",
             "--source", str(source), "--llm", f"openai:m@{srv.url}/v1?timeout=600",
             "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "cache"),
             "--no-dnsmos", "--no-balance"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            time.sleep(8)  # started, and waiting on the first (hung) calls
            assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
            t0 = time.monotonic()
            proc.send_signal(signal.SIGINT)
            out, _ = proc.communicate(timeout=30)
            took = time.monotonic() - t0
        finally:
            if proc.poll() is None:
                proc.kill()
    text = out.decode()
    assert proc.returncode == 130, text
    assert took < 3, (took, text)
    assert "interrupted" in text and "Traceback" not in text, text
    assert not (tmp_path / "out").exists()  # nothing half-written
