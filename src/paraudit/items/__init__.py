"""Audit items, dataset folders and their validation."""

from paraudit.items.records import (
    SCHEMA_VERSION,
    AuditItem,
    Branch,
    DatasetManifest,
    Response,
    Turn,
)

__all__ = ["SCHEMA_VERSION", "AuditItem", "Branch", "DatasetManifest", "Response", "Turn"]
