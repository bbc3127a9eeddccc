"""scripts/test.sh collects the Ray tests by file (not all 2,000 tests to keep 34): its `find`
must name exactly the files conftest.py marks ray_serial, or a Ray test would run in neither
pass (the parallel pass deselects it) or start clusters beside the workers."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.conftest import starts_ray

ROOT = Path(__file__).resolve().parents[1]


def test_the_ray_pass_collects_exactly_the_files_marked_ray_serial() -> None:
    script = (ROOT / "scripts" / "test.sh").read_text()
    find = re.search(r"< <\((find tests [^)]*)\)", script)
    assert find, "scripts/test.sh no longer lists the Ray files with find"
    listed = subprocess.run(
        ["bash", "-c", find.group(1)], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    # Both the pass beside the workers and its rerun alone collect these files.
    assert script.count('tests/engines "${ray_files[@]}"') == 2
    engines = (ROOT / "tests" / "engines").rglob("test_*.py")
    named = {*listed, *(str(p.relative_to(ROOT)) for p in engines)}
    every = {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")}
    assert {m for m in every if starts_ray(m)} == named
    assert listed, "no Ray test file outside tests/engines: the rule changed?"
