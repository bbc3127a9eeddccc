"""`paraudit build starter|single-turn|positional|conversations`: build an audit dataset.

`starter` renders the bundled offline set; the three builders compose counterfactual text from
a source with an LLM, voice it, check the audio and write a dataset folder with its card.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from paraudit.bounds import not_regular
from paraudit.builders.card import CARD_MD, write_card
from paraudit.builders.pipeline import KINDS, BuildOptions, BuildResult, Reporter
from paraudit.cli.build_checks import refuse_starter_options
from paraudit.cli.build_dimension import print_twins
from paraudit.cli.common import (
    console,
    fail,
    prepare_output,
    progress_bar,
    stoppable,
    user_errors,
)
from paraudit.cli.help import OUTPUT
from paraudit.compose.starter import BuildReport, build_starter
from paraudit.items.guard import OutputLock
from paraudit.items.validate import errors_of, validate_dataset
from paraudit.sources.tables import ColumnMap

# Panels of `build --help` (cli/help.py): where the texts come from, what to make of them,
# what makes and voices them, which checks a clip must pass, what is written.
SOURCE = "Source"
WHAT_TO_BUILD = "What to build"
MAKING = "How to compose and voice"
CHECKS = "Quality checks"

MAX_TRIES = 100
"""Renderings tried per turn at most (the default is 10): beyond it a build never ends."""
WHAT = ("starter", *KINDS, "invariance")


def _bar(description: str) -> Progress:
    """The build commands' progress bar: description, bar, done/total, time left."""
    return progress_bar(
        "build",
        TextColumn(description),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )


def run_build(
    out: Path,
    limit: int | None,
    voice: Path | None,
    cache: Path | None,
    ids: set[str] | None = None,
    conflict: bool = False,
    *,
    voices: tuple[str, ...] | None = None,
    conditions: tuple[str, ...] = (),
    extended: bool = False,
) -> BuildReport:
    from paraudit.builders.invariance import condition_adder  # scipy, Praat: only when built

    with _bar("[bold]rendering[/] {task.description}") as bar:
        task = bar.add_task("starter clips", total=None)
        report = build_starter(
            out,
            limit=limit,
            ids=ids,
            conflict=conflict,
            voice=voice,
            cache_dir=cache,
            on_progress=lambda done, total: bar.update(task, completed=done, total=total),
            voices=voices,
            add_twins=condition_adder(conditions) if conditions else None,
            extended=extended,
        )
    written = ", ".join(f"{n} {t}" for t, n in report.items_written.items()) or "none"
    console.print(
        f"clips: {report.clips_accepted_first_try} accepted, {report.clips_retried_accepted} "
        f"accepted after retry, {report.clips_failed} failed · items: {written}; "
        f"dropped {len(report.items_dropped)}"
        + escape(f" ({', '.join(report.items_dropped)})" if report.items_dropped else "")
    )
    console.print(
        f"renders: {report.fresh_renders} fresh, {report.cache_hits} from cache · "
        f"{report.seconds:.1f} s → {escape(str(out))}",
        soft_wrap=True,
    )
    for why in report.conflict_refused:
        console.print(f"[yellow]conflict item refused[/] {escape(why)}", soft_wrap=True)
    print_twins(report.twins_written, report.twins_dropped)
    return report


def check_output(out: Path, force: bool, inputs: Sequence[Path | None] = ()) -> None:
    """Refuse before any work: a file, or a non-empty folder without --force; even with
    --force only an earlier dataset (dataset.json) is replaced; never the build's own input
    (`build invariance --from S --out S --force` replaced its source)."""
    given = [p for p in inputs if p is not None]
    prepare_output(out, force=force, what="--out", marker="dataset.json", inputs=given)


@contextmanager
def writing(out: Path, cache: Path | None) -> Iterator[None]:
    """A build's work: one build per --out at a time (two started together both "succeeded",
    the second silently replacing the first), and a Ctrl-C or SIGTERM that stops it at once
    with the line saying what was kept."""
    note = (
        f"nothing was written to {out}; the renders and LLM replies made so far are cached "
        f"({cache or 'in ~/.cache/paraudit'}): rerun the same command to resume"
    )
    with OutputLock(out, "--out"), stoppable(note):
        yield


