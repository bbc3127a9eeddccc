"""The report in a real browser (Debian chromium, driven by Playwright): no console errors,
every figure present, no sideways scroll on a phone, no figure text under 10 px, a table of
contents whose links land on their sections, and the page a few screens long."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Debian 'chromium' is not installed (scripts/test.sh installs it as root)",
)
PHONE = {"width": 390, "height": 844}
"""A phone's viewport (CSS px)."""
DESKTOP = {"width": 1280, "height": 800}
"""A laptop's viewport; a "screen" is its height."""

# The smallest rendered size of any text inside a figure: its font size in SVG units times the
# scale from those units to CSS pixels (rotation-free: the CTM's column length).
SMALLEST_FIGURE_TEXT = """() => {
  let least = Infinity, count = 0;
  for (const t of document.querySelectorAll('.fig svg text')) {
    const m = t.getScreenCTM();
    const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
    least = Math.min(least, size); count += 1;
  }
  return [least, count];
}"""
OPEN_ALL = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
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
        yield b
        b.close()


def _open(browser: Any, report: Path, viewport: dict[str, int]) -> Any:
    page = browser.new_page(viewport=viewport)
    page.goto((report / "report.html").as_uri())
    return page


def test_report_renders_without_console_errors(browser: Any, small_report: Path) -> None:
    errors: list[str] = []
    page = browser.new_page(viewport=DESKTOP)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
    page.goto((small_report / "report.html").as_uri())
    page.evaluate(OPEN_ALL)
    for fig in ("states", "heatmaps", "accuracy"):
        box = page.locator(f"#fig-{fig} svg").bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 100
    # One verdict per judge × task: 4 judges × 2 tasks (each with its "why" row under it).
    assert page.locator("table.verdict tbody tr:not(.why)").count() == 8
    assert page.locator("table.verdict tbody tr.why").count() == 8
    page.screenshot(path=str(small_report / "screenshot.png"), full_page=True)
    page.close()
    assert errors == []
    assert (small_report / "screenshot.png").stat().st_size > 10_000


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_no_sideways_scroll_even_with_every_section_open(
    browser: Any, small_report: Path, viewport: dict[str, int]
) -> None:
    page = _open(browser, small_report, viewport)
    width = "() => document.documentElement.scrollWidth"
    assert page.evaluate(width) <= viewport["width"]
    page.evaluate(OPEN_ALL)  # wide tables and figures scroll inside their own box
    assert page.evaluate(width) <= viewport["width"]
    page.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_no_figure_text_is_under_10px(
    browser: Any, small_report: Path, viewport: dict[str, int]
) -> None:
    page = _open(browser, small_report, viewport)
    page.evaluate(OPEN_ALL)
    least, count = page.evaluate(SMALLEST_FIGURE_TEXT)
    page.close()
    assert count > 50  # the figures' text is real text (svg.fonttype none), so it is measured
    assert least >= 10 - 1e-6, f"smallest figure text {least:.1f} px"


def test_the_contents_links_land_on_their_sections(browser: Any, small_report: Path) -> None:
    page = _open(browser, small_report, DESKTOP)
    hrefs = page.eval_on_selector_all("nav#contents a", "as => as.map(a => a.hash)")
    assert len(hrefs) >= 10 and len(set(hrefs)) == len(hrefs)
    for href in hrefs:
        page.evaluate("() => window.scrollTo(0, 0)")
        page.click(f'nav#contents a[href="{href}"]')
        page.wait_for_function(f"() => location.hash === '{href}'")
        top, bottom_reached = page.evaluate(
            f"""() => [document.querySelector('{href}').getBoundingClientRect().top,
                innerHeight + scrollY >= document.documentElement.scrollHeight - 1]"""
        )
        # At the top of the window, or (near the page's end) as high as the page can scroll.
        assert abs(top) <= 2 or (bottom_reached and 0 <= top < DESKTOP["height"]), (href, top)
    page.close()


