"""`paraudit judges` tells installed backends from missing ones, and says what to install only
for the missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.judges.registry import list_backends

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _blocks(output: str) -> dict[str, list[str]]:
    """Backend name → the lines of its block (its heading line first)."""
    names = {row[0] for row in list_backends()}
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in output.splitlines():
        head = line.split("  ", 1)[0]
        if head in names and not line.startswith(" "):
            current = blocks.setdefault(head, [])
        elif not line.startswith(" "):
            current = None
        if current is not None:
            current.append(line)
    return blocks


def _judges_without(*hidden: str) -> str:
    """`paraudit judges` in a fresh interpreter where `hidden` cannot be imported, as on a
    machine without that extra (sys.modules[name] = None is how Python marks a module absent)."""
    code = (
        "import sys\n"
        + "".join(f"sys.modules[{m!r}] = None\n" for m in hidden)
        + "from paraudit.cli.main import app\napp(['judges'])\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    env["COLUMNS"] = "80"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_each_backend_is_installed_or_missing_and_only_the_missing_say_what_to_install() -> None:
    r = CliRunner().invoke(app, ["judges"])
    assert r.exit_code == 0, r.output
    blocks = _blocks(r.output)
    rows = list_backends()
    assert set(blocks) == {row[0] for row in rows}
    for name, _, ok, need, _ in rows:
        head, body = blocks[name][0], "\n".join(blocks[name][1:])
        assert ("  installed  " in head) == ok and ("  missing  " in head) == (not ok), head
        if ok:
            assert "needs:" not in body, (name, body)
        elif need:
            assert f"needs: {need.split(' && ')[0]}" in body, (name, body)
    have = ", ".join(row[0] for row in rows if row[2])
    assert f"installed: {have} · missing: " in r.output
    # DeSTA is never on PyPI, so some backend is always missing here: the test cannot pass
    # vacuously on a machine that has every extra.
    assert "desta  missing" in r.output


def test_a_backend_whose_extra_is_absent_is_missing_with_its_install_command() -> None:
    out = _judges_without("openai")
    blocks = _blocks(out)
    assert "  missing  " in blocks["openai"][0], out
    assert "  needs: pip install 'paraudit[openai]'" in blocks["openai"], out
    # ... while a backend that is there says nothing about installing.
    assert "  installed  " in blocks["builtin"][0]
    assert not any("needs:" in line for line in blocks["builtin"]), out