class _Bars(Reporter):
    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, TaskID] = {}

    def start(self, stage: str, total: int | None) -> None:
        self.tasks[stage] = self.progress.add_task(stage, total=total)

    def advance(self, stage: str, n: int = 1) -> None:
        if stage in self.tasks:
            self.progress.advance(self.tasks[stage], n)


def _usd(v: float | None) -> str:
    return "unknown" if v is None else f"${v:.2f}"


def _dry_run(
    o: BuildOptions, llm: str, tts: str, qc: str, max_accepted: int, max_tries: int
) -> None:
    from paraudit.builders.estimate import estimate, max_renders_per_clip, renders_per_clip
    from paraudit.builders.pipeline import load_candidates

    per_clip = max_renders_per_clip(tts, qc, max_tries)
    candidates = load_candidates(o)
    if o.conflict:  # only the sentences kept as conflicts are composed and rendered
        from paraudit.builders.conflict import keep_conflicts

        candidates, _ = keep_conflicts(candidates)
    e = estimate(o, candidates, llm, tts, renders_per_clip(tts, qc, max_accepted), per_clip)
    t = Table(title=f"dry run: build {o.kind} from {o.source.name} (nothing was called)")
    t.add_column("what")
    t.add_column("estimate", justify="right")
    for k, v in (
        ("source records", e.candidates),
        ("records to try", e.tries),
        ("expected pairs", e.expected_pairs),
        ("LLM calls", e.llm_calls),
        ("characters sent", f"{e.chars_in:,}"),
        ("characters received", f"{e.chars_out:,}"),
        ("clips to voice", e.clips),
        (
            "renders at most (retry policy)",
            f"{e.max_renders:,} ({e.max_clips:,} clips × {per_clip})",
        ),
        ("audio seconds to synthesise", f"{e.audio_seconds:,.0f}"),
        (f"LLM cost ({llm})", _usd(e.llm_usd)),
        (f"TTS cost ({tts})", _usd(e.tts_usd)),
    ):
        t.add_row(k, str(v))
    console.print(t)
    for n in e.notes:
        console.print(f"  · {escape(n)}", highlight=False)


LITTLE_SURVIVES = 0.5
"""Below this share of composed pairs kept, the build explains its QC rejections."""


def _summary(r: BuildResult, card: dict[str, Any]) -> None:
    rej = card["rejections"]["counts"]
    console.print(
        f"{len(r.items)} {r.options.task} items → {r.options.out} · rejected: "
        + (", ".join(f"{c['stage']}/{c['code']} {c['count']}" for c in rej) or "none")
    )
    console.print(
        f"LLM calls {r.llm.get('calls', 0)} (+{r.llm.get('cache_hits', 0)} from cache) · "
        f"time {r.timings.get('total_s', 0):.1f} s · card: {r.options.out / CARD_MD}"
    )
    composed = sum(r.composed.values())
    if len(r.items) < LITTLE_SURVIVES * composed:
        # Most of what was composed (and paid for) was dropped: say which rules dropped it.
        console.print(
            f"[yellow]only {len(r.items)} of {composed} composed pairs survived audio QC[/]"
        )
        for line in r.qc_summary():
            console.print(escape(line), highlight=False)
        console.print(escape(f"every rule and count: {r.options.out / CARD_MD} (Audio QC)"))


def _validate(out: Path) -> None:
    from paraudit.cli.validate import print_problems

    problems = validate_dataset(out)
    print_problems(problems)  # warnings (e.g. branch balance) are shown, never fatal
    errors = errors_of(problems)
    if errors:
        raise fail(f"the built dataset has {len(errors)} problem(s)")
    console.print("[green]✓[/] dataset validates")


