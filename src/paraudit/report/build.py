"""`paraudit report`: read stored runs, write summary.json/.md, CSVs, LaTeX, figures, HTML."""

from __future__ import annotations

from pathlib import Path

from paraudit.errors import ParauditError
from paraudit.report import figures as F
from paraudit.report import html
from paraudit.report import tables as T
from paraudit.report.context import ReportContext, render_part
from paraudit.report.delivery import delivery_lines
from paraudit.report.pressure import pressure_lines
from paraudit.report.served import served_lines
from paraudit.runfolder.labels import run_labels
from paraudit.stats.analyses import ANALYSES
from paraudit.stats.analysis import Runs
from paraudit.stats.rowgroups import RowGroups, merge_runs, read_groups
from paraudit.stats.sequential_record import annotate as annotate_sequential
from paraudit.stats.statrow import StatRow
from paraudit.stats.strata import read_attributes
from paraudit.stats.summary import SECTIONS, summarize_groups
from paraudit.stats.summary_model import Summary
from paraudit.stats.verdict_order import by_attention

WHOLE = frozenset(a.name for a in ANALYSES if a.across)
"""Sections without a full_*.csv table: a comparison of groups or runs is nested, and its part
writes it whole as its own JSON file (joined.json, scaffold.json, generators.json)."""


def load_groups(run_dirs: list[Path], labels: list[str] | None = None) -> RowGroups:
    """Rows of every run, compact and grouped by judge × task; a judge that appears in several
    runs is told apart by its run's unique label (run_labels: given, or the shortest
    distinguishing path)."""
    names = run_labels(run_dirs, labels)
    return merge_runs((name, read_groups(d)) for name, d in zip(names, run_dirs, strict=True))


def load_runs(run_dirs: list[Path], labels: list[str] | None = None) -> list[StatRow]:
    """load_groups as a list of rows (the fields statistics read)."""
    return list(load_groups(run_dirs, labels).rows())


def summary_of(
    run_dirs: list[Path],
    *,
    replicates: int = 10_000,
    seed: int = 0,
    labels: list[str] | None = None,
    groups: RowGroups | None = None,
) -> Summary:
    """The report's summary of the runs, written nowhere: write_report writes this one, and
    the demo prints its first judge's verdicts from it before the other judges are asked.
    `groups`: the runs' rows when the caller has loaded them (load_groups) already."""
    groups = groups if groups is not None else load_groups(run_dirs, labels)
    if not groups.groups:
        raise ParauditError("the runs hold no results")
    raw = summarize_groups(
        ((g.judge, g.task, g) for g in groups),
        replicates=replicates,
        seed=seed,
        delivery=groups.delivery.cells(),
        attributes=read_attributes(run_dirs),
        twins=groups.twins,
        runs=Runs(tuple(groups.judges), groups.rows, tuple(run_dirs)),
    )
    annotate_sequential(raw, run_dirs)  # a sequential run's verdicts say it stopped early
    return Summary.of({**raw, "runs": [str(d) for d in run_dirs]})


def write_report(
    run_dirs: list[Path],
    out: Path,
    *,
    replicates: int = 10_000,
    seed: int = 0,
    labels: list[str] | None = None,
) -> Path:
    groups = load_groups(run_dirs, labels)
    summary = summary_of(run_dirs, replicates=replicates, seed=seed, groups=groups)
    earlier = _owned_files(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(summary.to_json(), encoding="utf-8")
    (out / "tables").mkdir(exist_ok=True)
    md = [
        "# paraudit summary\n",
        f"{summary.intervals} item-level 95 % intervals "
        f"({summary.bootstrap.replicates} replicates of whole items); about 1 in 20 "
        "misses its true value by chance alone.\n",
        "## Verdicts\n",
    ]
    # Most pressing first, the controls last, as on the page (report/overview.py).
    md += [f"- **{v.judge}** · {v.task}: {v.headline}" for v in by_attention(summary.verdicts)]
    md += ["\n## Audio delivery\n", *delivery_lines(summary)]
    md += ["\n## Which model answered\n", *served_lines(summary)]
    md += pressure_lines(summary)  # the misleading cue, ties, conflict items: when they ran
    tex: list[str] = []
    for name, fn in T.TABLES.items():
        table = fn(summary)
        T.write_csv(out / "tables" / f"{name}.csv", table)
        md += [f"\n## {T.TITLES[name]}\n", T.markdown(table)]
        tex.append(T.latex(table, T.TITLES[name]))
    for key in SECTIONS:
        if key in summary.model_fields_set and key not in WHOLE:
            T.write_csv(out / "tables" / f"full_{key}.csv", T.flat_table(summary.section(key)))
    (out / "summary.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (out / "tables.tex").write_text("\n".join(tex), encoding="utf-8")
    figdir = out / "figures"
    figures = {
        "states": F.state_bars(summary, figdir),
        "heatmaps": F.heatmaps(summary, figdir),
        "accuracy": F.accuracy_bars(summary, figdir),
    }
    # Every registered analysis's part, in registry order.
    ctx = ReportContext(summary, out, figdir, tuple(run_dirs), groups, replicates, seed)
    parts = {a.name: render_part(a, ctx) for a in ANALYSES}
    lead = parts.pop("invariance", None)  # an invariance run leads with its own audit
    extras = [part for part in parts.values() if part]
    page = html.render(
        summary,
        {k: v for k, v in figures.items() if v},
        [str(d) for d in run_dirs],
        extra=extras,
        lead=lead,
    )
    (out / "report.html").write_text(page, encoding="utf-8")
    _clear_stale(earlier)
    return out / "report.html"


REPORT_SUFFIXES = frozenset({".json", ".md", ".csv", ".tex", ".html", ".png", ".svg", ".pdf"})
"""What a report writes (at its top, in tables/ and figures/): the files a reused report folder
may be cleared of."""


def _owned_files(out: Path) -> dict[Path, tuple[int, int]]:
    """The report's own kinds of file already in `out`, with (inode, mtime): a file this
    report does not write again keeps both, and is an earlier report's leftover."""
    found: dict[Path, tuple[int, int]] = {}
    for folder in (out, out / "tables", out / "figures"):
        if not folder.is_dir() or folder.is_symlink():
            continue
        for p in folder.iterdir():
            # A user's notes (notes.md) at the top are not the report's: only its summary.md.
            notes = folder == out and p.suffix == ".md" and p.name != "summary.md"
            if p.suffix in REPORT_SUFFIXES and not notes and p.is_file() and not p.is_symlink():
                st = p.stat()
                found[p] = (st.st_ino, st.st_mtime_ns)
    return found


def _clear_stale(earlier: dict[Path, tuple[int, int]]) -> None:
    """Remove the files an earlier report wrote that this one did not (a scaffold.json from a
    run that had a scaffold, beside a summary of one that has none)."""
    for p, seen in earlier.items():
        try:
            st = p.stat()
        except FileNotFoundError:
            continue
        if (st.st_ino, st.st_mtime_ns) == seen:
            p.unlink()
