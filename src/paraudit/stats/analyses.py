"""The registry: every analysis beyond the core cascade, one `Analysis` per line, in order.

The summary (`stats/summary/`) feeds each registered unit's tally in its one pass over a
group's rows and writes its records under `summary.json[name]`; the verdict appends each
unit's behaviours (in this order) after the core ones; the report renders each unit's part.
A new analysis — or one a dimension plugin brings — is one unit (`stats/analysis.py`) and one
line here, plus its typed record in `stats/summary_model.py` (a test checks every registered
name has a section there).

The core (`summary.sections.Group`: accuracy, differences, states and dependence, position, order,
behaviour rates, perception by turn) is not registered: the cascade reads it directly.
The first four read twin items or pairs of runs (stats/paired_units.py; the protocol's
`input`, `across` and `aside`); their order here is the report's order of sections.
"""

from __future__ import annotations

from paraudit.stats.accounting import ACCOUNTING
from paraudit.stats.analysis import Analysis
from paraudit.stats.conflict import CONFLICT
from paraudit.stats.paired_units import GENERATOR_BIAS, INVARIANCE, JOINED, SCAFFOLD
from paraudit.stats.pressure import TEXT_DOMINANCE
from paraudit.stats.reask import REASK
from paraudit.stats.served import SERVED
from paraudit.stats.side_units import DELIVERY, NULL_AUDIO, SELF_CONSISTENCY
from paraudit.stats.strata import STRATA
from paraudit.stats.ties import TIES

ANALYSES: tuple[Analysis, ...] = (
    GENERATOR_BIAS,
    SCAFFOLD,
    JOINED,
    INVARIANCE,
    ACCOUNTING,
    NULL_AUDIO,
    DELIVERY,
    SELF_CONSISTENCY,
    STRATA,
    REASK,
    SERVED,
    TEXT_DOMINANCE,
    TIES,
    CONFLICT,
)


def by_name(name: str) -> Analysis:
    return next(a for a in ANALYSES if a.name == name)


__all__ = ["ANALYSES", "by_name"]
