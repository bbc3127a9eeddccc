"""The file names of a dataset folder (items.dataset re-exports them): the output guard
(items.guard) recognises a dataset by them without importing the dataset reader."""

from __future__ import annotations

MANIFEST = "dataset.json"
ITEMS = "items.jsonl"
AUDIO_DIR = "audio"
