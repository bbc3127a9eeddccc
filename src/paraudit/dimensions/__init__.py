"""Paralinguistic dimensions as plugins: emotion is one of several (see `base.py`)."""
