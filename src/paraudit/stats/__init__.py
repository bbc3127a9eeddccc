"""Statistics computed from a stored run (results.jsonl), never from live objects."""
