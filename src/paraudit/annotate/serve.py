"""Serving the app with uvicorn: in the foreground (the CLI) or in a background thread
(simulations and tests)."""

from __future__ import annotations

import errno
import ipaddress
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from paraudit.errors import MissingExtraError, ParauditError


def _uvicorn() -> Any:
    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError as e:
        raise MissingExtraError("the listening-test app", "annotate", e.name or "fastapi") from None
    return uvicorn


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _server(store: Path, host: str, port: int) -> Any:
    uvicorn = _uvicorn()
    from paraudit.annotate.app import create_app

    config = uvicorn.Config(
        create_app(store),
        host=host,
        port=port,
        log_level="warning",
        access_log=False,  # access logs would print every annotator's secret URL
        server_header=False,
        # Ctrl-C or SIGTERM: a browser's open keep-alive connection (or a hung client) must
        # not hold the shutdown; every answer is committed as it arrives.
        timeout_graceful_shutdown=1,
    )
    return uvicorn.Server(config)


def check_address(host: str, port: int) -> None:
    """Refuse a busy or unusable address with one line (uvicorn reports a busy port only as a
    log line and an exit); called before any link is printed."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as e:
            # Only a busy or privileged port is fixed by another --port; an unknown name or an
            # address this machine does not have is the --host's fault.
            port_fault = e.errno in (errno.EADDRINUSE, errno.EACCES) and not isinstance(
                e, socket.gaierror
            )
            fix = (
                "pass another --port"
                if port_fault
                else "pass an address of this machine as --host (127.0.0.1, or 0.0.0.0 for all)"
            )
            raise ParauditError(f"cannot listen on {host}:{port} ({e.strerror}); {fix}") from None


def serve(store: Path, host: str, port: int) -> None:
    """Serve in the foreground until Ctrl-C."""
    check_address(host, port)
    _server(store, host, port).run()


@contextmanager
def background(store: Path, host: str = "127.0.0.1", port: int | None = None) -> Iterator[str]:
    """Serve in a thread; yields the base URL and stops the server on exit."""
    server = _server(store, host, port or free_port(host))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise ParauditError(f"the annotation server did not start on {host}")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
