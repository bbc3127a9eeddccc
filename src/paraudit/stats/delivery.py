"""Audio delivery: did the judge's provider (or processor) actually count the audio it was sent?

paraudit hashes every clip it sends, but a send is not a delivery: a gateway or a processor can
drop the audio and still answer with HTTP 200 (ollama's `/api/chat`, lmms-eval PR #1081), and the
answer is then a blind guess that no accuracy figure tells apart. What the provider *counted* is
in each call's stored usage; this module reads it, per call, against what the clips' durations
imply:

- OpenAI chat completions report `usage.prompt_tokens_details.audio_tokens`. OpenAI documents
  user audio as "1 token per 100 ms of audio" for the Realtime API
  (https://developers.openai.com/api/docs/guides/realtime-costs); it publishes no separate rate
  for gpt-audio / gpt-4o-audio-preview in Chat Completions, so 10 tokens per second is applied
  as an *expected* rate and only a count far below it is flagged (`FEW_FRACTION`).
- Gemini reports prompt tokens by modality (`usage_metadata.prompt_tokens_details[]`,
  `{modality: AUDIO, token_count}`); "Gemini represents each second of audio as 32 tokens"
  (https://ai.google.dev/gemini-api/docs/audio, "Technical details about audio").
- Local `hf:` judges record the audio feature frames their processor produced per call
  (`audio_features`) and the frames the clips' samples imply at the feature extractor's hop
  (`audio_features_expected`): that is the processor's own rate, not a documented constant.

Per call that sent audio (`audio_sent_sha256` not empty), the status is

- `delivered` — a count was reported and it is at least `FEW_FRACTION` of the expected count
  (or no duration was recorded to compare with, and the count is above 0);
- `none counted` — the count is 0 (flagged);
- `too few` — the count is below `FEW_FRACTION` × expected (flagged);
- `not checked` — the usage holds no audio count at all (built-in judges, servers that report
  nothing, calls that failed): never "delivered", never flagged.

A judge that hears (or merely receives) its audio cannot trip the flag: its provider counts
every clip. A judge that ignores audio it received is not flagged either — that is what audio
sensitivity measures; this check is only about whether the audio arrived.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from paraudit.runfolder.rows import ResultRow

FEW_FRACTION = 0.25
"""A count below this share of what the clips' durations imply is "far too few". OpenAI's rate
is documented for a sibling API (see the module docstring), and a provider may trim leading
and trailing silence; a quarter leaves room for both and still catches a call that lost most
of its audio (e.g. three of four clips). A call that lost one of two clips is *not* caught."""

Source = Literal["openai", "gemini", "local"]


@dataclass(frozen=True)
class Rate:
    """How many counted units one second of audio should give, and where that is written."""

    per_s: float | None
    """None: the expected count is recorded per call by the backend (local processors)."""
    unit: str
    field: str
    """Where the count is read in the stored usage."""
    source: str
    """The page that documents the rate (or how it is derived)."""


RATES: dict[Source, Rate] = {
    "openai": Rate(
        10.0,
        "audio tokens",
        "usage.prompt_tokens_details.audio_tokens",
        "https://developers.openai.com/api/docs/guides/realtime-costs (user audio: 1 token per "
        "100 ms; documented for the Realtime API, applied to Chat Completions)",
    ),
    "gemini": Rate(
        32.0,
        "audio tokens",
        "usage_metadata.prompt_tokens_details[modality=AUDIO].token_count",
        "https://ai.google.dev/gemini-api/docs/audio (each second of audio is 32 tokens)",
    ),
    "local": Rate(
        None,
        "audio feature frames",
        "usage.audio_features",
        "the processor's feature-extractor hop (frames the clips' samples imply)",
    ),
}

Status = Literal["delivered", "none counted", "too few", "not checked"]
FLAGGED: tuple[Status, ...] = ("none counted", "too few")


@dataclass(frozen=True)
class Count:
    """The audio one call's provider counted, and what its clips imply."""

    source: Source
    counted: float
    expected: float | None
    """None when the call recorded no duration (runs stored before the check existed)."""


def _number(x: Any) -> float | None:
    """A count as stored; one outside physical bounds (negative, non-finite, beyond a billion:
    a folder written before replies' usage was checked) counts as not reported."""
    if not isinstance(x, int | float) or isinstance(x, bool):
        return None
    return float(x) if math.isfinite(x) and 0 <= x <= 1e9 else None


