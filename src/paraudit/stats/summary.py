"""Every number of the diagnostic report, computed from result rows only (summary.json).

Schema `paraudit.summary/3`, typed by `stats/summary_model.py` (what the report reads; its
JSON Schema is `stats/summary.schema.json`). Rates are fractions in [0, 1]. Every interval
(`ci_low`, `ci_high`) is 95 % from resampling whole items (B replicates, seeded;
`stats/itemboot.py`); `wilson_low`/`wilson_high` are the paper's per-instance Wilson interval,
kept beside it. Every record carries `items`, the number of items it rests on. Sections, per
judge × task:

- `accuracy` (× probe × protocol × cue, and cue "all"): `n` answered instances (failed calls
  are counted in `errors` and left out; unparsed and refused answers are wrong), `correct`,
  `accuracy` (per instance, as the paper's tables; None when nothing was answered), `parsed`,
  `parsed_accuracy`, `unparsed`, `refused`, `errors`, `orders` (the most presentations —
  response × context orders — any unit was answered in),
  `consistent` (order-consistent accuracy: units right in every order that ran), `chance`
  (what the best deaf guesser scores: ½, `units.chance_level`), `above_chance` (the
  interval's lower end above it) and `decision_low`/`decision_high` (the 99 % interval the
  verdict's steps decide by; differences carry one too).
- `protocol_gap` (× cue): pairwise − pointwise J accuracy on shared items.
- `cue_dependence` (× protocol × cue ∈ soft, hard, transition): J accuracy under the cue − none.
- `staging_minus_oracle` (× protocol): S − O accuracy on shared items.
- `states` (× cue, and "all" pooled): order-consistent (P, O, J) units: `units`, `masses`
  (8 states), `groups` (5), `expected` (the group masses independent P, O, J would give),
  `excess` (groups − expected), `dependence` (per cue: the permutation test of
  `stats/dependence.py`, its groups' units, expected units, z and family-wise p, and
  `over_represented`), `marginals`, `potemkin` = π110 / (π110 + π111) with its
  independence `potemkin_baseline` = 1 − acc(J), and `interpretable` (P, O and J each above
  chance; the report greys the conditional Potemkin rate otherwise).
- `position_bias` (× probe × protocol × cue): share of first-option picks, `direction`
  ('first'/'second' when |share − ½| ≥ 0.4 and the interval excludes ½).
- `behaviour`: audio_sensitivity, pair_accuracy, order_consistency (of the J choice).
- `transcript_control`: T's order_consistency, prefers_branch_0, and j_t_agreement, with its
  answers, unparsed, refused and errors (T has no accuracy row: it has no right answer).
- `perception_turns` (positional × cue, and "all"): per-turn P accuracy.
- `perception_positions` (positional × cue × human-turn position: first / middle / last, and
  "human turn k" per index): P accuracy there and `chance`, what a deaf guesser scores there.
- `order_dependence` (× cue): pointwise J accuracy in response order `ab`, in `ba`, and ab − ba.
- `behaviour_by_cue` (× cue): audio sensitivity, J choice order consistency, J–T agreement.
- `null_audio` (× asked probe P/J × null kind): probe N's confident and no-audio shares, its
  agreement with the real-audio answers and the "answers without audio" flag
  (`stats/null_audio.py`). N rows enter no other section.
- `verdicts`: one per judge × task, the cascade (`stats/verdicts.py`, typed as
  `stats.model.Verdict`).
- `self_consistency` (× probe, sampled judges only: `?samples=N`): questions, items, mean
  agreement of a question's answered draws with its majority (item interval) and the share of
  unanimous questions (`stats/samples.py`).
- `intervals`: how many item-level intervals the summary holds.
- `delivery`: per judge × task, the audio-delivery check (`stats/delivery.py`): calls that sent
  audio, how many the provider's usage counts audio for, none or far too few (flagged), not
  checked (no count in the usage), with the rate and its source.
- `accounting` (× probe × protocol × cue, "all" pooled): every question in exactly one outcome
  — right, wrong, refused, no-audio, unparsed, error — and the accuracy of the answers given
  (`stats/accounting.py`).

- `invariance`, `invariance_voices` (runs on an invariance set), `joined`, `scaffold`,
  `generator_bias` (reports holding such a pair): written only when they hold records.

Every section after `verdicts` here is a registered analysis (`stats/analyses.py`): a unit
whose tally is fed in the group's one pass over its rows (`stats/analysis.py`), or reads the
group's twins, or compares groups and runs once after every group; this module names none of
them.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from operator import attrgetter
from typing import Any

from paraudit.items.twins import MARK
from paraudit.stats import behaviour as bh
from paraudit.stats.accuracy import wilson_interval
from paraudit.stats.analyses import ANALYSES
from paraudit.stats.analysis import Analysis, GroupContext, Runs, Tally
from paraudit.stats.bootstrap import DEFAULT_B
from paraudit.stats.delivery import DeliveryCell
from paraudit.stats.dependence import ALPHA, PERMUTATIONS, dependence_test
from paraudit.stats.itemboot import Estimate, Sheet
from paraudit.stats.model import Behaviour
from paraudit.stats.state_section import state_row
from paraudit.stats.states import STATES
from paraudit.stats.strata import Attributes
from paraudit.stats.units import (
    FIRST_LABELS,
    Row,
    branch_of,
    chance_level,
    first_picks,
    turn_hits,
)
from paraudit.stats.verdicts import (
    DECISION_CONFIDENCE,
    Evidence,
    native_cue,
    position_direction,
    verdict,
)

SCHEMA = "paraudit.summary/3"
CORE_SECTIONS = (
    "accuracy",
    "protocol_gap",
    "cue_dependence",
    "staging_minus_oracle",
    "states",
    "position_bias",
    "behaviour",
    "transcript_control",
    "perception_turns",
    "perception_positions",
    "order_dependence",
    "behaviour_by_cue",
    "verdicts",
)
SECTIONS = CORE_SECTIONS + tuple(s for a in ANALYSES for s in a.sections)
"""Every section summarize() writes: the core's, then each registered analysis's (an
`optional` one only when it holds records)."""
OPTIONAL = frozenset(s for a in ANALYSES if a.optional for s in a.sections)
"""Sections written only when they hold records (absent from summaries of other runs)."""
CUE_ORDER = {c: i for i, c in enumerate(("none", "soft", "hard", "transition", "all"))}


def wants(tally: Tally, key: tuple[str, str, str]) -> bool:
    """Whether a tally reads the rows of a (probe, protocol, cue) (its optional `wants`)."""
    check = getattr(tally, "wants", None)
    return check is None or bool(check(*key))


def _cue_key(c: str) -> tuple[int, str]:
    return (CUE_ORDER.get(c, 9), c)


class _Cell:
    """Tallies of one judge × task × probe × protocol × cue."""

    def __init__(self) -> None:
        self.k: dict[str, float] = defaultdict(float)
        self.n: dict[str, float] = defaultdict(float)
        self.ck: dict[str, float] = defaultdict(float)
        self.cn: dict[str, float] = defaultdict(float)
        self.parsed = self.unparsed = self.refused = self.errors = 0
        self.chance = 0.0
        self.orders = 0
        """The most presentations (response × context orders) any unit was answered in."""
        self.position: bh.Tally = bh.new_tally()

    def add(self, other: _Cell) -> None:
        """Pool another cue's tallies into this one (the "all" cue)."""
        for mine, theirs in ((self.k, other.k), (self.n, other.n), (self.ck, other.ck)):
            for item, v in theirs.items():
                mine[item] += v
        for item, v in other.cn.items():
            self.cn[item] += v
        self.parsed += other.parsed
        self.unparsed += other.unparsed
        self.refused += other.refused
        self.errors += other.errors
        self.chance += other.chance
        self.orders = max(self.orders, other.orders)


