"""Seeded assignment of stimuli to annotators.

Every annotator's list, in the order it is shown, is drawn from one seed:

- **overlap**: `overlap` stimuli (item + branch) shared by every annotator, for agreement;
- **own**: `per_annotator − overlap` further items, dealt round-robin from a shuffled pool so
  annotators cover different items while the pool lasts (then the pool is dealt again);
  each with a seeded branch;
- **repeat**: `repeats` of the annotator's own or overlap stimuli shown a second time, at least
  a few places after the first, for intra-rater consistency (not scored for accuracy);
- **catch**: `catch` attention checks. Rule: a catch stimulus plays the context of an item in
  one of its branches and offers that branch's response beside the response of a *different*
  item (the foil). The foil answers another conversation, so anyone who reads the two responses
  picks the right one; a wrong pick means the annotator was not attending. Catch answers are
  reported on their own and never enter accuracy or agreement.

No annotator hears both branches of one item (that would turn the native pointwise question
into a pairwise comparison). Response order ('ab': Response 1 is branch 0's; for a catch item,
Response 1 is the item's own response) is a seeded coin per annotator and stimulus, recorded.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from paraudit.errors import ParauditError
from paraudit.items.records import AuditItem

TaskKind = Literal["own", "overlap", "repeat", "catch"]
MIN_REPEAT_GAP = 3


@dataclass(frozen=True)
class StudyConfig:
    """The options that define a study; a store refuses to reopen with different ones."""

    annotators: tuple[str, ...]
    per_annotator: int = 50
    """Scored stimuli per annotator (own + overlap); repeats and catch items come on top."""
    overlap: int = 10
    repeats: int = 3
    catch: int = 3
    tasks: tuple[str, ...] = ()
    """Tasks to draw from; empty = every task of the dataset."""
    seed: int = 0
    min_listen: float = 0.9
    """Share of each clip's duration that must pass between its play and ended events."""


@dataclass(frozen=True)
class Assigned:
    """One stimulus in one annotator's list."""

    annotator: str
    seq: int
    """Position in the annotator's list (0-based)."""
    item_id: str
    task: str
    branch: int
    kind: TaskKind
    order: str
    """'ab' or 'ba' (see the module docstring)."""
    foil_item: str | None = None
    """Catch items only: the item whose response is the foil."""
    foil_branch: int | None = None
    repeat_of: int | None = None
    """Repeats only: seq of the first showing."""


def parse_annotators(spec: str) -> tuple[str, ...]:
    """'5' → a1…a5; 'alice,bob' → those names (letters, digits, '-', '_', '.')."""
    spec = spec.strip()
    if spec.isdigit():
        n = int(spec)
        if not 1 <= n <= 500:
            raise ParauditError(f"--annotators {spec}: give 1 to 500 annotators")
        return tuple(f"a{i + 1}" for i in range(n))
    if spec.lstrip("+-").isdigit():  # '-3', '+2': a count gone wrong, not a name
        raise ParauditError(f"--annotators {spec}: give 1 to 500 annotators")
    names = tuple(s.strip() for s in spec.split(",") if s.strip())
    bad = [n for n in names if not n.replace("-", "").replace("_", "").replace(".", "").isalnum()]
    bad += [n for n in names if n[0] in "-_."]  # '-3' reads as an option, not a person
    if not names or bad:
        raise ParauditError(
            f"--annotators {spec!r}: give a count or comma-separated names "
            "(letters, digits, '-', '_', '.')"
        )
    if len(set(names)) != len(names):
        raise ParauditError(f"--annotators {spec!r}: a name appears twice")
    return names


def _check(cfg: StudyConfig, pool: list[AuditItem]) -> None:
    if cfg.per_annotator < 1:
        raise ParauditError("--per-annotator must be at least 1")
    if not 0 <= cfg.overlap <= cfg.per_annotator:
        raise ParauditError("--overlap must be between 0 and --per-annotator")
    if cfg.repeats < 0 or cfg.catch < 0:
        raise ParauditError("--repeats and --catch cannot be negative")
    if cfg.repeats > cfg.per_annotator:
        raise ParauditError("--repeats cannot exceed --per-annotator")
    if not 0.0 <= cfg.min_listen <= 1.0:
        raise ParauditError("--min-listen must be between 0 and 1")
    if not pool:
        raise ParauditError("no items of the requested tasks in the dataset")
    if cfg.per_annotator > len(pool):
        raise ParauditError(
            f"--per-annotator {cfg.per_annotator} exceeds the {len(pool)} items available "
            "(an annotator hears each item once)"
        )
    if cfg.catch and len(pool) < 2:
        raise ParauditError("catch items need at least two items (the foil is another item)")
    most = max(len(pool), StudyConfig.catch)  # the default stays valid on a tiny dataset
    if cfg.catch > most:
        # 1000 attention checks on 8 items would replay the same few items again and again.
        raise ParauditError(
            f"--catch {cfg.catch} exceeds the {len(pool)} items available (each catch item "
            f"plays one item against another's response); give at most {most}"
        )