def _gemini_audio(details: list[Any]) -> float:
    """Gemini's AUDIO entries summed (no AUDIO entry in a per-modality list: none counted)."""
    total = 0.0
    for d in details:
        if not isinstance(d, Mapping):
            continue
        modality = d.get("modality")
        name = str(getattr(modality, "value", modality)).upper()
        if name == "AUDIO":
            total += _number(d.get("token_count", d.get("tokenCount"))) or 0.0
    return total


def counted_audio(usage: Mapping[str, Any]) -> Count | None:
    """The audio count one call's usage reports, by its shape; None when it reports none."""
    seconds = _number(usage.get("audio_sent_s"))
    local = usage.get("audio_features")
    if local is not None:
        counted = _number(local)
        if counted is None:
            return None
        return Count("local", counted, _number(usage.get("audio_features_expected")))
    details = usage.get("prompt_tokens_details")
    if isinstance(details, list):  # Gemini: one entry per modality
        rate = RATES["gemini"].per_s or 0.0
        expected = None if seconds is None else seconds * rate
        return Count("gemini", _gemini_audio(details), expected)
    if isinstance(details, Mapping):  # OpenAI: a dict of counts
        counted = _number(details.get("audio_tokens"))
        if counted is None:  # e.g. only cached_tokens: the server does not count audio
            return None
        rate = RATES["openai"].per_s or 0.0
        return Count("openai", counted, None if seconds is None else seconds * rate)
    return None


def call_status(usage: Mapping[str, Any]) -> tuple[Status, Count | None]:
    """One call's delivery status (the rules in the module docstring); the call sent audio."""
    c = counted_audio(usage)
    if c is None:
        return "not checked", None
    if c.counted <= 0:
        return "none counted", c
    if c.expected is not None and c.counted < FEW_FRACTION * c.expected:
        return "too few", c
    return "delivered", c


class DeliveryCell(BaseModel):
    """The audio-delivery check of one judge × task (summary section `delivery`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judge: str
    task: str
    calls_with_audio: int
    """Answered calls (ok, unparsed or refused) that sent at least one clip."""
    checked: int
    """Of those, calls whose usage holds an audio count."""
    not_checked: int
    none_counted: int
    too_few: int
    flagged: int
    """none_counted + too_few."""
    counted: float = 0.0
    """Units counted over the checked calls that recorded a duration."""
    expected: float = 0.0
    """Units those calls' clips imply (rate × seconds, or the processor's own frames)."""
    seconds: float = 0.0
    """Audio seconds sent in the checked calls that recorded them."""
    unit: str | None = None
    field: str | None = None
    rate_per_s: float | None = None
    rate_source: str | None = None
    few_fraction: float = FEW_FRACTION
    text: str
    """One line for the report and the terminal."""


@dataclass
class _Tally:
    calls: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    counted: float = 0.0
    expected: float = 0.0
    seconds: float = 0.0
    sources: set[Source] = field(default_factory=set)

    def add(self, usage: Mapping[str, Any]) -> None:
        self.calls += 1
        status, c = call_status(usage)
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if c is not None:
            self.sources.add(c.source)
            if c.expected is not None:
                self.counted += c.counted
                self.expected += c.expected
                self.seconds += _number(usage.get("audio_sent_s")) or 0.0

    def merge(self, other: _Tally) -> None:
        self.calls += other.calls
        for k, v in other.statuses.items():
            self.statuses[k] = self.statuses.get(k, 0) + v
        self.counted += other.counted
        self.expected += other.expected
        self.seconds += other.seconds
        self.sources |= other.sources


class DeliveryTally:
    """Per judge × task tallies, fed one stored row at a time (rows are not kept)."""

    def __init__(self) -> None:
        self.tallies: dict[tuple[str, str], _Tally] = {}

    def add(self, judge: str, task: str, status: str, usage: Mapping[str, Any], clips: int) -> None:
        if status == "error" or clips == 0:
            return  # no answer (nothing delivered or not), or no audio to deliver
        key = (judge, task)
        t = self.tallies.get(key)
        if t is None:
            t = self.tallies[key] = _Tally()
        if usage:
            t.add(usage)
        else:  # the common case of judges that report nothing, without the shape checks
            t.calls += 1
            t.statuses["not checked"] = t.statuses.get("not checked", 0) + 1

    def renamed(self, judge: str, new: str) -> None:
        """A judge told apart by its run's label when runs are merged (rowgroups.merge_runs)."""
        for j, task in [k for k in self.tallies if k[0] == judge]:
            self.tallies[(new, task)] = self.tallies.pop((j, task))

    def merge(self, other: DeliveryTally) -> None:
        for key, t in other.tallies.items():
            mine = self.tallies.get(key)
            if mine is None:
                self.tallies[key] = t
            else:
                mine.merge(t)

    def cells(self) -> dict[tuple[str, str], DeliveryCell]:
        return {key: cell(key[0], key[1], t) for key, t in sorted(self.tallies.items())}


