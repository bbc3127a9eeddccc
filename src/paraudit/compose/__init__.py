"""Compose audit items from text sources by rendering and checking their audio."""