def test_verdicts_and_the_state_figure_come_first_and_the_page_is_short(
    browser: Any, small_report: Path
) -> None:
    page = _open(browser, small_report, DESKTOP)
    screen = DESKTOP["height"]
    verdicts, states, toc, height = page.evaluate(
        """() => [...['#verdicts', '#states-figure', '#contents'].map(
              s => document.querySelector(s).getBoundingClientRect().bottom + scrollY),
            document.documentElement.scrollHeight]"""
    )
    page.close()
    assert verdicts < states < toc  # verdicts, the one summary figure, then the contents
    assert states <= 2 * screen, f"state figure ends at {states / screen:.2f} screens"
    assert height <= 5 * screen, f"collapsed page {height / screen:.2f} screens"


# Every stacked bar of the state figure, as drawn: its segments' widths summed per row (the
# bars carry ids states-bar-PANEL-ROW-GROUP, report/figures.py), and each panel's width.
STATE_BARS = """() => {
  const rows = {}, panels = [];
  for (const el of document.querySelectorAll('#fig-states [id^="states-bar-"]')) {
    const [, , panel, row] = el.id.split('-');
    const key = panel + '-' + row;
    rows[key] = (rows[key] || 0) + el.getBoundingClientRect().width;
  }
  for (const el of document.querySelectorAll('#fig-states [id^="states-axes-"]'))
    panels.push(el.getBoundingClientRect().width);
  return [rows, panels];
}"""


def test_a_long_judge_name_keeps_the_bars_wide_and_the_legends_on_screen(
    browser: Any, long_name_report: Path
) -> None:
    from tests.report.conftest import LONG_MODEL

    page = _open(browser, long_name_report, DESKTOP)
    html = (long_name_report / "report.html").read_text()
    assert f"openai:{LONG_MODEL}@http://127.0.0.1:" in html  # the full spec is on the page
    rows, panels = page.evaluate(STATE_BARS)
    assert len(panels) == 2 and len(rows) == 2 * 5  # 5 judges × 2 tasks
    assert min(panels) >= 120, panels
    assert min(rows.values()) >= 120, rows  # each bar's groups add up to every unit
    # The short label names the judge; the full spec is on hover and in the legend.
    label = page.locator("table.matrix-v th[scope=row] .jl").first
    assert label.get_attribute("title").startswith(f"openai:{LONG_MODEL}@http://127.0.0.1:")
    assert len(label.inner_text()) <= 30
    assert page.locator("ul.labels code").first.inner_text().startswith(f"openai:{LONG_MODEL}")
    page.close()

    phone = _open(browser, long_name_report, PHONE)
    for legend in ("#states-legend", "ul.labels", "table.matrix-v"):
        box = phone.locator(legend).first.bounding_box()
        assert box is not None and box["width"] > 0, legend
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (legend, box)
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    phone.close()


def test_the_first_screen_is_the_verdict_matrix_most_pressing_first(
    browser: Any, long_name_report: Path
) -> None:
    page = _open(browser, long_name_report, DESKTOP)
    top = page.evaluate(
        "() => document.querySelector('table.matrix-v').getBoundingClientRect().bottom"
    )
    assert top <= DESKTOP["height"]  # every judge × task's badge on the first screen
    judges = page.eval_on_selector_all(
        "table.matrix-v tbody th[scope=row]", "ths => ths.map(t => t.innerText)"
    )
    # The judge under audit before the controls (alphabetical order put builtin:first first).
    assert judges[0].startswith("openai:") and all("(control)" in j for j in judges[-3:])
    # A badge links to its verdict's row.
    href = page.locator("table.matrix-v a.badge").first.get_attribute("href")
    assert page.locator(f"table.verdict tr{href}").count() == 1
    # Each term is explained once, where it is first used.
    terms = page.eval_on_selector_all("ul.gloss dfn", "ds => ds.map(d => d.innerText)")
    assert len(terms) == len(set(terms)) and {"native", "Potemkin", "at chance"} <= set(terms)
    first_use = page.evaluate(
        """() => { const t = document.body.innerText;
                   return [t.indexOf('Potemkin'), t.indexOf('Potemkin: hears')]; }"""
    )
    assert first_use[0] <= first_use[1] and first_use[1] - first_use[0] < 2000
    text = page.locator("body").inner_text()
    assert not re.search(r"\b0 rows", text) and " to;" not in text  # empty sections left out
    page.close()
