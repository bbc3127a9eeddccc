"""Statistics computed from a stored run (results.jsonl), never from live objects."""

from paraudit.stats.accuracy import wilson_interval

__all__ = ["wilson_interval"]
