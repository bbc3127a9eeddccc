"""The documentation site cannot drift from the code or the README: the CLI reference is what
scripts/gen_cli_docs.py writes from the typer app, the pages repeat the README's first commands
and its "Scope and honesty" word for word, and every picture a page shows exists. (A broken
link or anchor fails `mkdocs build --strict`, which scripts/test.sh runs.)"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli_docs", ROOT / "scripts/gen_cli_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def test_the_cli_reference_is_the_one_the_typer_app_generates() -> None:
    page = (DOCS / "reference/cli.md").read_text(encoding="utf-8")
    assert page == _generator().render(), (
        "docs/reference/cli.md is out of date: run PYTHONPATH=src python scripts/gen_cli_docs.py"
    )


def test_the_cli_reference_lists_every_command_and_option() -> None:
    from paraudit.cli.main import COMMANDS, load_command

    page = (DOCS / "reference/cli.md").read_text(encoding="utf-8")
    for name in COMMANDS:
        assert f"\n## paraudit {name}\n" in page, name
        for param in load_command(name).params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("--") and not param.hidden:
                    assert f"`{opt}" in page, (name, opt)


def test_getting_started_repeats_the_readmes_two_commands_verbatim() -> None:
    blocks = re.findall(r"```bash\n.*?```", _section(README, "Two commands"), flags=re.S)
    assert len(blocks) == 2
    page = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    for block in blocks:
        assert block in page, block


def test_the_scope_page_is_the_readmes_scope_and_honesty() -> None:
    readme = _section(README, "Scope and honesty").split("\n", 2)[2].strip()
    page = (DOCS / "scope.md").read_text(encoding="utf-8").split("\n", 2)[2].strip()
    assert page == readme


def test_every_picture_a_page_shows_exists() -> None:
    pages = [ROOT / "README.md", *DOCS.rglob("*.md")]
    pattern = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")
    seen = 0
    for page in pages:
        for m in pattern.finditer(page.read_text(encoding="utf-8")):
            target = (page.parent / (m.group(1) or m.group(2))).resolve()
            assert target.is_file(), f"{page.relative_to(ROOT)} shows {target} (missing)"
            seen += 1
    assert seen >= 8, seen  # the report and listening-app pictures, in the README and the docs
