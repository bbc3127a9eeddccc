"""The demo's lines on one judge audited with its clips separate and joined (the report's
joined.json, written by report.joined)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.markup import escape

from paraudit.cli.common import console
from paraudit.report.joined import JSON
from paraudit.stats.joined import summary_lines


def print_joined(report_dir: Path) -> None:
    """Nothing when the report holds no judge both ways."""
    path = report_dir / JSON
    if not path.is_file():
        return
    for line in summary_lines(json.loads(path.read_text(encoding="utf-8"))):
        console.print(escape(line), highlight=False, soft_wrap=True)
