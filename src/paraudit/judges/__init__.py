"""Judges: one async interface, backends registered by spec string."""
