"""The README's first commands work as printed: after either script, the README's next line puts
`paraudit` on the PATH in a fresh shell; the example output folders the README's and the
documentation's commands write are git-ignored, so a newcomer who runs them in the clone sees no
stray changes."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# The documentation site's pages (docs/), where the README's sections moved.
DOCS = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").rglob("*.md"))]
SCRIPT = re.compile(r"^bash scripts/(demo|test)\.sh\b")


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end > 0 else None]


def _blocks(text: str) -> list[list[str]]:
    """The command lines of each ```bash block (comments after '#' dropped)."""
    return [
        [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]
        for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    ]


def test_each_script_in_the_first_commands_is_followed_by_the_line_that_puts_paraudit_on_path(
    tmp_path: Path,
) -> None:
    if sys.prefix == sys.base_prefix:
        pytest.skip("the tests are not running in a virtual environment to stand for .venv")
    blocks = [b for b in _blocks(_section("Two commands")) if any(SCRIPT.match(c) for c in b)]
    assert len(blocks) == 2, blocks  # the demo and the tests
    for block in blocks:
        # Both scripts install into the repository's .venv: that is what the next line relies on.
        script = next(c for c in block if SCRIPT.match(c)).split()[1]
        assert "python3 -m venv .venv" in (ROOT / script).read_text()
        after = block[block.index(next(c for c in block if SCRIPT.match(c))) + 1 :]
        assert after, f"nothing after {block[0]!r} says how paraudit gets on the PATH"
        # The rest of the block, verbatim, in a fresh shell (no profile, a bare PATH) in a
        # clone-like folder whose .venv is the environment these tests run in.
        (tmp_path / ".venv").unlink(missing_ok=True)
        (tmp_path / ".venv").symlink_to(sys.prefix)
        shell = "\n".join([*after, "command -v paraudit", "paraudit --help >/dev/null"])
        r = subprocess.run(
            ["bash", "--noprofile", "--norc", "-e", "-c", shell],
            cwd=tmp_path,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode == 0, (block, r.stdout, r.stderr)
        found = Path(r.stdout.strip().splitlines()[-1])
        assert found.name == "paraudit" and found.parent.resolve() == Path(sys.prefix, "bin")


def test_the_example_output_folders_of_the_readme_and_the_docs_are_git_ignored() -> None:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    outs = set()
    for block in (b for text in (README, *DOCS) for b in _blocks(text)):
        for command in block:
            for m in re.finditer(r"--(?:out|report) ([a-z][\w.-]*)(/[\w./-]*)?", command):
                outs.add(m.group(1))  # the top folder (or file) it writes in the clone
    assert {"runs", "report", "starter-inv", "demo-out"} <= outs, outs
    for name in sorted(outs):
        r = subprocess.run([git, "check-ignore", "-q", f"{name}/x"], cwd=ROOT)
        r_file = subprocess.run([git, "check-ignore", "-q", name], cwd=ROOT)
        assert 0 in (r.returncode, r_file.returncode), f"{name} is not git-ignored"
    # ... and the source folders of the same names are not.
    r = subprocess.run([git, "check-ignore", "-q", "src/paraudit/report/build.py"], cwd=ROOT)
    assert r.returncode == 1