def tally_rows(rows: Iterable[ResultRow]) -> DeliveryTally:
    """A DeliveryTally of result rows (tests, notebooks; runs are read by rowgroups, which
    tally each row as it arrives)."""
    d = DeliveryTally()
    for r in rows:
        d.add(r.judge, r.task, r.status, r.usage, len(r.audio_sent_sha256))
    return d


def _n(x: float) -> str:
    return f"{x:,.0f}"


def _calls(n: int) -> str:
    return f"{_n(n)} call{'s' * (n != 1)}"


def cell(judge: str, task: str, t: _Tally) -> DeliveryCell:
    s = t.statuses
    none, few, unchecked = s.get("none counted", 0), s.get("too few", 0), s.get("not checked", 0)
    checked = t.calls - unchecked
    source: Source | None = next(iter(t.sources)) if len(t.sources) == 1 else None
    rate = RATES[source] if source is not None else None
    local = source == "local"
    who = "the processor produced" if local else "the provider counted"
    what = "audio features" if local else "audio"
    parts = []
    if none:
        parts.append(f"{who} no {what} for {_n(none)} of {_n(t.calls)} calls")
    if few:
        parts.append(
            f"far too few {rate.unit if rate else 'audio units'} (below {FEW_FRACTION:.0%} of "
            f"what the clips' durations imply) in {_n(few)} of {_n(t.calls)} calls"
        )
    if not checked:
        text = (
            f"not checked: the judge reports no audio counts in its usage ({_n(t.calls)} calls "
            "with audio)"
        )
    elif parts:
        text = "; ".join(parts)
    else:
        share = f", {t.counted / t.expected:.0%} of the {_n(t.expected)} expected" if (
            t.expected) else ""  # fmt: skip
        unit = rate.unit if rate else "audio units"
        text = f"{who} {what} in all {_n(checked)} checked calls ({_n(t.counted)} {unit}{share})"
    if checked and unchecked:
        text += f"; {_calls(unchecked)} not checked (no audio count in their usage)"
    return DeliveryCell(
        judge=judge,
        task=task,
        calls_with_audio=t.calls,
        checked=checked,
        not_checked=unchecked,
        none_counted=none,
        too_few=few,
        flagged=none + few,
        counted=t.counted,
        expected=t.expected,
        seconds=round(t.seconds, 3),
        unit=rate.unit if rate else None,
        field=rate.field if rate else None,
        rate_per_s=rate.per_s if rate else None,
        rate_source=rate.source if rate else None,
        text=text,
    )


def delivery_note(cells: Iterable[DeliveryCell]) -> str:
    """One line over every judge (the demo's and the run's terminal line)."""
    cells = list(cells)
    by_judge: dict[str, list[DeliveryCell]] = {}
    for c in cells:
        by_judge.setdefault(c.judge, []).append(c)
    flagged, fine, unchecked = [], [], []
    for judge, cs in sorted(by_judge.items()):
        n, calls = sum(c.flagged for c in cs), sum(c.calls_with_audio for c in cs)
        if n:
            flagged.append(f"{judge} not delivered in {_n(n)} of {_n(calls)} calls")
        elif any(c.checked for c in cs):
            fine.append(judge)
        else:
            unchecked.append(judge)
    out = flagged[:]
    if fine:
        out.append(f"counted in every checked call for {', '.join(fine)}")
    if unchecked:
        out.append(f"not checked for {len(unchecked)} judge{'s' * (len(unchecked) != 1)} "
                   "(no audio counts in their usage)")  # fmt: skip
    return "audio delivery: " + ("; ".join(out) if out else "no calls sent audio")


__all__ = [
    "FEW_FRACTION",
    "RATES",
    "Count",
    "DeliveryCell",
    "DeliveryTally",
    "call_status",
    "counted_audio",
    "delivery_note",
    "tally_rows",
]
