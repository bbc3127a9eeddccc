"""Screenshots of a report at 1280 and 390 px, every section collapsed (the README's figures).

Run: PYTHONPATH=src python scripts/report_screenshots.py demo-out/report docs/
(needs Debian's chromium and playwright, as tests/report/test_report_browser.py does). Prints
each width's page height in screens (1280 × 800 and 390 × 844 viewports).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

VIEWPORTS = ((1280, 800), (390, 844))


def _palette(path: Path) -> None:
    """Rewrite the PNG with a 256-colour palette: the page is flat colours and text, so it
    reads the same at a quarter of the bytes the repository keeps."""
    from PIL import Image

    with Image.open(path) as im:
        small = im.convert("RGB").quantize(256)
    small.save(path, optimize=True)


def main(report: Path, out: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("Debian's chromium is not installed (apt-get install -y chromium)")
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for width, height in VIEWPORTS:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto((report / "report.html").resolve().as_uri())
            shot = out / f"report-{width}.png"
            page.screenshot(path=str(shot), full_page=True)
            _palette(shot)
            total = page.evaluate("() => document.documentElement.scrollHeight")
            print(f"{width} px: {total} px = {total / height:.2f} screens")
            page.close()
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