@user_errors
def build(
    what: str = typer.Argument(
        ...,
        help="starter (offline set) | single-turn | positional | conversations | invariance",
    ),
    out: Path = typer.Option(
        ..., "--out", metavar="DIR", help="Dataset folder to write.", rich_help_panel=OUTPUT
    ),
    source: Path | None = typer.Option(
        None,
        "--source",
        metavar="FILE",
        help="Source JSONL/CSV/saved HF set.",
        rich_help_panel=SOURCE,
    ),
    preset: str | None = typer.Option(
        None,
        "--preset",
        metavar="NAME",
        help="emocf | od3 (default by builder).",
        rich_help_panel=SOURCE,
    ),
    mapping: str | None = typer.Option(
        None,
        "--map",
        metavar="MAP",
        help="Column names: FIELD=COLUMN,... (turns.FIELD=COLUMN inside turns).",
        rich_help_panel=SOURCE,
    ),
    llm: str | None = typer.Option(
        None,
        "--llm",
        metavar="SPEC",
        help="Generator: openai:MODEL[@URL][?opts] or gemini:MODEL.",
        rich_help_panel=MAKING,
    ),
    tts: str = typer.Option(
        "piper",
        "--tts",
        metavar="SPEC",
        help="TTS backend, e.g. piper or piper:VOICE.onnx.",
        rich_help_panel=MAKING,
    ),
    n: int | None = typer.Option(
        None,
        "--n",
        min=1,
        metavar="N",
        help="Pairs to compose (default: all).",
        rich_help_panel=WHAT_TO_BUILD,
    ),
    seed: int = typer.Option(
        0,
        "--seed",
        metavar="N",
        help="Seed for sampling, coins and voices.",
        rich_help_panel=WHAT_TO_BUILD,
    ),
    limit: int | None = typer.Option(
        None,
        "--limit",
        min=1,
        metavar="N",
        help="At most N source records tried (starter: items per task).",
        rich_help_panel=WHAT_TO_BUILD,
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print calls, characters, cost.", rich_help_panel=OUTPUT
    ),
    force: bool = typer.Option(
        False, "--force", help="Replace a non-empty --out folder.", rich_help_panel=OUTPUT
    ),
    audio: str = typer.Option(
        "tts",
        "--audio",
        metavar="tts|source",
        help="Voice the texts, or use the source's recordings (single-turn).",
        rich_help_panel=SOURCE,
    ),
    audio_root: Path | None = typer.Option(
        None,
        "--audio-root",
        metavar="DIR",
        help="Folder the source's file names are relative to.",
        rich_help_panel=SOURCE,
    ),
    pairs: str | None = typer.Option(
        None,
        "--pairs",
        metavar="LIST",
        help="Keep only these source pairs, e.g. anger/sadness,surprise/neutral.",
        rich_help_panel=WHAT_TO_BUILD,
    ),
    response_tone: str = typer.Option(
        "neutral",
        "--response-tone",
        metavar="TONE",
        help="Tone of both single-turn responses.",
        rich_help_panel=WHAT_TO_BUILD,
    ),
    concurrency: int = typer.Option(
        4, "--concurrency", min=1, metavar="N", help="LLM calls in flight.", rich_help_panel=MAKING
    ),
    balance: bool = typer.Option(
        True, "--balance/--no-balance", help="LLM-rated lexical balance.", rich_help_panel=CHECKS
    ),
    dnsmos: bool = typer.Option(
        True, "--dnsmos/--no-dnsmos", help="DNSMOS of response clips.", rich_help_panel=CHECKS
    ),
    workers: int | None = typer.Option(
        None,
        "--workers",
        min=1,
        metavar="N",
        help="Render workers (scorer: threads; direction: processes).",
        rich_help_panel=MAKING,
    ),
    qc: str = typer.Option(
        "scorer",
        "--qc",
        metavar="KIND",
        help="scorer (Audio Scorer render-and-retry) | direction (Piper only).",
        rich_help_panel=CHECKS,
    ),
    ser: str | None = typer.Option(
        None,
        "--ser",
        metavar="SPEC",
        help="SER model for the scorer: emotion2vec[:MODEL] | hf:PATH.",
        rich_help_panel=CHECKS,
    ),
    max_accepted: int = typer.Option(
        3,
        "--max-accepted",
        min=1,
        metavar="N",
        help="Scorer: stop after N.",
        rich_help_panel=CHECKS,
    ),
    max_tries: int = typer.Option(
        10,
        "--max-tries",
        min=1,
        metavar="N",
        help="Scorer: give up after N.",
        rich_help_panel=CHECKS,
    ),
    min_dnsmos: float | None = typer.Option(
        None,
        "--min-dnsmos",
        metavar="X",
        help="Scorer: reject renderings with DNSMOS OVRL below this.",
        rich_help_panel=CHECKS,
    ),
    voice: Path | None = typer.Option(
        None,
        "--voice",
        metavar="FILE",
        help="starter: a Piper .onnx voice (default: bundled joe-medium); with --dimension, a "
        "voice of its renderer (joe, joe-bright, joe-deep; emphasis: espeak-m, espeak-f).",
        rich_help_panel=MAKING,
    ),
    cache: Path | None = typer.Option(
        None,
        "--cache",
        metavar="DIR",
        help="Cache folder for renders and LLM replies (default: ~/.cache/paraudit).",
        rich_help_panel=OUTPUT,
    ),
    from_: Path | None = typer.Option(
        None,
        "--from",
        metavar="DATASET",
        help="invariance: the dataset whose items get twins.",
        rich_help_panel=SOURCE,
    ),
    changes: str = typer.Option(
        "voice,loudness,rate,noise,samplerate",
        "--changes",
        metavar="LIST",
        help="invariance: irrelevant changes to make (voice,loudness,rate,noise,samplerate; "
        "recording conditions: telephone,reverb).",
        rich_help_panel=WHAT_TO_BUILD,
    ),
    dimension: str | None = typer.Option(
        None,
        "--dimension",
        metavar="NAME",
        help="starter: the dimension's set (`paraudit dimensions`; default emotion).",
        rich_help_panel=WHAT_TO_BUILD,
    ),
    conflict: bool = typer.Option(
        False,
        "--conflict",
        help="starter: add word-tone conflict items, words carrying one value said with the "
        "other (emotion: good news said sadly, bad news with surprise; sarcasm; urgency); "
        "single-turn: keep only pairs whose words read as one value and unlike the other.",
        rich_help_panel=WHAT_TO_BUILD,
    ),
    extended: bool = typer.Option(
        False,
        "--extended",
        help="starter: 112 more single-turn sentences (160 in all; emotion only), so that "
        "`run --sequential` has the items to stop early (measured: random, always-first and "
        "the prosody judge; a judge near a bar may still need them all).",
        rich_help_panel=WHAT_TO_BUILD,
    ),
    voices: str | None = typer.Option(
        None,
        "--voices",
        metavar="N|LIST",
        help="starter: also render every item in these voices (or the renderer's first N), "
        "as invariance twins.",
        rich_help_panel=MAKING,
    ),
    conditions: str | None = typer.Option(
        None,
        "--conditions",
        metavar="LIST",
        help="starter: add twins recorded over a phone line or in a room (telephone,reverb).",
        rich_help_panel=WHAT_TO_BUILD,
    ),
) -> None:
    """Build an audit dataset (resumable: rerun the same command after a crash)."""
    if what not in WHAT:
        raise fail(f"unknown source '{what}' (builders: {', '.join(WHAT)})")
    from paraudit.cli.build_dimension import run_dimension_build, starter_variants, wanted_dimension

    dim = wanted_dimension(what, dimension)  # refused before --out is touched
    if extended and what != "starter":
        raise fail(f"--extended adds sentences to the starter set: build starter, not {what}", 2)
    if extended and dim is not None:
        raise fail(f"--extended: only the emotion starter has an extension (not {dim.name})", 2)
    voice_list, condition_list = starter_variants(what, dim, voices, conditions, voice)
    check_output(out, force, [from_, source, audio_root])
    for option, given in (("--source", source), ("--voice", voice)):
        kind = None if given is None else not_regular(given)
        if kind is not None:
            # Read before any work would wait forever (a FIFO) or never end (/dev/zero).
            raise fail(f"{option} {given} is {kind}; give a regular file")
    if what == "invariance":
        from paraudit.cli.build_invariance import run_invariance

        with writing(out, cache):
            run_invariance(from_, out, changes, limit, source)
        _validate(out)
        return
    if what == "starter":
        refuse_starter_options(
            {"--source": source, "--preset": preset, "--map": mapping, "--llm": llm,
             "--tts": tts, "--n": n, "--dry-run": dry_run, "--audio": audio,
             "--audio-root": audio_root, "--pairs": pairs, "--ser": ser,
             "--min-dnsmos": min_dnsmos, "--qc": qc},
            {"--tts": "piper", "--dry-run": False, "--audio": "tts", "--qc": "scorer"},
        )  # fmt: skip
        if conflict and dim is not None:
            from paraudit.qc.conflict import conflict_refusal

            if (why := conflict_refusal(dim)) is not None:
                raise fail(f"--conflict: no conflict items for {dim.name}: {why}", 2)
        with writing(out, cache):
            if dim is not None:
                run_dimension_build(dim, out, limit, voice, cache, seed, voice_list,
                                    condition_list, conflict=conflict)  # fmt: skip
            else:
                run_build(out, limit, voice, cache, conflict=conflict, voices=voice_list,
                          conditions=condition_list, extended=extended)  # fmt: skip
        _validate(out)
        return
    if conflict and what != "single-turn":
        raise fail(f"--conflict: conflict items are single sentences; build single-turn or "
                   f"starter, not {what}", 2)  # fmt: skip
    if source is None:
        raise fail(f"build {what} needs --source FILE")
    if audio not in ("tts", "source"):
        raise fail("--audio must be tts or source")
    o = BuildOptions(
        kind=what,
        source=source,
        out=out,
        preset=preset,
        mapping=ColumnMap.parse(mapping),
        n=n,
        limit=limit,
        seed=seed,
        audio=audio,
        audio_root=audio_root,
        response_tone=response_tone,
        pairs=tuple(p.strip() for p in (pairs or "").split(",") if p.strip()),
        concurrency=concurrency,
        rate_balance=balance,
        dnsmos=dnsmos,
        conflict=conflict,
    )
    if llm is None:
        raise fail("--llm SPEC is required (e.g. openai:gpt-4o or gemini:gemini-2.5-flash)")
    # What the real build would refuse at once, a dry run refuses too.
    from paraudit.compose.llm import LLMSpec
    from paraudit.render.tts import parse_tts_spec

    LLMSpec.parse(llm)
    parse_tts_spec(tts)
    if audio == "source" and audio_root is not None and not audio_root.is_dir():
        raise fail(f"--audio-root {audio_root} is not a folder")
    if max_tries < max_accepted:
        raise fail("--max-tries must be at least --max-accepted")
    if max_tries > MAX_TRIES:
        # Each try is a TTS rendering (a paid call for hosted voices) of one turn.
        raise fail(f"--max-tries {max_tries}: give 1–{MAX_TRIES} renderings per turn")
    if min_dnsmos is not None and not (math.isfinite(min_dnsmos) and 1 <= min_dnsmos <= 5):
        raise fail(f"--min-dnsmos {min_dnsmos:g}: DNSMOS OVRL scores run from 1 to 5; give one")
    if dry_run:
        _dry_run(o, llm, tts, qc, max_accepted, max_tries)
        return
    voicing = {
        "qc": qc,
        "ser": ser,
        "max_accepted": max_accepted,
        "max_tries": max_tries,
        "min_dnsmos_ovrl": min_dnsmos,
    }
    with writing(out, cache):
        run_builder(o, llm, tts, cache, workers, voicing)
    _validate(out)


