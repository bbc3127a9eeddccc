"""Installed package versions, recorded in datasets and run specs."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def package_version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"
