"""The audit runner: plan, cache keys, SQLite run store, concurrent resumable calls."""