class _Group:
    """All statistics of one judge × task: tallies first, then one resampling of its items."""

    def __init__(
        self, judge: str, task: str, rows: Iterable[Row], seed: int = 0,
        permutations: int = PERMUTATIONS,
    ) -> None:  # fmt: skip
        self.judge, self.task, self.rows = judge, task, rows
        self.seed, self.permutations = seed, permutations
        # The items, and the probes present (a unit may start only where its probes are), in
        # one pass that runs in C (a Python loop here cost a tenth of the whole tally).
        pairs = set(map(attrgetter("item_id", "probe"), rows))
        self.probes: set[str] = {p for _, p in pairs}
        self.sheet = Sheet(i for i, _ in pairs)
        self.pending: list[tuple[dict[str, Any], str, int]] = []
        self.t_answers: dict[str, int] = {"answers": 0, "unparsed": 0, "refused": 0, "errors": 0}
        self.cells: dict[tuple[str, str, str], _Cell] = defaultdict(_Cell)
        self.units: dict[tuple[str, str, str, int | None, str], list[int]] = defaultdict(
            lambda: [0, 0]
        )

    def start(self, analyses: Iterable[Analysis], inputs: Mapping[str, Any]) -> dict[str, Tally]:
        """A fresh tally per registered analysis that applies to this group."""
        return {
            a.name: a.start(self.judge, self.task)
            for a in analyses
            if not a.across
            and (a.probes is None or a.probes & self.probes)
            and (a.input is None or inputs.get(a.input) is not None)
        }

    # -- asking for statistics -------------------------------------------------------------
    def ask(self, target: dict[str, Any], key: str, handle: int) -> None:
        self.pending.append((target, key, handle))

    def ratio(self, target: dict[str, Any], key: str, tally: bh.Tally) -> None:
        num = self.sheet.column({i: v[0] for i, v in tally.items()})
        den = self.sheet.column({i: v[1] for i, v in tally.items()})
        self.ask(target, key, self.sheet.ratio(num, den))

    def _cols(self, k: dict[str, float], n: dict[str, float]) -> tuple[int, int]:
        return self.sheet.column(k), self.sheet.column(n)

    # -- tallies -----------------------------------------------------------------------------
    def tally(self, units_fed: Iterable[Tally] = ()) -> None:
        """One pass over the rows: cells per real cue, units, first picks, per-turn P; every
        row is also fed to each registered analysis's tally (`units_fed`)."""
        units_fed = list(units_fed)
        fed = [t for t in units_fed if getattr(t, "reads_rows", True)]
        # Which tallies read a (probe, protocol, cue): decided once per key, not per row (a
        # tally that reads one cue of one probe is then not called on the other rows at all).
        route: dict[tuple[str, str, str], list[Callable[[Row], None]]] = {}
        # A tie item (the ties preset: the right answer is "tie") is read only by the units
        # that say so (stats/ties.py); every other figure is about items the audio decides.
        tie_feed = [t.add for t in units_fed if getattr(t, "reads_ties", False)]
        cells, units = self.cells, self.units
        self.position: dict[tuple[str, str, str], bh.Tally] = defaultdict(bh.new_tally)
        self.turns: dict[str, bh.Tally] = defaultdict(bh.new_tally)
        # J pointwise accuracy per response order (order dependence), per (cue, order).
        self.order_cells: dict[tuple[str, str], bh.Tally] = defaultdict(bh.new_tally)
        # Positional P per human-turn position, and each turn's labels across branches (a turn
        # whose emotion is the same in both branches is one a deaf guesser can get right).
        self.positions: dict[tuple[str, str], bh.Tally] = defaultdict(bh.new_tally)
        self.turn_labels: dict[tuple[str, str, str, str], dict[int, str]] = {}
        self.j_point: list[Row] = []
        self.t_rows: list[Row] = []
        # Units with a failed call: whether they are right "in every order" is unknown, so they
        # are left out of order-consistent figures (and states) rather than judged on the
        # orders that happened to answer.
        incomplete: set[tuple[str, str, str, int | None, str]] = set()
        rows_seen = failed = 0
        turns, order_cells = self.turns, self.order_cells
        j_point, t_rows = self.j_point, self.t_rows
        for r in self.rows:
            # The fields by position, once (a StatRow is a tuple; see statrow.FIELDS): this loop
            # runs once per row of the group and attribute look-ups were a large share of it.
            _, _, item, branch, probe, proto, cue, order, pred, gold, status, correct = r[:12]
            if gold == "tie":
                for add in tie_feed:
                    add(r)
                continue
            key = (probe, proto, cue)
            feed = route.get(key)
            if feed is None:
                feed = route[key] = [t.add for t in fed if wants(t, key)]
            for add in feed:
                add(r)
            if probe == "N":  # null audio: only its own unit reads N rows
                continue
            rows_seen += 1
            c = cells[key]
            if status == "error":
                failed += 1
                c.errors += 1
                incomplete.add((probe, proto, cue, branch, item))
                continue
            right = bool(correct)
            c.n[item] += 1
            c.k[item] += right
            u = units[(probe, proto, cue, branch, item)]
            u[0] += 1
            u[1] += right
            if isinstance(gold, dict) and "CA" not in gold:
                c.chance += chance_level(r)
                hits = turn_hits(r)
                if hits is not None:
                    t = turns[cue][item]
                    t[0] += hits[0]
                    t[1] += hits[1]
                    self._turn_positions(r, cue, item)
            else:
                c.chance += 0.5
            if status == "ok":
                c.parsed += 1
                # The common case inline (a choice), the rest through first_picks.
                fp = (float(pred in FIRST_LABELS), 1.0) if type(pred) is str else first_picks(r)
                if fp is not None:
                    t = c.position[item]
                    t[0] += fp[0]
                    t[1] += fp[1]
            elif status == "unparsed":
                c.unparsed += 1
            elif status == "refused":
                c.refused += 1
            if proto == "pointwise" and branch is not None:
                if probe == "J":
                    j_point.append(r)
                    t = order_cells[(cue, order)][item]
                    t[0] += right
                    t[1] += 1
                elif probe == "T":
                    t_rows.append(r)
        self.rows_seen, self.failed = rows_seen, failed
        for key in incomplete:
            units.pop(key, None)
        for (probe, proto, cue, _, item), (n, k) in units.items():
            c = cells[(probe, proto, cue)]
            c.cn[item] += 1
            c.ck[item] += n == k
            c.orders = max(c.orders, n)
        for (probe, proto, cue), c in cells.items():
            if c.position:
                self.position[(probe, proto, cue)] = c.position
        for (probe, proto, cue), c in list(cells.items()):
            # The misleading cue pulls against the audio: pooled into "all" it would read as
            # lost skill; it has its own section (stats/pressure.py).
            if cue not in ("all", "misleading"):
                cells[(probe, proto, "all")].add(c)
        for per_cue in list(self.turns.values()):
            bh.merge(self.turns["all"], per_cue)

    def _turn_positions(self, r: Row, cue: str, item: str) -> None:
        """Per human-turn position (first / middle / last) hits of one trajectory answer."""
        gold = r.gold
        if not isinstance(gold, dict):  # the caller passes trajectory rows only
            return
        pred = r.pred if r.status == "ok" and isinstance(r.pred, dict) else {}
        keys = sorted(gold, key=lambda k: int(str(k)[1:]) if str(k)[1:].isdigit() else 0)
        for i, k in enumerate(keys):
            pos = "first" if i == 0 else "last" if i == len(keys) - 1 else "middle"
            for where in (pos, f"human turn {i + 1}"):
                t = self.positions[(cue, where)][item]
                t[0] += pred.get(k) == gold[k]
                t[1] += 1
                labels = self.turn_labels.setdefault((item, cue, r.order, where + ":" + k), {})
                labels[branch_of(r)] = gold[k]

    def position_chance(self) -> dict[tuple[str, str], bh.Tally]:
        """Per (cue, position), per item: what a deaf guesser scores (1 on a turn whose
        emotion both branches share, ½ where they differ or only one branch ran)."""
        out: dict[tuple[str, str], bh.Tally] = defaultdict(bh.new_tally)
        for (item, cue, _, key), labels in self.turn_labels.items():
            same = len(labels) == 2 and len(set(labels.values())) == 1
            t = out[(cue, key.split(":", 1)[0])][item]
            t[0] += 1.0 if same else 0.5
            t[1] += 1
        return out

    # -- sections ------------------------------------------------------------------------------
    def accuracy(self) -> list[dict[str, Any]]:
        out = []
        self.acc_cols: dict[tuple[str, str, str], tuple[int, int]] = {}
        for (probe, proto, cue), c in sorted(
            self.cells.items(), key=lambda kv: (kv[0][0], kv[0][1], _cue_key(kv[0][2]))
        ):
            n, k = int(sum(c.n.values())), int(sum(c.k.values()))
            if probe == "T":
                # Same words for both branches: no right answer, so no accuracy (its
                # preference is in transcript_control); its failed answers are counted there.
                if cue == "all":
                    self.t_answers = {"answers": n, "unparsed": c.unparsed,
                                      "refused": c.refused, "errors": c.errors}  # fmt: skip
                continue
            lo, hi = wilson_interval(k, n) if n else (None, None)
            row: dict[str, Any] = {
                "judge": self.judge,
                "task": self.task,
                "probe": probe,
                "protocol": proto,
                "cue": cue,
                "n": n,
                "correct": k,
                "wilson_low": lo,
                "wilson_high": hi,
                "parsed": c.parsed,
                "parsed_accuracy": k / c.parsed if c.parsed else None,
                "unparsed": c.unparsed,
                "unparsed_rate": c.unparsed / n if n else None,
                "refused": c.refused,
                "errors": c.errors,
                "orders": c.orders,
                "chance": c.chance / n if n else None,
                "consistent": {"units": int(sum(c.cn.values()))},
            }
            cols = self._cols(c.k, c.n)
            self.acc_cols[(probe, proto, cue)] = cols
            self.ask(row, "_acc", self.sheet.ratio(*cols))
            self.ask(row, "_decision", self.sheet.ratio(*cols, confidence=DECISION_CONFIDENCE))
            self.ask(row["consistent"], "_est", self.sheet.ratio(*self._cols(c.ck, c.cn)))
            out.append(row)
        return out

    def differences(self) -> tuple[list[dict[str, Any]], ...]:
        gaps, cues, staging = [], [], []

        def diff(
            a: tuple[str, str, str], b: tuple[str, str, str], **extra: str
        ) -> dict[str, Any] | None:
            if a not in self.acc_cols or b not in self.acc_cols:
                return None
            (ka, na), (kb, nb) = self.acc_cols[a], self.acc_cols[b]
            shared = self.sheet.present(na) & self.sheet.present(nb)
            if not shared.any():
                return None
            cols_a = (self.sheet.restricted(ka, shared), self.sheet.restricted(na, shared))
            cols_b = (self.sheet.restricted(kb, shared), self.sheet.restricted(nb, shared))
            d: dict[str, Any] = {"judge": self.judge, "task": self.task, **extra}
            self.ask(d, "_diff", self.sheet.difference(cols_a, cols_b, int(shared.sum())))
            self.ask(d, "_decision", self.sheet.difference(
                cols_a, cols_b, int(shared.sum()), DECISION_CONFIDENCE))  # fmt: skip
            return d

        j_cues = sorted({c for p, _, c in self.cells if p == "J"}, key=_cue_key)
        for cue in j_cues:
            d = diff(("J", "pairwise", cue), ("J", "pointwise", cue), cue=cue)
            if d:
                gaps.append(d)
        for proto in ("pointwise", "pairwise"):
            for cue in ("soft", "hard", "transition"):
                d = diff(("J", proto, cue), ("J", proto, "none"), protocol=proto, cue=cue)
                if d:
                    cues.append(d)
            d = diff(("S", proto, "all"), ("O", proto, "all"), protocol=proto)
            if d:
                staging.append(d)
        return gaps, cues, staging

    def order_dependence(self) -> list[dict[str, Any]]:
        """Per cue: pointwise J accuracy in response order ab, in ba, and ab − ba (paired)."""
        out = []
        for cue in sorted({c for c, _ in self.order_cells}, key=_cue_key):
            if (cue, "ab") not in self.order_cells or (cue, "ba") not in self.order_cells:
                continue
            cols = {}
            for order in ("ab", "ba"):
                t = self.order_cells[(cue, order)]
                cols[order] = (
                    self.sheet.column({i: v[0] for i, v in t.items()}),
                    self.sheet.column({i: v[1] for i, v in t.items()}),
                )
            rec: dict[str, Any] = {
                "judge": self.judge, "task": self.task, "probe": "J", "protocol": "pointwise",
                "cue": cue, "ab": {}, "ba": {},
            }  # fmt: skip
            shared = self.sheet.present(cols["ab"][1]) & self.sheet.present(cols["ba"][1])
            for order in ("ab", "ba"):
                self.ask(rec[order], "_share", self.sheet.ratio(*cols[order]))
            a = tuple(self.sheet.restricted(c, shared) for c in cols["ab"])
            b = tuple(self.sheet.restricted(c, shared) for c in cols["ba"])
            self.ask(rec, "_diff", self.sheet.difference(a, b, int(shared.sum())))  # type: ignore[arg-type]
            out.append(rec)
        return out

    def perception_positions(self) -> list[dict[str, Any]]:
        """Positional P per cue and human-turn position, with what a deaf guesser scores."""
        chance = self.position_chance()
        out = []
        rank = {"first": 0, "middle": 1, "last": 2}
        for cue, pos in sorted(
            self.positions, key=lambda k: (_cue_key(k[0]), rank.get(k[1], 3), k[1])
        ):
            rec: dict[str, Any] = {"judge": self.judge, "task": self.task, "cue": cue,
                                   "position": pos}  # fmt: skip
            self.ratio(rec, "_share", self.positions[(cue, pos)])
            ch = chance[(cue, pos)]
            rec["chance"] = sum(v[0] for v in ch.values()) / max(
                1.0, sum(v[1] for v in ch.values())
            )
            out.append(rec)
        return out

    def states(self) -> list[dict[str, Any]]:
        consistent = {k: n == c for k, (n, c) in self.units.items() if k[1] == "pointwise"}
        counts: dict[str, dict[str, dict[str, float]]] = defaultdict(
            lambda: {s: defaultdict(float) for s in (*STATES, "total")}
        )
        triples: dict[str, list[tuple[str, int, int, int]]] = defaultdict(list)
        for (probe, _, cue, branch, item), j in consistent.items():
            if probe != "J" or branch is None:
                continue
            p = consistent.get(("P", "pointwise", cue, branch, item))
            o = consistent.get(("O", "pointwise", cue, branch, item))
            if p is None or o is None:
                continue
            state = f"{int(p)}{int(o)}{int(j)}"
            for c in (cue, "all"):
                counts[c][state][item] += 1
                counts[c]["total"][item] += 1
            triples[cue].append((item, int(p), int(o), int(j)))
        out = []
        for cue in sorted(counts, key=_cue_key):
            row = state_row(self.sheet, self.ask, self.judge, self.task, cue, counts[cue])
            if cue != "all":
                # Per cue only: pooling cues would count one item's units several times.
                row["dependence"] = dependence_test(
                    triples[cue], permutations=self.permutations, seed=self.seed
                )
            out.append(row)
        return out

    def rates(self) -> dict[str, Any]:
        base = {"judge": self.judge, "task": self.task}
        # Per cue first; the pooled rates are their merge (each tally is keyed by cue inside,
        # so merging per-cue tallies equals one pass over all cues), not a second pass.
        by_rows: dict[str, list[Row]] = defaultdict(list)
        for r in self.j_point:
            by_rows[r.cue].append(r)
        flips, pairs, consistency, agreement = (bh.new_tally() for _ in range(4))
        by_cue = []
        for cue in sorted(by_rows, key=_cue_key):
            js = by_rows[cue]
            # T under the same cue when it ran there (its prompt carries the cue too).
            ts = [r for r in self.t_rows if r.cue == cue] or self.t_rows
            f, pa = bh.audio_and_pairs(js)
            oc = bh.choice_order_consistency(js)
            jt = bh.j_t_agreement(ts, js)
            for into, t in ((flips, f), (pairs, pa), (consistency, oc), (agreement, jt)):
                bh.merge(into, t)
            rec = {**base, "cue": cue}
            self.ratio(rec, "audio_sensitivity", f)
            self.ratio(rec, "order_consistency", oc)
            self.ratio(rec, "j_t_agreement", jt)
            by_cue.append(rec)
        behaviour: dict[str, Any] = dict(base)
        self.ratio(behaviour, "audio_sensitivity", flips)
        self.ratio(behaviour, "pair_accuracy", pairs)
        self.ratio(behaviour, "order_consistency", consistency)
        position = []
        for (probe, proto, cue), t in sorted(
            self.position.items(),
            key=lambda kv: (kv[0][0], kv[0][1], _cue_key(kv[0][2])),
        ):
            rec = {**base, "probe": probe, "protocol": proto, "cue": cue}
            self.ratio(rec, "_share", t)
            position.append(rec)
        control: dict[str, Any] = {**base, **self.t_answers}
        t_only = bh.transcript_control(self.t_rows)
        t_only["j_t_agreement"] = agreement
        for name, t in t_only.items():
            self.ratio(control, name, t)
        turns = []
        for cue, t in sorted(self.turns.items(), key=lambda kv: _cue_key(kv[0])):
            rec = {**base, "cue": cue}
            self.ratio(rec, "_turns", t)
            turns.append(rec)
        return {
            "behaviour": behaviour,
            "position_bias": position,
            "transcript_control": control,
            "perception_turns": turns,
            "behaviour_by_cue": by_cue,
        }

    def resolve(self, replicates: int, seed: int) -> int:
        """Evaluate every statistic asked and write it into its record; returns the number of
        intervals written."""
        estimates = self.sheet.evaluate(replicates, seed)
        shown = 0
        for target, key, handle in self.pending:
            e: Estimate = estimates[handle]
            # Decision intervals (99 %) are what verdicts decide by; the report shows the 95 %.
            shown += e.low is not None and key != "_decision"
            if key == "_acc":
                target.update(accuracy=e.value, ci_low=e.low, ci_high=e.high, items=e.items)
            elif key == "_diff":
                target.update(delta=e.value, ci_low=e.low, ci_high=e.high, items=e.items)
            elif key == "_decision":
                target.update(decision_low=e.low, decision_high=e.high)
            elif key in ("_share", "_turns", "_est"):
                target.update(e.as_dict())
            else:
                target[key] = e.as_dict()
        return shown


