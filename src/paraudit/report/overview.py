"""The report's first screen: a judges × tasks matrix of verdict badges, then the verdicts
grouped by dimension (each run holds one dimension per task) under headings in the dimension's
words, each group sorted by what needs attention — not by name, which put the at-chance
controls first. Every term is explained in one line where it is first used (report/glossary.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from paraudit.dimensions.base import Dimension
from paraudit.dimensions.emotion import EMOTION
from paraudit.report.glossary import Glossary
from paraudit.report.labels import label_html, legend_html, short_labels
from paraudit.stats.model import Verdict
from paraudit.stats.verdict_order import by_attention, is_control
from paraudit.stats.verdict_text import dimension_for

NATIVE_BADGE = {
    # What the badge certifies: the native step's answer, never a trust rating.
    "reliable": ("native: reliable", "#2e7d32"),
    "usable": ("native: above chance", "#7cb342"),
    "at chance": ("native: at chance", "#9e9e9e"),
    "below chance": ("native: below chance", "#c62828"),
    "not run": ("native: not run", "#757575"),
}


@dataclass(frozen=True)
class Group:
    """The verdicts over one dimension's tasks."""

    dimension: Dimension
    tasks: list[str]
    verdicts: list[Verdict]

    @property
    def title(self) -> str:
        return f"{self.dimension.name.capitalize()}: does the judge hear {self.words_attr}?"

    @property
    def words_attr(self) -> str:
        return self.dimension.words.attribute


def groups(verdicts: list[Verdict]) -> list[Group]:
    """Verdicts by dimension (a task no dimension declares reads as emotion), the dimensions
    in the order their most pressing verdict comes."""
    by: dict[str, tuple[Dimension, list[Verdict]]] = {}
    for v in by_attention(verdicts):
        dim = dimension_for(v.task) or EMOTION
        by.setdefault(dim.name, (dim, []))[1].append(v)
    return [
        Group(dim, sorted({v.task for v in vs}), vs)
        for dim, vs in by.values()  # insertion order: by each group's first verdict
    ]


def task_label(task: str, dim: Dimension) -> str:
    """The task under its dimension's heading: its item kind ('single-turn'), else its name."""
    for kind in dim.item_kinds:
        if dim.task_for(kind) == task:
            return kind
    return task


def _badge(v: Verdict, anchor: str) -> str:
    label, colour = NATIVE_BADGE.get(v.native.outcome, (v.native.outcome, "#999"))
    return (
        f'<a class="badge" href="#{anchor}" style="background:{colour}" '
        f'title="{escape(v.headline)}">{escape(label.removeprefix("native: "))}</a>'
    )


@dataclass
class Page:
    """What the page's parts share while it is built top to bottom."""

    labels: dict[str, str]
    """Judge → its short label (report/labels.py)."""
    glossary: Glossary
    ids: dict[tuple[str, str], str]
    """(judge, task) → its verdict row's anchor."""

    @classmethod
    def of(cls, verdicts: list[Verdict], judges: list[str]) -> Page:
        ids = {(v.judge, v.task): f"v-{i}" for i, v in enumerate(verdicts)}
        return cls(short_labels(judges or sorted({v.judge for v in verdicts})), Glossary(), ids)


def matrix_html(verdicts: list[Verdict], page: Page) -> str:
    """Judges (rows, most pressing first) × tasks (columns under their dimension) of native
    badges with the diagnosis under each; a badge links to its verdict."""
    gs = groups(verdicts)
    cols = [(g, t) for g in gs for t in g.tasks]
    by = {(v.judge, v.task): v for v in verdicts}
    judges = list(dict.fromkeys(v.judge for v in by_attention(verdicts)))
    top = "".join(
        f'<th colspan="{len(g.tasks)}" scope="colgroup">{escape(g.dimension.name)}</th>' for g in gs
    )
    sub = "".join(f'<th scope="col">{escape(task_label(t, g.dimension))}</th>' for g, t in cols)
    rows = []
    for j in judges:
        cells = []
        for _, t in cols:
            v = by.get((j, t))
            cells.append(
                "<td>–</td>"
                if v is None
                else f'<td>{_badge(v, page.ids[(j, t)])}<div class="dx">'
                f"{escape(v.diagnosis)}</div></td>"
            )
        control = ' <span class="muted">(control)</span>' if is_control(j) else ""
        name = label_html(j, page.labels)
        rows.append(f'<tr><th scope="row">{name}{control}</th>{"".join(cells)}</tr>')
    badges = (NATIVE_BADGE.get(v.native.outcome, ("", ""))[0] for v in verdicts)
    gloss = page.glossary.lines("native", *badges, *(v.diagnosis for v in verdicts))
    return (
        '<div class="scroll"><table class="matrix-v"><thead><tr><th rowspan="2">Judge</th>'
        f"{top}</tr><tr>{sub}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        f"{legend_html(page.labels)}{gloss}"
    )


def _rows(g: Group, page: Page) -> str:
    out = []
    for v in g.verdicts:
        label, colour = NATIVE_BADGE.get(v.native.outcome, (v.native.outcome, "#999"))
        small = " <span class='muted'>(small sample)</span>" if v.small_sample else ""
        gloss = page.glossary.lines(v.diagnosis, v.headline)
        out.append(
            f'<tr id="{page.ids[(v.judge, v.task)]}"><td>{label_html(v.judge, page.labels)}</td>'
            f"<td>{escape(task_label(v.task, g.dimension))}</td>"
            f"<td>{v.items}{small}</td><td><span class='badge' "
            f"style='background:{colour}'>{escape(label)}</span></td>"
            f"<td><b>{escape(v.diagnosis)}</b></td></tr>"
            f"<tr class='why'><td colspan='5'>{escape(v.headline)}{gloss}<details><summary>"
            f"every step of the cascade</summary>{escape(v.text)}</details></td></tr>"
        )
    return "".join(out)


def verdicts_html(verdicts: list[Verdict], page: Page) -> str:
    """One table per dimension under its heading, most pressing verdict first."""
    parts = []
    for g in groups(verdicts):
        n = len(g.verdicts)
        parts.append(
            f'<h3 class="dim">{escape(g.title)}</h3><p class="muted">{n} verdict'
            f"{'s' * (n != 1)} on {escape(', '.join(g.tasks))}: a judge that "
            f"{escape(g.dimension.words.does_not_hear)} cannot pick the reply the audio calls "
            "for. Most pressing first; the controls last.</p>"
            '<div class="scroll"><table class="verdict"><thead><tr><th>Judge</th><th>Task</th>'
            "<th>Items</th><th>Native use</th><th>Diagnosis</th></tr></thead>"
            f"<tbody>{_rows(g, page)}</tbody></table></div>"
        )
    return "".join(parts)
