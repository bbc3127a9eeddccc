"""`paraudit series RUN…`: verdicts and key figures of a sequence of runs (checkpoints) on the
same items, item-level paired tests between consecutive runs and against the first, Holm
over each judge's tests, regressions flagged; a table, and with --out a figure and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from paraudit.cli.common import console, prepare_output, user_errors, warn
from paraudit.cli.help import OUTPUT, STATS
from paraudit.cli.run_checks import check_replicates

ITEMS = "Which items"


@user_errors
def series(
    runs: list[Path] = typer.Argument(..., help="Run folders, oldest checkpoint first."),
    label: list[str] = typer.Option(
        [], "--label", metavar="NAME", help="A name per run (default: folder names)."
    ),  # fmt: skip
    shared_items: bool = typer.Option(
        False,
        "--shared-items",
        rich_help_panel=ITEMS,
        help="Runs on different datasets or item sets: use the items every run answered.",
    ),  # fmt: skip
    items: Path | None = typer.Option(
        None,
        "--items",
        metavar="FILE",
        rich_help_panel=ITEMS,
        help="Use only these items: one id per line (or TASK/ID).",
    ),  # fmt: skip
    out: Path | None = typer.Option(
        None,
        "--out",
        metavar="DIR",
        rich_help_panel=OUTPUT,
        help="Also write series.json, series.md and the figure.",
    ),  # fmt: skip
    force: bool = typer.Option(
        False, "--force", rich_help_panel=OUTPUT, help="Replace an earlier series at --out."
    ),  # fmt: skip
    replicates: int = typer.Option(
        2_000, min=100, metavar="N", rich_help_panel=STATS, help="Bootstrap replicates."
    ),  # fmt: skip
) -> None:
    """Verdicts and key figures of a sequence of runs (checkpoints) of the same dataset, with
    item-level paired tests between consecutive runs and against the first (Holm), regressions
    flagged."""
    from paraudit.runfolder.labels import run_labels
    from paraudit.runfolder.spec import read_run_json, run_dataset
    from paraudit.stats.rowgroups import read_groups
    from paraudit.stats.series import SeriesError, items_of
    from paraudit.stats.series import series as make_series

    check_replicates(replicates)  # typer's min only: 10^9 replicates ran for ever
    if len(runs) < 2:
        raise SeriesError("a series needs at least two run folders")
    if shared_items and items is not None:
        raise SeriesError("--shared-items and --items both choose the items: give one")
    if out is not None:
        prepare_output(out, force=force, what="--out", marker="series.json")
    names = run_labels(runs, label or None)
    for run in runs:
        read_run_json(run)  # a damaged run.json is one line, as report and card say
    datasets = [run_dataset(r) for r in runs]
    rows = [list(read_groups(r).rows()) for r in runs]
    sets = [items_of(x) for x in rows]
    known = {d for d in datasets if d is not None}
    told = shared_items or items is not None
    if len(known) > 1 and not told:
        raise SeriesError(
            "the runs audited different datasets (" + "; ".join(
                f"{n}: {d}" for n, d in zip(names, datasets, strict=True)) + "); pass "
            "--shared-items to use the items every run answered, or --items FILE"
        )  # fmt: skip
    common = set.intersection(*sets)
    if not told and any(s != sets[0] for s in sets):
        raise SeriesError(
            f"the runs answered different items ({', '.join(str(len(s)) for s in sets)}; "
            f"{len(common)} in all of them); pass --shared-items or --items FILE"
        )
    keep = common if items is None else _read_items(items, common)
    if not keep:
        raise SeriesError("no item is answered by every run")
    result = make_series(rows, names, keep, replicates=replicates)
    _print(result)
    if out is not None:
        _write(result, out)


def _read_items(path: Path, common: set[tuple[str, str]]) -> set[tuple[str, str]]:
    from paraudit.cli.outputs import read_input_text
    from paraudit.stats.series import SeriesError

    text = read_input_text(path, "--items")
    wanted = [w.strip() for w in text.splitlines() if w.strip()]
    keep = {i for i in common if i[1] in wanted or f"{i[0]}/{i[1]}" in wanted}
    missing = [w for w in wanted if not any(w in (i[1], f"{i[0]}/{i[1]}") for i in common)]
    if missing:
        raise SeriesError(f"--items {path}: {len(missing)} item(s) not answered by every run "
                          f"(first: {missing[0]!r})")  # fmt: skip
    return keep


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.1%}"


def _lines(s: object) -> list[str]:
    from paraudit.stats.series import Series

    assert isinstance(s, Series)
    out = [f"series of {len(s.labels)} runs on {s.items} shared items (tests: order-consistent "
           "outcomes per item, paired bootstrap CI, exact McNemar, Holm "
           "per judge, α 0.05)"]  # fmt: skip
    for label, run in zip(s.labels, s.figures, strict=True):
        for f in run:
            jp = f.j_pointwise
            iv = "" if jp is None else f" [{_pct(jp.ci_low)}, {_pct(jp.ci_high)}]"
            out.append(f"  {label} · {f.judge} · {f.task}: J pointwise (per instance) "
                       f"{_pct(jp.rate if jp else None)}{iv}; {f.diagnosis}")  # fmt: skip
    for t in s.tests:
        mark = "REGRESSION" if t.regression and t.kind == "step" else (
            "below the first" if t.regression else "")  # fmt: skip
        out.append(
            f"  {s.labels[t.a]} → {s.labels[t.b]} ({t.kind}) {t.judge} J {t.protocol}: "
            f"{(t.delta or 0) * 100:+.1f} pp [{(t.ci_low or 0) * 100:+.1f}, "
            f"{(t.ci_high or 0) * 100:+.1f}] on {t.items} items, {t.a_better} worse / "
            f"{t.b_better} better, Holm p {t.p_holm:.2g} {mark}".rstrip()
        )
    steps = [t for t in s.regressions if t.kind == "step"]
    if steps:
        out += [f"regression at {s.labels[t.a]} → {s.labels[t.b]}: {t.judge} J {t.protocol}"
                for t in steps]  # fmt: skip
    else:
        out.append("no step regresses")
    return out


def _print(s: object) -> None:
    for line in _lines(s):
        console.print(line, highlight=False, soft_wrap=True)


def _write(s: object, out: Path) -> None:
    from paraudit.stats.series import Series

    assert isinstance(s, Series)
    out.mkdir(parents=True, exist_ok=True)
    (out / "series.json").write_text(
        json.dumps({"paraudit_output": "series", **s.as_dict()}, indent=2) + "\n", "utf-8"
    )
    (out / "series.md").write_text("# paraudit series\n\n" + "\n".join(
        f"- {line.strip()}" for line in _lines(s)) + "\n", "utf-8")  # fmt: skip
    # One figure per judge × task of the first run: series.png for the first (the name a
    # single-judge series has always had), series-2.png … for the others, listed in series.md.
    pairs = list(dict.fromkeys((f.judge, f.task) for f in (s.figures[0] if s.figures else [])))
    if not pairs:
        return
    from paraudit.errors import MissingExtraError

    try:
        from paraudit.report.series import series_figure

        names = []
        for k, (judge, task) in enumerate(pairs, start=1):
            name = "series" if k == 1 else f"series-{k}"
            series_figure(s, out, judge, task, name)
            names.append(f"- `{name}.png`: {judge} · {task}")
        with (out / "series.md").open("a", encoding="utf-8") as md:
            md.write("\n## Figures\n\n" + "\n".join(names) + "\n")
    except MissingExtraError as e:  # matplotlib is in the report extra
        warn(f"no figure: {e}")
