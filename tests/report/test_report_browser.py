"""The report in a real browser (Debian chromium, driven by Playwright): no console errors,
every figure present, a screenshot written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Debian 'chromium' is not installed (scripts/test.sh installs it as root)",
)


def test_report_renders_without_console_errors(small_report: Path) -> None:
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        page = browser.new_page(viewport={"width": 1300, "height": 1800})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
        page.goto((small_report / "report.html").as_uri())
        for fig in ("states", "heatmaps", "accuracy"):
            box = page.locator(f"#fig-{fig} svg").bounding_box()
            assert box is not None and box["width"] > 200 and box["height"] > 100
        # One verdict per judge × task: 4 judges × 2 tasks.
        assert page.locator("table.verdict tbody tr:not(.why)").count() == 8
        page.screenshot(path=str(small_report / "screenshot.png"), full_page=True)
        browser.close()
    assert errors == []
    assert (small_report / "screenshot.png").stat().st_size > 10_000
