"""A judge's one identity: its parsed JudgeSpec plus the state its backend declares.

The spec says most of what makes a judge answer as it does (backend, model, base URL and the
output-changing options, as written). What it cannot say is declared by the backend in one
typed hook, `Judge.state()`: the version of how a scaffold asks, the defaults a backend applies
to options the spec leaves out (a changed default is a different judge), a local model's weights
hash. Nothing else is: the label, every call's cache key, the finished-audit key and run.json's
record of the judge all derive from this object, so two judges that answer alike cannot be told
apart by one of them and confused by another.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paraudit.judges.spec import JudgeSpec

StateValue = str | int | float | bool | None | Mapping[str, "StateValue"]
"""What a backend may declare: JSON scalars, nested by name (a scaffold nests its judge's)."""
State = Mapping[str, StateValue]


@dataclass(frozen=True, eq=False)
class JudgeIdentity:
    spec: JudgeSpec
    """The judge's spec (harness options too, for whoever builds it; they are no identity)."""
    state: State
    """The backend's declared output-changing state (`Judge.state()`), not in the spec."""

    def __eq__(self, other: object) -> bool:
        # Two judges are one when they answer alike: a harness option (rpm, a test hook)
        # leaves them one, as in their keys.
        return isinstance(other, JudgeIdentity) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(self.canonical())

    def canonical(self) -> str:
        """The identity as canonical JSON (sorted keys, no spaces, text as is)."""
        return json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def digest(self) -> str:
        """sha256 of `canonical()`: what each call key holds of its judge (runner.keys)."""
        return hashlib.sha256(self.canonical().encode()).hexdigest()

    @property
    def label(self) -> str:
        """The human-readable name (the spec's: state is what every run of this code shares)."""
        return self.spec.label

    def as_dict(self) -> dict[str, Any]:
        """The identity as structure: what call keys hash and run.json records."""
        return {**self.spec.identity, "state": _plain(self.state)}


def _plain(state: State) -> dict[str, Any]:
    """The state as plain dicts (a Mapping need not be a dict; json needs one)."""
    return {k: _plain(v) if isinstance(v, Mapping) else v for k, v in sorted(state.items())}
