"""`paraudit report`: read stored runs, write summary.json/.md, CSVs, LaTeX, figures, HTML."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paraudit.errors import ParauditError
from paraudit.report import figures as F
from paraudit.report import html
from paraudit.report import tables as T
from paraudit.runfolder.labels import run_labels
from paraudit.stats.accuracy import read_results
from paraudit.stats.summary import SECTIONS, summarize


def load_runs(run_dirs: list[Path], labels: list[str] | None = None) -> list[dict[str, Any]]:
    """Rows of every run; a judge that appears in several runs is told apart by its run's
    unique label (run_labels: given, or the shortest distinguishing path)."""
    names = run_labels(run_dirs, labels)
    per_run = [(name, read_results(d)) for name, d in zip(names, run_dirs, strict=True)]
    seen: dict[str, int] = {}
    for _, rows in per_run:
        for j in {r["judge"] for r in rows}:
            seen[j] = seen.get(j, 0) + 1
    out: list[dict[str, Any]] = []
    for d, rows in per_run:
        for r in rows:
            if seen[r["judge"]] > 1:
                r = {**r, "judge": f"{r['judge']} [{d}]"}
            out.append(r)
    return out


def write_report(
    run_dirs: list[Path],
    out: Path,
    *,
    replicates: int = 10_000,
    seed: int = 0,
    labels: list[str] | None = None,
) -> Path:
    rows = load_runs(run_dirs, labels)
    if not rows:
        raise ParauditError("the runs hold no results")
    summary = summarize(rows, replicates=replicates, seed=seed)
    summary["runs"] = [str(d) for d in run_dirs]
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (out / "tables").mkdir(exist_ok=True)
    md = [
        "# paraudit summary\n",
        f"{summary['intervals']} item-level 95 % intervals "
        f"({summary['bootstrap']['replicates']} replicates of whole items); about 1 in 20 "
        "misses its true value by chance alone.\n",
        "## Verdicts\n",
    ]
    md += [f"- **{v['judge']}** · {v['task']}: {v['text']}" for v in summary["verdicts"]]
    tex: list[str] = []
    for name, fn in T.TABLES.items():
        table = fn(summary)
        T.write_csv(out / "tables" / f"{name}.csv", table)
        md += [f"\n## {name.replace('_', ' ')}\n", T.markdown(table)]
        tex.append(T.latex(table, name.replace("_", " ")))
    for key in SECTIONS:
        T.write_csv(out / "tables" / f"full_{key}.csv", T.flat_table(summary[key]))
    (out / "summary.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (out / "tables.tex").write_text("\n".join(tex), encoding="utf-8")
    figdir = out / "figures"
    figures = {
        "states": F.state_bars(summary, figdir),
        "heatmaps": F.heatmaps(summary, figdir),
        "accuracy": F.accuracy_bars(summary, figdir),
    }
    page = html.render(summary, {k: v for k, v in figures.items() if v}, [str(d) for d in run_dirs])
    (out / "report.html").write_text(page, encoding="utf-8")
    return out / "report.html"
