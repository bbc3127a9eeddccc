"""Worker pools and the parent's signals: a worker never runs the parent's Ctrl-C/SIGTERM
handler (which the CLI makes raise KeyboardInterrupt), neither while it starts nor while it
works; it ignores Ctrl-C and ends quietly on SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

from paraudit.pools import interruptible_processes


def _dispositions() -> tuple[object, object, set[int]]:
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM), set(mask)


def _raise(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="needs POSIX signal masks")
def test_a_worker_ignores_ctrl_c_ends_on_sigterm_and_blocks_neither() -> None:
    old = signal.signal(signal.SIGTERM, _raise)  # as cli.common.stoppable does
    try:
        with interruptible_processes(2) as pool:
            seen = [pool.submit(_dispositions).result(timeout=30) for _ in range(4)]
        parent_mask = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    finally:
        signal.signal(signal.SIGTERM, old)
    for sigint, sigterm, mask in seen:
        assert sigint == signal.SIG_IGN and sigterm == signal.SIG_DFL
        assert not mask & {signal.SIGINT, signal.SIGTERM}, mask
    assert signal.SIGINT not in parent_mask and signal.SIGTERM not in parent_mask


# The parent installs raising handlers (as the CLI does), starts workers and at once sends Ctrl-C
# to its whole process group (as a terminal does) while the workers are still starting, then
# terminates them while they run Python (stop_workers' SIGTERM). Before the workers were forked
# with both signals blocked and given SIGTERM's default, either could print "Process
# ForkProcess-N: Traceback ... KeyboardInterrupt".
_SCRIPT = textwrap.dedent(
    """
    import os, signal, time
    from paraudit.pools import interruptible_processes

    def _raise(signum, frame):
        raise KeyboardInterrupt

    def busy(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            pass  # Python bytecode: a handler would run here at once
        return seconds

    signal.signal(signal.SIGINT, _raise)
    signal.signal(signal.SIGTERM, _raise)
    stopped = 0
    for _ in range(6):
        try:
            with interruptible_processes(2) as pool:
                futures = [pool.submit(busy, 5.0) for _ in range(4)]
                os.killpg(0, signal.SIGINT)
                time.sleep(0.5)
        except KeyboardInterrupt:
            stopped += 1
    print("stopped", stopped)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux process groups")
def test_a_group_ctrl_c_and_a_sigterm_reach_no_worker_s_python() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
        start_new_session=True,  # the group Ctrl-C stays in the script's own group
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "stopped 6", (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
