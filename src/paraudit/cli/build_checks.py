"""What `paraudit build starter` refuses: options of the source builders that it would ignore.

The starter set is rendered offline with the bundled Piper voice from the bundled sentences;
a `--tts nosuch` or `--dry-run` given to it used to be dropped silently (a dry run built the
whole set). Naming them is the only honest answer.
"""

from __future__ import annotations

from paraudit.errors import ParauditError


def refuse_starter_options(given: dict[str, object], defaults: dict[str, object]) -> None:
    """`given` and `defaults` map option names (as typed, e.g. '--tts') to values."""
    ignored = [name for name, value in given.items() if value != defaults.get(name)]
    if ignored:
        raise ParauditError(
            f"build starter renders the bundled set offline (Piper, its own sentences); "
            f"{', '.join(ignored)} {'does' if len(ignored) == 1 else 'do'} not apply to it "
            "(they are for single-turn, positional and conversations): drop "
            f"{'it' if len(ignored) == 1 else 'them'}"
        )
