"""The dimension registry: built-ins by name, third parties by a real entry point (a dist-info
folder made here and put on sys.path), and every bad input as one line with exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.dimensions import registry
from paraudit.dimensions.base import Dimension
from paraudit.dimensions.emotion import EMOTION
from paraudit.dimensions.registry import DimensionError
from tests.dimensions.plugins import install_plugin as install

PLUGIN = """
from paraudit.dimensions.base import Dimension, Questions, Value, Words

LAUGHTER = Dimension(
    name="laughter",
    summary="a laugh in the voice or none",
    values=(Value("plain", "spoken plainly"), Value("laughing", "spoken through a laugh")),
    item_kinds=("single-turn",),
    words=Words(
        noun="laughter",
        attribute="whether the user laughs",
        does_not_hear="does not hear the laugh",
        value_phrase="when the user is {value}",
        listen_question="Does the speaker laugh?",
    ),
    questions=Questions(perception="Is clip C {options}?", annotation="laughter: {value}"),
    renderer="{renderer}",
    qc="laughter_dim:check",
    needs=({needs}),
)

NOT_A_DIMENSION = 42


def check(clip, value, *, baseline):
    raise NotImplementedError


def render(text, value, *, voice=None, seed=0):
    raise NotImplementedError
"""


def install_plugin(
    tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
    entries: str,
    *,
    renderer: str = "laughter_dim:render",
    needs: str = "",
    module: str | None = None,
) -> None:
    source = module if module is not None else PLUGIN
    source = source.replace("{renderer}", renderer).replace("{needs}", needs)
    install(tmp, monkeypatch, "laughter_dim", source, entries)


def test_builtin_emotion_resolves_lazily_by_name() -> None:
    assert registry.names()[0] == "emotion"
    assert registry.get("emotion") is EMOTION
    assert registry.BUILTIN["emotion"] == "paraudit.dimensions.emotion:EMOTION"


def test_unknown_name_suggests_the_closest(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(DimensionError) as e:
        registry.get("emotoin")
    assert "unknown dimension 'emotoin'" in str(e.value)
    assert "did you mean 'emotion'?" in str(e.value)
    assert e.value.exit_code == 2  # type: ignore[attr-defined]
    with pytest.raises(DimensionError, match="`paraudit dimensions` lists them"):
        registry.get("zzzzzz")


def test_third_party_dimension_through_a_real_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(tmp_path, monkeypatch, "laughter = laughter_dim:LAUGHTER\n")
    assert "laughter" in registry.names()
    dim = registry.get("laughter")
    assert isinstance(dim, Dimension) and dim.names == ("plain", "laughing")
    assert dim.task_for("single-turn") == "single-turn-laughter"
    assert callable(registry.renderer(dim)) and callable(registry.qc_rule(dim))
    with pytest.raises(DimensionError, match="did you mean 'laughter'"):
        registry.get("laughtr")


def test_plugin_that_fails_to_import_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path, monkeypatch, "laughter = laughter_dim:LAUGHTER\n", module="import no_such_lib\n"
    )
    with pytest.raises(DimensionError) as e:
        registry.get("laughter")
    msg = str(e.value)
    assert "\n" not in msg
    assert "dimension 'laughter' failed to import" in msg
    assert "No module named 'no_such_lib'" in msg and "laughter-dim 1.0" in msg
    assert "reinstall or fix that package, or uninstall it" in msg


def test_entry_point_to_something_else_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path,
        monkeypatch,
        "laughter = laughter_dim:NOT_A_DIMENSION\nchuckle = laughter_dim:LAUGHTER\n",
    )
    with pytest.raises(DimensionError, match="is a int, not a paraudit.dimensions.base"):
        registry.get("laughter")
    with pytest.raises(DimensionError, match="calls itself 'laughter'"):
        registry.get("chuckle")


def test_renderer_not_installed_names_module_and_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path,
        monkeypatch,
        "laughter = laughter_dim:LAUGHTER\n",
        renderer="laughter_render_engine:render",
    )
    dim = registry.get("laughter")
    assert not registry.target_present(dim.renderer)
    with pytest.raises(DimensionError) as e:
        registry.renderer(dim)
    assert str(e.value) == (
        "dimension 'laughter': its renderer module 'laughter_render_engine' is not installed "
        "(no module named 'laughter_render_engine'); install the package that provides it"
    )


def test_missing_need_refuses_before_importing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path,
        monkeypatch,
        "laughter = laughter_dim:LAUGHTER\n",
        needs='"exe:no-such-synth-xyz", "no_such_wheel_xyz"',
    )
    dim = registry.get("laughter")
    assert [(n.name, n.installed) for n in registry.needs(dim)] == [
        ("exe:no-such-synth-xyz", False),
        ("no_such_wheel_xyz", False),
    ]
    with pytest.raises(DimensionError) as e:
        registry.renderer(dim)
    assert "needs exe:no-such-synth-xyz, no_such_wheel_xyz, which is not installed" in str(e.value)
    assert "pip install no_such_wheel_xyz" in str(e.value)


def test_needs_of_emotion_are_checked_for_real() -> None:
    (tts,) = registry.needs(EMOTION)
    assert tts.name == "tts" and tts.installed  # the dev install has paraudit[tts]
    assert registry.check_need("exe:sh").installed
    assert not registry.check_need("exe:definitely-not-a-program-xyz").installed


runner = CliRunner()


def test_cli_lists_emotion_with_values_kinds_renderer_and_needs() -> None:
    r = runner.invoke(app, ["dimensions"])
    assert r.exit_code == 0, r.output
    out = r.output
    assert "emotion  ready" in out
    assert "values: neutral, happy, sad, angry, surprised, frazzled, hesitant" in out
    assert "single-turn (single-turn-emotions)" in out
    assert "renderer: paraudit.render.emotion:render" in out
    assert "qc: paraudit.qc.emotion:check" in out
    assert "needs tts: installed" in out


def test_cli_shows_a_plugin_and_its_missing_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path,
        monkeypatch,
        "laughter = laughter_dim:LAUGHTER\n",
        renderer="laughter_render_engine:render",
        needs='"exe:no-such-synth-xyz",',
    )
    r = runner.invoke(app, ["dimensions", "laughter"])
    assert r.exit_code == 0, r.output
    assert "laughter  needs installing" in r.output
    assert "renderer: laughter_render_engine:render  (module not found)" in r.output
    assert "needs exe:no-such-synth-xyz: missing: install the program 'no-such-synth-xyz'" in (
        r.output
    )


def test_cli_bad_input_exits_2_with_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = runner.invoke(app, ["dimensions", "emotoin"])
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [
        "error: unknown dimension 'emotoin' (installed: emotion, urgency, hesitation, whisper, "
        "emphasis, sarcasm); did you mean 'emotion'?"
    ]
    install_plugin(
        tmp_path, monkeypatch, "laughter = laughter_dim:LAUGHTER\n", module="raise OSError('x')\n"
    )
    r = runner.invoke(app, ["dimensions"])
    assert r.exit_code == 2
    assert "emotion  ready" in r.output  # what loads is still listed
    errors = [x for x in r.output.splitlines() if x.startswith("error:")]
    assert len(errors) == 1 and "dimension 'laughter' failed to import" in errors[0]
    assert "Traceback" not in r.output