def assign(items: tuple[AuditItem, ...], cfg: StudyConfig) -> list[Assigned]:
    """Every annotator's list, in showing order (deterministic in cfg.seed)."""
    pool = [it for it in items if not cfg.tasks or it.task in cfg.tasks]
    _check(cfg, pool)
    rng = random.Random(cfg.seed)
    shuffled = pool[:]
    rng.shuffle(shuffled)
    overlap = [(it, rng.randrange(2)) for it in shuffled[: cfg.overlap]]
    rest = shuffled[cfg.overlap :] or shuffled
    n_own = cfg.per_annotator - cfg.overlap
    out: list[Assigned] = []
    cursor = 0
    for name in cfg.annotators:
        taken = {it.id for it, _ in overlap}
        own: list[tuple[AuditItem, int]] = []
        guard = 0
        while len(own) < n_own and guard < 2 * len(rest) + n_own:
            it = rest[cursor % len(rest)]
            cursor += 1
            guard += 1
            if it.id not in taken:
                taken.add(it.id)
                own.append((it, rng.randrange(2)))
        out += _one_list(name, overlap, own, pool, cfg, rng)
    return out


@dataclass
class _Entry:
    item: AuditItem
    branch: int
    kind: TaskKind
    foil: AuditItem | None = None
    foil_branch: int | None = None
    source: _Entry | None = None


def _one_list(
    name: str,
    overlap: list[tuple[AuditItem, int]],
    own: list[tuple[AuditItem, int]],
    pool: list[AuditItem],
    cfg: StudyConfig,
    rng: random.Random,
) -> list[Assigned]:
    entries = [_Entry(it, b, "overlap") for it, b in overlap] + [
        _Entry(it, b, "own") for it, b in own
    ]
    heard = {e.item.id: e.branch for e in entries}
    unused = [it for it in pool if it.id not in heard]
    for _ in range(cfg.catch):
        # Prefer an item the annotator does not hear otherwise; else reuse a listed item in the
        # branch already heard, so no one ever hears both branches of an item.
        it = rng.choice(unused or pool)
        branch = heard.get(it.id, rng.randrange(2))
        heard[it.id] = branch
        unused = [u for u in unused if u.id != it.id]
        foil = rng.choice([o for o in pool if o.id != it.id])
        entries.append(_Entry(it, branch, "catch", foil, rng.randrange(2)))
    rng.shuffle(entries)
    # Sources early enough in the list that the repeat can come MIN_REPEAT_GAP places later.
    early = [e for e in entries[: max(1, len(entries) - MIN_REPEAT_GAP)] if e.kind != "catch"]
    scored = early or [e for e in entries if e.kind != "catch"]
    for src in rng.sample(scored, min(cfg.repeats, len(scored))):
        # A repeat comes a few places after its first showing, so it is not recognised as one.
        first = next(i for i, e in enumerate(entries) if e is src)
        lo = min(first + 1 + MIN_REPEAT_GAP, len(entries))
        entries.insert(
            rng.randint(lo, len(entries)), _Entry(src.item, src.branch, "repeat", source=src)
        )
    seq_of = {id(e): s for s, e in enumerate(entries)}
    return [
        Assigned(
            annotator=name,
            seq=seq,
            item_id=e.item.id,
            task=e.item.task,
            branch=e.branch,
            kind=e.kind,
            order=rng.choice(("ab", "ba")),
            foil_item=e.foil.id if e.foil else None,
            foil_branch=e.foil_branch,
            repeat_of=seq_of[id(e.source)] if e.source else None,
        )
        for seq, e in enumerate(entries)
    ]


@dataclass(frozen=True)
class Stimulus:
    """What one assigned stimulus plays and offers, in showing order, with its answer key."""

    context: tuple[tuple[str, str, str], ...]
    """(speaker, transcript, dataset-relative audio path) of every context turn."""
    responses: tuple[tuple[str, str], ...]
    """(text, audio path) of Response 1 and Response 2."""
    gold: str
    """'R1' or 'R2'."""
    identities: tuple[str, str]
    """What Response 1 and 2 are, position-free: '0'/'1' (branch) or 'own'/'foil' (catch)."""


def stimulus(items: dict[str, AuditItem], a: Assigned) -> Stimulus:
    item = items[a.item_id]
    branch = item.branches[a.branch]
    context = tuple(
        (turn.speaker, turn.text, path)
        for turn, path in zip(item.context, branch.audio, strict=True)
    )
    if a.kind == "catch":
        assert a.foil_item is not None and a.foil_branch is not None
        foil = items[a.foil_item].branches[a.foil_branch].response
        pair = [(branch.response, "own"), (foil, "foil")]
        right = "own"
    else:
        pair = [(item.branches[0].response, "0"), (item.branches[1].response, "1")]
        right = str(a.branch)
    if a.order == "ba":
        pair.reverse()
    return Stimulus(
        context=context,
        responses=tuple((r.text, r.audio) for r, _ in pair),
        gold="R1" if pair[0][1] == right else "R2",
        identities=(pair[0][1], pair[1][1]),
    )