def run_builder(
    o: BuildOptions,
    llm_spec: str,
    tts_spec: str,
    cache: Path | None,
    workers: int | None,
    voicing: dict[str, Any] | None = None,
) -> BuildResult:
    from paraudit.builders.pipeline import build as run
    from paraudit.builders.voicing import make_voicer
    from paraudit.compose.llm import CompletionCache, ComposerLLM, LLMSpec
    from paraudit.render.renderer import default_cache_dir

    spec = LLMSpec.parse(llm_spec)
    cache_dir = cache or default_cache_dir()
    voicer = make_voicer(tts_spec, cache_dir, workers, **(voicing or {}))
    if not voicer.can_voice("assistant", o.response_tone):
        # Checked before any LLM call: it once failed only after the composition was paid for.
        raise fail(
            f"--response-tone {o.response_tone!r}: the {tts_spec} voice has no such assistant "
            "tone (the default is neutral)"
        )
    store = CompletionCache(cache_dir / "compose.sqlite")
    llm = ComposerLLM(spec, store)
    card: dict[str, Any] = {}

    def written(r: BuildResult) -> None:
        card.update(write_card(o.out, r))

    try:
        with _bar("[bold]{task.description}") as bar:
            result = run(o, llm, voicer, _Bars(bar), written)
    finally:
        store.close()
    _summary(result, card)
    return result
