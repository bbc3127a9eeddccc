"""The package layering (docs/reference/layout.md): imports point down only, and nothing
imports in a circle.

Every `import` / `from … import` of a paraudit module counts wherever it is written: at the top,
inside a function (a lazy import for start-up time is still a dependency, and one placed there to
dodge a cycle is exactly what this test is for) and under `if TYPE_CHECKING:` (a type that
belongs to a higher layer is an upward dependency too). Only `importlib.import_module` by name
(the judge registry's backends and entry points, loaded on demand) is invisible here, by design:
it is how a lower layer is told about plug-ins without importing them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

# Bottom → top. A module may import its own package, its layer's other packages (without a
# cycle between packages) and any package of a lower layer; never a higher one. "paraudit" is
# the top-level package itself (its __init__: the version string).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("paraudit", "errors", "versions", "permissions", "specs", "providers", "waits", "pools")
    + ("bounds", "memo", "collector"),
    ("items", "runfolder", "audio", "dimensions"),
    ("qc", "sources", "protocols", "stats"),
    ("render", "judges", "report", "annotate", "compose", "publish"),
    ("runner", "builders"),
    ("engines",),
    ("cli",),
)
LAYER_OF = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted((SRC / "paraudit").rglob("*.py"))}


def package_of(module: str) -> str:
    """The top-level unit a module belongs to: `paraudit.qc.rules` → `qc`, `paraudit.errors` →
    `errors`, `paraudit` → `paraudit`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _known(name: str) -> str:
    """The deepest paraudit module `name` names (`paraudit.render.tts.Clip` → `…tts`)."""
    mods = modules()
    while name not in mods and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def imports_of(module: str) -> Iterator[tuple[str, int]]:
    """(imported paraudit module, line) for every import statement anywhere in `module`."""
    path = modules()[module]
    yield from imports_in(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")


def imports_in(source: str, module: str, is_pkg: bool) -> Iterator[tuple[str, int]]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_pkg else module.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                stem = ".".join([*base, *([node.module] if node.module else [])])
            else:
                stem = node.module or ""
            # `from paraudit.render import tts` imports the module tts, not the package.
            names = [
                f"{stem}.{a.name}" if f"{stem}.{a.name}" in modules() else stem for a in node.names
            ]
        else:
            continue
        for name in names:
            if name == "paraudit" or name.startswith("paraudit."):
                yield _known(name), node.lineno


@cache
def graph() -> dict[str, frozenset[str]]:
    return {
        m: frozenset(t for t, _ in imports_of(m) if t != m and t in modules()) for m in modules()
    }


def cycles(edges: dict[str, frozenset[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_every_package_has_a_layer() -> None:
    unplaced = sorted({package_of(m) for m in modules()} - set(LAYER_OF))
    assert not unplaced, f"give these a layer in LAYERS (and docs/reference/layout.md): {unplaced}"


def test_no_import_of_a_higher_layer() -> None:
    upward = []
    for m in modules():
        low = LAYER_OF.get(package_of(m))
        for target, line in imports_of(m):
            high = LAYER_OF.get(package_of(target))
            if low is not None and high is not None and high > low:
                upward.append(f"{modules()[m].relative_to(SRC)}:{line} imports {target}")
    assert not upward, "imports of a higher layer:\n" + "\n".join(upward)


def test_no_module_import_cycle() -> None:
    assert cycles(graph()) == []


def test_no_package_cycle_within_a_layer() -> None:
    packages: dict[str, set[str]] = {}
    for m, targets in graph().items():
        for t in targets:
            if package_of(t) != package_of(m):
                packages.setdefault(package_of(m), set()).add(package_of(t))
    assert cycles({p: frozenset(t) for p, t in packages.items()}) == []


# The checker itself, on made-up graphs: a test that cannot fail proves nothing.
@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_cycle_finder(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles({k: frozenset(v) for k, v in edges.items()}) == expected


def test_imports_inside_functions_and_type_checking_are_seen() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import numpy\n"
        "if TYPE_CHECKING:\n    from paraudit.cli.main import app\n"
        "def f():\n    from paraudit.render.tts import Clip\n"
        "    from . import acoustics\n"
        "    from ..errors import ParauditError\n"
    )
    found = [m for m, _ in imports_in(source, "paraudit.qc.rules", is_pkg=False)]
    assert found == [
        "paraudit.cli.main",
        "paraudit.render.tts",
        "paraudit.qc.acoustics",
        "paraudit.errors",
    ]
