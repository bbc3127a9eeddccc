"""Offline rendering: Piper speech + emotion as a prosody manipulation (Praat PSOLA)."""