def _finish_accuracy(rows: list[dict[str, Any]]) -> None:
    for a in rows:
        a["above_chance"] = (
            a["ci_low"] is not None and a["chance"] is not None and a["ci_low"] > a["chance"]
        )


def summarize(
    rows: list[Row], *, replicates: int = DEFAULT_B, seed: int = 0,
    permutations: int = PERMUTATIONS,
    delivery: Mapping[tuple[str, str], DeliveryCell] | None = None,
    attributes: Attributes | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Every statistic of the report (see the module docstring for the schema). `delivery`:
    the audio-delivery check per judge × task, from the calls' usage, which a StatRow does not
    carry (`delivery.tally_rows(result_rows).cells()`; runs read by rowgroups tally it there)."""
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    twins: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for r in rows:  # invariance twins only enter the invariance sections (stats/invariance.py)
        (twins if MARK in r.item_id else groups)[(r.judge, r.task)].append(r)
    ordered = [(judge, task, rs) for (judge, task), rs in sorted(groups.items())]
    return summarize_groups(
        ordered,
        replicates=replicates,
        seed=seed,
        permutations=permutations,
        delivery=delivery,
        attributes=attributes,
        twins=twins,
        runs=Runs(
            tuple(sorted({j for j, _ in groups})), lambda: (r for *_, g in ordered for r in g)
        ),
    )


def summarize_groups(
    groups: Iterable[tuple[str, str, Iterable[Row]]],
    *,
    replicates: int = DEFAULT_B,
    seed: int = 0,
    permutations: int = PERMUTATIONS,
    delivery: Mapping[tuple[str, str], DeliveryCell] | None = None,
    attributes: Attributes | None = None,
    twins: Mapping[tuple[str, str], Iterable[Row]] | None = None,
    runs: Runs | None = None,
) -> dict[str, Any]:
    """summarize() over rows given per judge × task (each group's rows are iterated twice and
    may be rebuilt on each pass: stats/rowgroups.py keeps a million rows compact that way).
    `delivery`: the audio-delivery check per judge × task (RowGroups.delivery.cells());
    `twins`: the rows of invariance twins per judge × task, kept out of the groups
    (RowGroups.twins; a twin is asked right after its original, so its group is there);
    `runs`: what the units that compare groups or runs read (stats/analysis.py's `across`)."""
    # The tallies allocate many small containers while hundreds of thousands of row dicts are
    # alive; the cyclic garbage collector would rescan all of them again and again (measured:
    # 2–3x the whole tally). Nothing here makes reference cycles, so it is paused meanwhile.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _summarize(groups, replicates, seed, permutations, delivery or {},
                          attributes or {}, twins or {}, runs)  # fmt: skip
    finally:
        if paused:
            gc.enable()


def _unit_behaviours(
    sections: Mapping[str, list[dict[str, Any]]], ctx: GroupContext
) -> tuple[list[Behaviour], dict[str, list[Behaviour]]]:
    """Each registered analysis's behaviours, in the registry's order: those the cascade
    weighs, and those set aside (by the unit's `aside`)."""
    weighed: list[Behaviour] = []
    aside: dict[str, list[Behaviour]] = {}
    for a in ANALYSES:
        if a.name in sections:
            found = a.behaviours(sections[a.name], ctx)
            if a.aside is None:
                weighed += found
            elif found:
                aside[a.aside] = found
    return weighed, aside


def _put(out: dict[str, Any], a: Analysis, sections: Mapping[str, list[dict[str, Any]]]) -> int:
    """Append a unit's records to its sections (an `optional` one only when it has some);
    returns the item-level intervals they hold."""
    for name in a.sections:
        records = sections.get(name, [])
        if records or not a.optional:
            out.setdefault(name, []).extend(records)
    return a.intervals(sections.get(a.name, []))


def _summarize(
    groups: Iterable[tuple[str, str, Iterable[Row]]], replicates: int, seed: int,
    permutations: int, delivery: Mapping[tuple[str, str], DeliveryCell],
    attributes: Attributes, twins: Mapping[tuple[str, str], Iterable[Row]], runs: Runs | None,
) -> dict[str, Any]:  # fmt: skip
    # Every section, even with no group (an `optional` one only once it has records: _put).
    out: dict[str, Any] = {s: [] for s in SECTIONS if s not in OPTIONAL}
    intervals = 0
    judges: set[str] = set()
    for judge, task, rs in groups:
        judges.add(judge)
        g = _Group(judge, task, rs, seed, permutations)
        inputs = {"delivery": delivery.get((judge, task)), "invariance": twins.get((judge, task))}
        tallies = g.start(ANALYSES, inputs)
        g.tally(tallies.values())
        accuracy = g.accuracy()
        gaps, cues, staging = g.differences()
        order_dep = g.order_dependence()
        positions = g.perception_positions()
        states = g.states()
        rates = g.rates()
        intervals += g.resolve(replicates, seed)
        _finish_accuracy(accuracy)
        acc = {(a["probe"], a["protocol"], a["cue"]): a for a in accuracy}
        for s in states:
            weak = [
                p
                for p in "POJ"
                if not acc.get((p, "pointwise", s["cue"]), {}).get("above_chance", False)
            ]
            s["interpretable"] = not weak
            s["not_above_chance"] = weak
        for p in rates["position_bias"]:
            p["direction"] = position_direction(p)
        by_position: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for rec in positions:
            by_position[rec["cue"]].append(rec)
        mine = {i: a for (t, i), a in attributes.items() if t == task}
        ctx = GroupContext(judge=judge, task=task, items=len(g.sheet.items),
                           replicates=replicates, seed=seed, accuracy=acc,
                           inputs=inputs, attributes=mine)  # fmt: skip
        sections: dict[str, list[dict[str, Any]]] = {}
        for name, t in tallies.items():
            sections[name] = t.records(ctx)
            more = getattr(t, "companions", None)  # a unit's further sections
            if more is not None:
                sections.update(more())
        evidence = Evidence(
            judge=judge,
            task=task,
            items=len(g.sheet.items),
            accuracy=acc,
            gaps={d["cue"]: d for d in gaps},
            cue_dependence={(d["protocol"], d["cue"]): d for d in cues},
            states={s["cue"]: s for s in states},
            position=[p for p in rates["position_bias"] if p["direction"]],
            behaviour={b["cue"]: b for b in rates["behaviour_by_cue"]},
            order_gap={d["cue"]: d for d in order_dep},
            turn_positions=dict(by_position),
            failed_calls=(g.failed, g.rows_seen),
            sections=sections,
        )
        ctx = replace(ctx, native_cue=native_cue(evidence))
        evidence.unit_behaviours, evidence.unit_asides = _unit_behaviours(sections, ctx)
        out["verdicts"].append(verdict(evidence).model_dump(mode="json"))
        out["accuracy"] += accuracy
        out["protocol_gap"] += gaps
        out["cue_dependence"] += cues
        out["staging_minus_oracle"] += staging
        out["states"] += states
        out["position_bias"] += rates["position_bias"]
        out["behaviour"].append(rates["behaviour"])
        out["transcript_control"].append(rates["transcript_control"])
        out["perception_turns"] += rates["perception_turns"]
        out["perception_positions"] += positions
        out["order_dependence"] += order_dep
        out["behaviour_by_cue"] += rates["behaviour_by_cue"]
        for a in ANALYSES:
            intervals += _put(out, a, sections)
    # The units that compare groups or runs, once, after every group.
    ctx = GroupContext(judge="", task="", items=0, replicates=replicates, seed=seed,
                       inputs={"runs": runs})  # fmt: skip
    for a in ANALYSES:
        if a.across:
            intervals += _put(out, a, {a.name: a.start("", "").records(ctx)})
    return {
        "schema": SCHEMA,
        "judges": sorted(judges),
        "bootstrap": {"replicates": replicates, "seed": seed, "unit": "item"},
        "dependence": {
            "test": "item-block permutation, max-z over groups",
            "permutations": permutations,
            "alpha": ALPHA,
        },  # fmt: skip
        "intervals": intervals,
        **out,
    }
