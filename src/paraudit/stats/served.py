"""Which model answered: the served models per judge × task, and whether accuracy held still.

Two questions, one unit (`SERVED`, an `Analysis`):

1. **Who answered.** Every call records the model the provider's reply names (`model` in a chat
   completion, Gemini's `modelVersion`, a local backend's loaded checkpoint; built-in judges
   name themselves) with its system fingerprint, model version or revision where given. The
   section lists them with their share of the answers. The verdict names "answered by another
   model" when an answer came from a model that is not the one asked for (a dated snapshot of
   the requested alias, `gpt-4o` → `gpt-4o-2024-08-06`, is the same model; `gpt-4o-mini` is
   not), or when more than one model answered within the run. A changing fingerprint alone is
   shown, not named: providers rotate them with routine deployments.

2. **Did it drift.** Providers do not always say when they swap a model. Items are put in call
   order (the minute their first call finished, ties in results order) and split into an
   early and a late half. The statistic is the late half's accuracy minus the early half's
   (scored rows of probes J, P, O, S: right over answered, failed calls left out); its p value
   is a two-sided permutation test that shuffles whole items between positions (items, not
   rows, are exchangeable under stationarity: an item's rows share its difficulty). The runner
   asks items in a seeded shuffled order (runner.plan.asking_order), so under stationarity
   the item order is random by design and the test is exact even on a dataset listed contrast
   by contrast. The verdict names "drifts during the run" at p < `ALPHA` with at least
   `MIN_ITEMS` items, on runs that stored call times; older runs (asked in dataset order, no
   call times) get the figures in results order and no verdict line. What a judge with no
   skill scores on it: nothing — a random, always-first, deaf or skilled judge whose accuracy
   does not depend on when it was asked has the same expected accuracy in both halves, and the
   false-alarm rate is `ALPHA` whatever its accuracy (simulated over such judges, and a drifting
   one for power, in tests/stats/test_served.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from paraudit.stats.analysis import Analysis, GroupContext, Record
from paraudit.stats.model import Behaviour, Estimate
from paraudit.stats.statrow import StatRow

ALPHA = 0.01
"""The drift test's level: one judge × task is one question among the verdict's many."""
PERMUTATIONS = 1000
MIN_ITEMS = 20
"""Fewer items than this: no drift test (halves of under ten items say nothing)."""
SCORED_PROBES = frozenset("JPOS")
"""Probes with a right answer (T has none; N's is about null audio, its own section)."""
QUARTERS = 4
SNAPSHOT = re.compile(
    r"(\d[\d.\-]*|v\d[\w.\-]*|preview([\-.][\w.\-]*)?|exp([\-.][\w.\-]*)?|latest)"
)
"""What may follow a requested alias and still name the same model (a date, a version)."""
TEST = (
    "early vs late half of the items in call order: late − early accuracy, two-sided "
    f"permutation test over whole items ({PERMUTATIONS} permutations), drift at p < {ALPHA:g}"
)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ModelShare(_Model):
    """One model that answered (None: the reply did not say)."""

    model: str | None
    answers: int
    """Rows answered by it (a failed call answered nothing and is not counted)."""
    share: float
    matches_requested: bool | None
    """The requested model or a dated snapshot of it; None when the reply did not say."""
    versions: list[str]
    """Its system fingerprints, model versions or revisions seen (most answers first)."""
    accuracy: float | None = None
    """Scored rows answered by it: right over answered (shown when several models answered)."""
    scored: int = 0
    items: int = 0


class Half(_Model):
    items: int
    scored: int
    correct: int
    accuracy: float | None


class Stationarity(_Model):
    """Accuracy by call order, and the drift test."""

    order: str
    """'call time' (calls' finish times) or 'results order' (runs before call times)."""
    test: str
    items: int
    early: Half
    late: Half
    difference: float | None
    """late − early accuracy."""
    p_value: float | None
    alpha: float
    drift: bool
    quarters: list[Half]
    """Accuracy per quarter of the items in call order (descriptive)."""


class ServedModels(_Model):
    """The served-model section of one judge × task (summary.json `served`)."""

    judge: str
    task: str
    items: int
    requested: str
    """The model the judge's spec asked for."""
    answers: int
    models: list[ModelShare]
    other_model: bool
    """Some answer came from a model that is not the requested one."""
    changed: bool
    """More than one model answered within the run."""
    stationarity: Stationarity | None = None
    """None when fewer than MIN_ITEMS items have scored rows."""


def _spec(judge: str) -> str:
    """The judge's spec without the ' [run label]' a report of several runs gives a judge
    that appears in more than one (stats/rowgroups.py)."""
    return re.sub(r" \[[^\]]*\]$", "", judge)


def requested_model(judge: str) -> str:
    """The model a judge label asks for: `openai:gpt-4o@http://…?temperature=0` → gpt-4o."""
    head = _spec(judge).split("?", 1)[0]
    model = head.split(":", 1)[1] if ":" in head else head
    return model.split("@", 1)[0]


def same_model(requested: str, served: str, judge: str = "") -> bool:
    """Whether `served` is the requested model: equal (case aside, or the judge's own name, as
    built-in judges report it), the same name under another organisation path, or a dated or
    versioned snapshot of the requested alias."""
    req, got = requested.lower().removesuffix("-latest"), served.lower()
    if got in (req, requested.lower(), _spec(judge).split("?", 1)[0].lower()):
        return True
    if got.rsplit("/", 1)[-1] == req.rsplit("/", 1)[-1]:
        return True
    for sep in "-@:":
        if got.startswith(req + sep) and SNAPSHOT.fullmatch(got[len(req) + 1 :]):
            return True
    return False


@lru_cache(maxsize=4)  # a report's groups have a few item counts
def _early_halves(seed: int, permutations: int, n: int) -> np.ndarray:
    """Per permutation, the items that land in the early half. Each permutation needs only
    which items those are: a random subset of n // 2 (argpartition: linear, where a full
    shuffle sorts). They depend only on the seed and the sizes, so a report's groups of one
    item count share them rather than draw the same subsets again."""
    rng = np.random.default_rng(seed)
    early = rng.random((permutations, n)).argpartition(n // 2, axis=1)[:, : n // 2]
    early = early.astype(np.int32 if n < 2**31 else np.intp)  # a compact copy of the half
    early.flags.writeable = False
    return early


def drift_test(
    correct: np.ndarray, scored: np.ndarray, permutations: int = PERMUTATIONS, seed: int = 0
) -> tuple[float | None, float | None]:
    """(late − early accuracy, two-sided permutation p) of per-item counts in call order."""
    n = len(scored)
    half = n // 2
    if n < 2 or scored[:half].sum() == 0 or scored[half:].sum() == 0:
        return None, None

    k_all, s_all = correct.sum(), scored.sum()

    def diff(k_early: np.ndarray, s_early: np.ndarray) -> np.ndarray:
        early = k_early / np.maximum(s_early, 1)
        late = (k_all - k_early) / np.maximum(s_all - s_early, 1)
        return np.asarray(late - early)

    observed = float(diff(correct[:half].sum(), scored[:half].sum()))
    early = _early_halves(seed, permutations, n)
    null = diff(correct[early].sum(1), scored[early].sum(1))
    # The observed split counts as one permutation: p is never 0.
    extreme = int(np.sum(np.abs(null) >= abs(observed) - 1e-12))
    return observed, (1 + extreme) / (1 + permutations)


def _half(k: np.ndarray, s: np.ndarray) -> Half:
    total, right = int(s.sum()), int(k.sum())
    return Half(
        items=len(s), scored=total, correct=right, accuracy=right / total if total else None
    )


Call = tuple[str | None, str | None, int | None] | None
"""A row's StatRow.served_call: (model, version, minute) or None."""
INF = float("inf")
_SERVED_FIELDS = attrgetter("probe", "status", "served_call", "correct", "item_id")
_CALL_KEY = itemgetter(0, 1, 2, 3)


def _model(call: Call) -> str | None:
    return None if call is None else call[0]


class ServedTally:
    """Answers and scores per served call (model, version, minute: a few shared values per
    run), and per item its first call minute, first row and scored counts. `add` runs once
    per row of 500,000-row reports: it does the least per row and leaves the rest to
    `records`."""

    def __init__(self, judge: str, task: str) -> None:
        self.judge, self.task = judge, task
        self.answers: dict[Call, int] = {}
        self.scores: dict[Call, list[int]] = {}
        """call → [right, scored]."""
        self.items: dict[str, list[Any]] = {}
        """item → [first call minute (inf: none), first row index, right, scored, its first
        row's call]."""
        self.mixed: set[tuple[Call, str]] = set()
        """(call, item) for an item's rows whose call differs from its first row's."""
        self.rows = 0

    def add(self, row: StatRow) -> None:
        self.add_rows((row,))

    def add_rows(self, rows: Sequence[StatRow]) -> None:
        answers, scores, items, mixed = self.answers, self.scores, self.items, self.mixed
        # The fields read, fetched in one C call per row (attribute look-ups were most of it).
        fields = list(map(_SERVED_FIELDS, rows))
        start = self.rows
        self.rows += len(rows)
        # Answers and scores per call from the step's few distinct (probe, status, call,
        # correct), counted in C; first-seen order is kept (a key's first row is the first
        # row of its call among the keys that count).
        for (probe, status, call, correct), n in Counter(map(_CALL_KEY, fields)).items():
            if probe == "N" or status == "error":
                continue  # a failed call answered nothing; N rows are null audio's own section
            answers[call] = answers.get(call, 0) + n
            if probe in SCORED_PROBES:
                score = scores.get(call)
                if score is None:
                    score = scores[call] = [0, 0]
                score[0] += correct * n
                score[1] += n
        for at, (probe, status, call, correct, item_id) in enumerate(fields, start + 1):
            if probe not in SCORED_PROBES or status == "error":
                continue
            item = items.get(item_id)
            if item is None:
                minute = INF if call is None or call[2] is None else call[2]
                items[item_id] = [minute, at, correct, 1, call]
                continue
            item[2] += correct
            item[3] += 1
            if call != item[4]:  # the same call tuple means the same minute: nothing to update
                mixed.add((call, item_id))
                if call is not None and call[2] is not None and call[2] < item[0]:
                    item[0] = call[2]

    @property
    def untimed(self) -> bool:
        """Some answer has no call time: the whole group is ordered by results order."""
        return any(c is None or c[2] is None for c in self.answers)

    def records(self, ctx: GroupContext) -> list[Record]:
        total = sum(self.answers.values())
        if not total:
            return []
        requested = requested_model(self.judge)
        by_model: Counter[str | None] = Counter()
        versions: dict[str | None, Counter[str]] = {}
        for call, n in self.answers.items():
            model = _model(call)
            by_model[model] += n
            if call is not None and call[1] is not None:
                versions.setdefault(model, Counter())[call[1]] += n
        scores: dict[str | None, list[int]] = {}
        for call, (right, scored) in self.scores.items():
            got = scores.setdefault(_model(call), [0, 0])
            got[0] += right
            got[1] += scored
        pairs = {(_model(v[4]), item) for item, v in self.items.items()}
        pairs |= {(_model(call), item) for call, item in self.mixed}
        items_of = Counter(model for model, _ in pairs)
        several = len([m for m in by_model if m is not None]) > 1
        shares = []
        for model, n in sorted(by_model.items(), key=lambda kv: (-kv[1], str(kv[0]))):
            right, scored = scores.get(model, [0, 0])
            shares.append(
                ModelShare(
                    model=model,
                    answers=n,
                    share=n / total,
                    matches_requested=None
                    if model is None
                    else same_model(requested, model, self.judge),
                    versions=[v for v, _ in (versions.get(model) or Counter()).most_common()],
                    accuracy=right / scored if several and scored else None,
                    scored=scored,
                    items=items_of[model],
                )
            )
        section = ServedModels(
            judge=self.judge,
            task=self.task,
            items=ctx.items,
            requested=requested,
            answers=total,
            models=shares,
            other_model=any(s.matches_requested is False for s in shares),
            changed=several,
            stationarity=self.stationarity(ctx.seed),
        )
        return [section.model_dump(mode="json")]

    def stationarity(self, seed: int) -> Stationarity | None:
        if len(self.items) < MIN_ITEMS:
            return None
        untimed = self.untimed
        ordered = sorted(self.items.values(), key=lambda v: (v[1] if untimed else v[0], v[1]))
        k = np.array([v[2] for v in ordered])
        s = np.array([v[3] for v in ordered])
        diff, p = drift_test(k, s, seed=seed)
        half = len(s) // 2
        cuts = np.linspace(0, len(s), QUARTERS + 1).astype(int)
        return Stationarity(
            order="results order" if untimed else "call time",
            test=TEST,
            items=len(s),
            early=_half(k[:half], s[:half]),
            late=_half(k[half:], s[half:]),
            difference=diff,
            p_value=p,
            alpha=ALPHA,
            drift=p is not None and p < ALPHA,
            quarters=[_half(k[a:b], s[a:b]) for a, b in zip(cuts[:-1], cuts[1:], strict=True)],
        )


def _name(model: str | None) -> str:
    return model if model is not None else "not said"


def served_text(section: ServedModels) -> str:
    """One line: the models that answered, with their shares."""
    parts = [f"{_name(m.model)} {m.answers:,} ({m.share:.0%})" for m in section.models]
    return f"answered by {', '.join(parts)}; asked for {section.requested}"


def served_behaviours(records: Sequence[Record], ctx: GroupContext) -> list[Behaviour]:
    """'answered by another model' (a model not asked for, or a change of model within the
    run) and 'drifts during the run' (the stationarity test)."""
    out: list[Behaviour] = []
    for raw in records:
        s = ServedModels.model_validate(raw)
        named = [m for m in s.models if m.model is not None]
        if s.other_model or s.changed:
            others = [m for m in named if m.matches_requested is False] or named[1:]
            n = sum(m.answers for m in others)
            what = ", ".join(f"{m.model} on {m.answers:,}" for m in others)
            via = "" if s.other_model else " (the model changed within the run)"
            accs = [f"{_name(m.model)} {m.accuracy:.0%}" for m in named if m.accuracy is not None]
            acc = f"; accuracy by model: {', '.join(accs)}" if len(accs) > 1 else ""
            out.append(
                Behaviour(
                    kind="answered by another model",
                    text=f"answered by another model: {what} of {s.answers:,} answers, asked "
                    f"for {s.requested}{via}{acc}",
                    evidence=Estimate(rate=n / s.answers, items=s.items),
                )
            )
        st = s.stationarity
        # Runs without call times were asked in dataset order: a change there may be the
        # dataset's listing (asking_order), so it is shown, not named.
        timed = st is not None and st.order == "call time"
        if st is not None and timed and st.drift and st.difference is not None:
            early, late = st.early.accuracy or 0.0, st.late.accuracy or 0.0
            out.append(
                Behaviour(
                    kind="drifts during the run",
                    text=f"drifts during the run: accuracy {early:.0%} on the early half of "
                    f"the items in {st.order}, {late:.0%} on the late half (p = "
                    f"{st.p_value:.3g}, permutation test over {st.items} items)",
                    evidence=Estimate(rate=st.difference, items=st.items),
                )
            )
    return out


SERVED = Analysis(
    name="served",
    title="Which model answered",
    start=ServedTally,
    behaviours=served_behaviours,
    report="paraudit.report.served:registered_served_part",
)
