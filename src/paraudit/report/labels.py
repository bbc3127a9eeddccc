"""Short judge labels for the report's matrix, figures and tables: a real judge's name
(`openai:gpt-4o-audio-preview@http://10.0.0.7:8000/v1?temperature=0`) squeezed the state
figure's bars to ~38 px. A label drops the endpoint, then the options, then cuts the middle —
but never so far that two judges read the same (two temperatures of one model stay apart).
The full spec is on hover (a `title`) and in the legend under the verdict matrix."""

from __future__ import annotations

import re
from html import escape

WIDTH = 30
"""The longest label, in characters (at 10-unit figure text about 170 px): enough for
`builtin:prosody?clips=joined` whole."""

_RUN = re.compile(r"^(?P<spec>.*?)(?P<run> \[[^\]]*\])?$")
"""A judge seen in several runs carries its run's label: 'spec [run-label]' (rowgroups)."""


def _parts(judge: str) -> tuple[str, str, str, str]:
    """(backend:model, '@endpoint', '?options', ' [run]') of a judge label."""
    m = _RUN.match(judge)
    spec, run = (m.group("spec"), m.group("run") or "") if m else (judge, "")
    spec, q, opts = spec.partition("?")
    base, at, url = spec.partition("@")
    return base, at + url, q + opts, run


def _cut(text: str, width: int) -> str:
    """`text` in at most `width` characters, its middle replaced by an ellipsis: the backend
    and a model name's version suffix are what tell judges apart."""
    if len(text) <= width:
        return text
    head = (width - 1) * 3 // 5
    return f"{text[:head]}…{text[len(text) - (width - 1 - head) :]}"


def short_labels(judges: list[str], width: int = WIDTH) -> dict[str, str]:
    """Judge → its label: unique, at most `width` characters (plus a run's ' [label]' and a
    ' #n' where cutting made two alike)."""
    parts = {j: _parts(j) for j in judges}
    # Each judge keeps the least it needs to stay apart: the model, then its options, then
    # its endpoint.
    tries = ((0,), (0, 2), (0, 1, 2))

    def made(p: tuple[str, str, str, str], keep: tuple[int, ...]) -> str:
        return "".join(p[i] for i in keep)

    out: dict[str, str] = {}
    for judge, p in parts.items():
        for keep in tries:
            name = made(p, keep)
            alike = [q for q in parts.values() if made(q, keep) == name and q[3] == p[3]]
            if len(alike) == 1:
                break
        out[judge] = _cut(name, width) + p[3]
    seen: dict[str, int] = {}
    for judge in judges:  # the cut may still make two alike: number them in input order
        label = out[judge]
        seen[label] = seen.get(label, 0) + 1
        if sum(1 for v in out.values() if v == label) > 1:
            out[judge] = f"{label} #{seen[label]}"
    return out


def label_html(judge: str, labels: dict[str, str]) -> str:
    """The label, with the full spec on hover when they differ."""
    short = labels.get(judge, judge)
    shown = escape(short).replace(":", ":<wbr>")  # a narrow column breaks after the backend
    if short == judge:
        return shown
    return f'<span class="jl" title="{escape(judge)}">{shown}</span>'


def legend_html(labels: dict[str, str]) -> str:
    """'label = full spec' for every shortened label ('' when none was)."""
    cut = [(short, full) for full, short in labels.items() if short != full]
    if not cut:
        return ""
    rows = "".join(f"<li><b>{escape(s)}</b> = <code>{escape(f)}</code></li>" for s, f in cut)
    return f'<ul class="labels muted" aria-label="Judge labels">{rows}</ul>'
