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
  "human turn k" per index): P accuracy there and `chance`, what a deaf guesser scores there;
  on first / middle / last, `versus`: P there minus P at each other of them, paired by
  dialogue (the 99 % decision interval "hears only some turns" is decided by).
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

The package is the summary's three stages: `tally.py` (one pass over a group's rows: the core
cells and units, and every registered analysis's tally), `sections.py` (the core sections asked
of the group's item sheet and resolved in one resampling) and `assemble.py` (every group, the
registered units, the verdict; `summarize` and `summarize_groups`).
"""

from __future__ import annotations

from paraudit.stats.summary.assemble import (
    CORE_SECTIONS,
    OPTIONAL,
    SCHEMA,
    SECTIONS,
    summarize,
    summarize_groups,
)

__all__ = ["CORE_SECTIONS", "OPTIONAL", "SCHEMA", "SECTIONS", "summarize", "summarize_groups"]
